// The in-process rate of an external strategy (issue #34 item 4): the
// programs a campaign of SEED checks first (generate(SEED, k), the ones the
// oracle accepts), run in one warm Python of that strategy by
// bench/external_rate.py, twice (a process each, each with an empty
// Inductor cache): compile + call only, and the whole request as
// compilers/external_runner.py answers it (eager, compile, call, observe). bench/external_rate.sh sets a campaign
// worker's rate next to it.
//   external_rate STRATEGY [PROGRAMS=200] [SEED=5] [BENCH_PY]
// Prints: programs, then programs/s of each.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/files.h"
#include "compilers/table.h"
#include "generate/generator.h"
#include "ir/analysis.h"
#include "oracles/torch_function.h"

namespace {

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc < 2) {
    std::fprintf(stderr, "usage: external_rate STRATEGY [PROGRAMS=200] [SEED=5] [BENCH_PY]\n");
    return 2;
  }
  const std::string strategy = argv[1];
  const long n = argc > 2 ? std::atol(argv[2]) : 200;
  const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 5;
  const std::string bench_py = argc > 4 ? argv[4] : "bench/external_rate.py";
  const auto row = af::compilers::external_strategy(strategy);
  const std::string python = af::compilers::external_python(strategy);
  if (!row || python.empty()) {
    std::fprintf(stderr, "external_rate: strategy %s is not installed\n", strategy.c_str());
    return 2;
  }
  const fs::path dir = fs::temp_directory_path() / ("af_external_rate_" + std::to_string(getpid()));
  fs::create_directories(dir);
  // The measured programs (0..n-1), after three valid ones past them that
  // only warm the Python up (kept out of every cache the measure sees).
  const af::fuzz::GenOptions gen;
  std::vector<std::string> files;
  long kept = 0, warm = 0;
  auto add = [&](uint64_t k) {
    const af::ir::Program p = af::fuzz::generate(seed, k, gen);
    if (!af::ir::analyze(p)) return false;  // a campaign checks these another way
    const std::string m = af::oracles::torch_function_module(p);
    const fs::path f = dir / ("p" + std::to_string(k) + ".py");
    if (m.empty() || !af::base::write_file_atomic(f.string(), m)) return false;
    files.push_back(quoted(f.string()));
    return true;
  };
  for (uint64_t k = static_cast<uint64_t>(n); warm < 3 && k < static_cast<uint64_t>(n) + 100; ++k) warm += add(k);
  for (long k = 0; k < n; ++k) kept += add(static_cast<uint64_t>(k));
  double seconds[2] = {0, 0};
  const char* passes[2] = {"compile", "request"};
  for (int i = 0; i < 2; ++i) {
    std::string cmd = quoted(python) + " " + quoted(bench_py) + " " + passes[i] + " " + quoted(row->imports) + " " +
                      quoted(row->compile) + " " + std::to_string(warm);
    for (const auto& f : files) cmd += " " + f;
    cmd += " 2>" + quoted((dir / "stderr").string());  // Dynamo logs the programs it refuses
    FILE* pipe = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    while (pipe && fgets(buf, sizeof buf, pipe)) out += buf;
    const int rc = pipe ? pclose(pipe) : -1;
    const auto j = nlohmann::json::parse(out, nullptr, false);
    if (rc != 0 || j.is_discarded() || !j.contains("seconds")) {
      std::string err;
      af::base::read_file((dir / "stderr").string(), &err);
      std::fprintf(stderr, "external_rate: the Python bench failed (%d): %s\n%s", rc, out.c_str(), err.c_str());
      fs::remove_all(dir);
      return 2;
    }
    seconds[i] = j["seconds"];
  }
  fs::remove_all(dir);
  std::printf("programs %ld of %ld (seed %llu, the valid ones)\n", kept, n, static_cast<unsigned long long>(seed));
  std::printf("in-process compile+call  %.2f programs/s\n", kept / seconds[0]);
  std::printf("in-process whole request %.2f programs/s\n", kept / seconds[1]);
  return 0;
}
