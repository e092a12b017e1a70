// `aliasfuzz cache stats|clear|prewarm`: the persistent kernel cache
// (lowering/kernel_cache.h), and the --kernel-cache/--kernel-cache-max
// flags that run, fuzz, cache and kit share.
#include <fmt/format.h>

#include <iostream>

#include "generate/generator.h"
#include "lowering/kernel_cache.h"
#include "schedulers/schedulers.h"
#include "tools/commands.h"
#include "tools/target_executor.h"

namespace af::tools {

void add_kernel_cache_flags(Command* c) {
  c->add_option_function(
      "--kernel-cache", [](const std::string& d) { lowering::kernel_cache_config().dir = d; },
      "persistent kernel cache folder (default $AF_KERNEL_CACHE or ~/.cache/aliasfuzz/kernels; 'off': JIT only)");
  c->add_option_function(
       "--kernel-cache-max",
       [](const std::string& s) { lowering::kernel_cache_config().max_bytes = lowering::parse_size(s); },
       "size cap of the kernel cache, least recently used removed first (default 2G)")
      ->check([](const std::string& s) { return lowering::parse_size(s) < 0 ? "a size such as 2G, 500M" : ""; });
}

namespace {

struct CacheArgs {
  std::string action, target = "host";
  int64_t programs = 100;
  uint64_t seed = 1;
};

int run(const CacheArgs& a) {
  const std::string dir = lowering::kernel_cache_dir(a.target);
  if (dir.empty()) {
    std::cerr << "aliasfuzz cache: the kernel cache is off\n";
    return 2;
  }
  lowering::KernelStore store(dir, lowering::kernel_cache_config().max_bytes);
  if (a.action == "clear") {
    std::cout << fmt::format("removed {} files from {}\n", store.clear(), dir);
    return 0;
  }
  if (a.action == "prewarm") {
    // Every region of every strategy's schedule of programs [0, N): what a
    // campaign over this seed will look up.
    auto& cache = compile_cache();
    int errors = 0;
    for (int64_t i = 0; i < a.programs; ++i) {
      ir::Program p = fuzz::generate(a.seed, static_cast<uint64_t>(i), fuzz::halide_options());  // what Halide lowers
      auto an = ir::analyze(p);
      if (!an) continue;
      for (const auto& strategy : run::strategy_names())
        for (const auto& fusion : run::fusion_policy_names()) {
          run::SpelledSpec so;
          so.strategy = strategy;
          so.fusion = fusion;
          auto s = schedulers::make_schedule(p, *an, so);
          if (s && !lowering::run_schedule(*s, lowering::LowerOptions{}, nullptr, cache).ok) ++errors;
        }
    }
    std::cout << fmt::format("prewarm: {} programs, {} kernels compiled, {} loaded from the cache, {} errors\n",
                             a.programs, cache.compile_ms_each().size(), cache.disk_hits(), errors);
  }
  const auto s = store.stats();
  std::cout << fmt::format("{}: {} entries, {:.1f} MiB (cap {:.0f} MiB), {} temp files\n", dir, s.entries,
                           s.bytes / 1048576.0, lowering::kernel_cache_config().max_bytes / 1048576.0, s.temp_files);
  return 0;
}

}  // namespace

void register_cache(Command& app, int* status) {
  auto a = std::make_shared<CacheArgs>();
  auto* c = app.add_subcommand("cache", "the persistent kernel cache: stats, clear, prewarm --programs N");
  c->add_option("action", a->action, "stats | clear | prewarm")->required()->member_of({"stats", "clear", "prewarm"});
  c->add_option("--programs", a->programs, "prewarm: programs [0, N) of --seed (default 100)");
  c->add_option("--seed", a->seed, "prewarm: generator seed (default 1)");
  add_kernel_cache_flags(c);
  c->callback([a, status] { *status = run(*a); });
}

}  // namespace af::tools
