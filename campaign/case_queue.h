// Which programs of a campaign's shard to check next and which are done:
// shard i of N checks global indices i, i+N, i+2N, ... (local index j is
// global i+jN); a case handed out but never answered is handed out again.
// state.json keeps done_below_j and done (a resume skips them).
#pragma once
#include <cstdint>
#include <deque>
#include <optional>
#include <set>

namespace af::fuzz {

struct CaseQueue {
  int shard_i = 0, shard_n = 1;
  int64_t programs = -1;       // global indices [0, programs); -1: no end
  uint64_t next_j = 0;         // next local index to hand out
  std::deque<uint64_t> retry;  // global indices to hand out again
  std::set<uint64_t> done;     // completed global indices at or above global(done_below_j)
  uint64_t done_below_j = 0;   // every local index below this is done

  uint64_t global(uint64_t j) const { return shard_i + j * shard_n; }
  uint64_t local(uint64_t k) const { return (k - shard_i) / shard_n; }
  bool past_end(uint64_t j) const { return programs >= 0 && global(j) >= static_cast<uint64_t>(programs); }
  bool exhausted() const { return retry.empty() && past_end(next_j); }
  bool is_done(uint64_t k) const { return local(k) < done_below_j || done.count(k); }

  std::optional<uint64_t> next() {
    if (!retry.empty()) {
      const uint64_t k = retry.front();
      retry.pop_front();
      return k;
    }
    while (!past_end(next_j)) {
      const uint64_t k = global(next_j++);
      if (!done.count(k)) return k;  // else done before a resume
    }
    return std::nullopt;
  }
  void give_back(uint64_t k) { retry.push_back(k); }
  void mark_done(uint64_t k) {
    done.insert(k);
    while (done.count(global(done_below_j))) done.erase(global(done_below_j++));
  }
};

}  // namespace af::fuzz
