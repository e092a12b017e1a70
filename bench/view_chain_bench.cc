// Strategy cost against view-chain length (issue: every strategy linear or
// n·log n in program length). For chains of 1k/2k/4k/8k views, with one
// write at the end and with a write every 50 views, prints the time to
// schedule + interpret under each strategy and the ratio to the previous
// length (2.0 = linear, ~2.2 = n·log n, 4.0 = quadratic), all in one run.
// `bazel run -c opt //bench:view_chain_bench`.
#include <chrono>
#include <cstdio>

#include "ir/analysis.h"
#include "ir/text.h"
#include "ir/view_chain.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"

using namespace af;

int main() {
  const std::vector<std::string> strategies = {"eager", "functionalize", "update_aliases-ordered", "update_aliases-min",
                                               "update_aliases"};
  std::printf("%-24s %-12s %8s %10s %8s  %s\n", "strategy", "writes", "views", "ms", "ratio", "statements");
  for (int write_every : {0, 50})
    for (const auto& strategy : strategies) {
      double last = 0;
      for (int n : {1000, 2000, 4000, 8000}) {
        auto p = ir::parse(ir::view_chain_text(n, write_every));
        auto an = ir::analyze(*p);
        const auto expected = oracles::run_eager(*p, *an);
        const run::SpelledSpec o{strategy, "", "random:3", "greedy"};
        const auto t0 = std::chrono::steady_clock::now();
        auto s = schedulers::make_schedule(*p, *an, o);
        if (s.ok()) schedulers::interpret(*s);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%-24s %-12s %8d %10.1f %8s  %s\n", strategy.c_str(), write_every ? "every 50" : "at the end", n,
                    ms, last > 0 ? std::to_string(ms / last).substr(0, 4).c_str() : "-",
                    s.ok() ? std::to_string(s->program.stmts.size()).c_str() : s.error().message.substr(0, 60).c_str());
        last = s.ok() ? ms : 0;
      }
    }
}
