// What a campaign's worker process does: check one generated program
// under every spec of the campaign and answer with one JSON line, or
// serve program indices read from a pipe until it closes.
#pragma once
#include <cstdint>
#include <string>

#include "fuzz/campaign.h"
#include "oracles/line_process.h"

namespace af::fuzz {

// Seconds on a monotonic clock (the campaign's timestamps and timeouts).
using oracles::now_s;

// The JSON line of program k: validity, findings (spec, bucket, first
// mismatch or error), runs, milliseconds per tier, external-run counts.
std::string check_case(const CampaignOptions& o, uint64_t k);

// The worker's main loop: an index per line on in_fd, a JSON line each on
// out_fd; under the campaign's memory limit. Never returns.
[[noreturn]] void worker_main(const CampaignOptions& o, int in_fd, int out_fd);

}  // namespace af::fuzz
