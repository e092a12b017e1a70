// `aliasfuzz kit --target cuda|opencl|host --programs N --seed S
// [--strategy ...] --out DIR`: a device kit (lowering/kit.h) for a machine
// with a GPU driver and no compiler. Kernels are compiled for a portable
// host part (lowering's aot_target_string(t, true)) through the persistent
// cache (a rebuilt kit recompiles nothing), then packed into DIR/kernels.pack
// (lowering/kit_pack.h), one kernel per distinct region structure.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "check/campaign_specs.h"
#include "check/check.h"
#include "generate/generator.h"
#include "lowering/aot_build.h"
#include "lowering/lowering.h"
#include "lowering/kit.h"
#include "lowering/kit_pack.h"
#include "schedulers/schedulers.h"
#include "tools/commands.h"
#include "tools/run_flags.h"

namespace af::tools {

namespace fs = std::filesystem;

namespace {

struct KitArgs {
  std::string target = "host", out;
  int64_t programs = 100;
  uint64_t seed = 1;
  std::vector<std::string> strategies, injects;
  std::vector<run::Mutant> mutants;  // injects, parsed by run()
  bool dry_run = false;              // count cases and distinct kernels; compile and write nothing
};

std::string self_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? fs::path(std::string(buf, static_cast<size_t>(n))).parent_path().string() : ".";
}

// The runner built next to this binary (bazel-bin/lowering/kit_runner), or $AF_KIT_RUNNER.
std::string find_runner() {
  if (const char* e = std::getenv("AF_KIT_RUNNER"); e && *e) return e;
  for (const std::string& p :
       {self_dir() + "/../lowering/kit_runner", self_dir() + "/aliasfuzz.runfiles/aliasfuzz/lowering/kit_runner"})
    if (fs::exists(p)) return p;
  return "";
}

// Shared libraries the runner needs besides glibc (libstdc++, libgcc_s,
// libfmt): copied into bin/, which the runner's rpath ($ORIGIN) names.
std::vector<std::string> runner_libs(const std::string& runner) {
  std::vector<std::string> libs;
  FILE* p = popen(("ldd '" + runner + "' 2>/dev/null").c_str(), "r");
  char line[1024];
  while (p && fgets(line, sizeof line, p)) {
    const std::string l = line;
    const auto arrow = l.find("=> /");
    if (arrow == std::string::npos) continue;
    const std::string path = l.substr(arrow + 3, l.find(' ', arrow + 3) - arrow - 3);
    const std::string name = fs::path(path).filename().string();
    static const std::set<std::string> glibc = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0",
                                                "librt.so.1"};
    if (!glibc.count(name)) libs.push_back(path);
  }
  if (p) pclose(p);
  return libs;
}

int64_t folder_bytes(const std::string& dir) {
  int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) n += static_cast<int64_t>(e.file_size());
  return n;
}

// The schedules of program i: every strategy (fusion policies in turn, as
// fuzz does), then each mutant as a campaign runs it (fuzz::campaign_specs).
std::vector<std::pair<schedulers::Schedule, std::string>> kit_schedules(const ir::Program& p, const ir::Analysis& an,
                                                                        const KitArgs& a, uint64_t i) {
  std::vector<std::pair<schedulers::Schedule, std::string>> out;
  const auto strategies = a.strategies.empty() ? run::strategy_names() : a.strategies;
  for (auto& s : schedulers::rotating_schedules(p, an, strategies, static_cast<size_t>(i))) out.push_back({s, ""});
  if (a.mutants.empty()) return out;
  for (const auto& spec : fuzz::campaign_specs(a.seed, i, {}, a.mutants)) {
    const run::RunConfig config = spec.config();
    auto s = schedulers::make_schedule(p, an, config);
    if (!s) continue;
    s->strategy = config.strategy.spelling;
    s->fusion = spec.fusion_name();
    out.push_back({std::move(*s), spec.mutant_name()});
  }
  return out;
}

int run(KitArgs& a) {
  const auto t = lowering::target_from_name(a.target);
  if (!t || *t == lowering::Target::Ptx) {
    std::cerr << "aliasfuzz kit: --target must be host, opencl or cuda\n";
    return 2;
  }
  std::string why;
  if (auto mutants = run::parse_mutants(a.injects, &why)) {
    a.mutants = std::move(*mutants);
  } else {
    std::cerr << "aliasfuzz kit: " << why << "\n";
    return 2;
  }
  const std::string runner = find_runner();
  if (runner.empty() && !a.dry_run) {
    std::cerr << "aliasfuzz kit: kit_runner not found (bazel build //lowering:kit_runner, or set AF_KIT_RUNNER)\n";
    return 2;
  }
  fs::create_directories(a.out + (a.dry_run ? "" : "/bin"));
  const std::string ts = lowering::detail::aot_target_string(*t, true);
  const std::string hv = lowering::detail::halide_version();
  // Build through the persistent cache when it is on (a rebuilt kit
  // compiles nothing), else in a scratch store removed once packed.
  const std::string cache_dir = lowering::kernel_cache_dir("kit-" + a.target);
  const std::string scratch = a.out + "/.kernels-build";
  lowering::KernelStore cache(cache_dir.empty() ? scratch : cache_dir, lowering::kernel_cache_config().max_bytes);
  const std::string rt = a.dry_run ? "" : lowering::runtime_entry(cache, ts, &why);
  if (rt.empty() && !a.dry_run) {
    std::cerr << "aliasfuzz kit: Halide runtime for " << ts << ": " << why << "\n";
    return 2;
  }
  lowering::Kit kit{a.target, ts, hv, a.seed, {}, {}};
  std::vector<float> floats;
  std::map<std::string, std::string> kernels;  // region key -> full key (ordered: similar structures pack together)
  int compiled = 0;
  const auto& must = run::must_agree_strategy_names();
  for (int64_t i = 0; i < a.programs; ++i) {
    ir::Program p = fuzz::generate(a.seed, static_cast<uint64_t>(i), fuzz::halide_options());
    auto an = ir::analyze(p);
    if (!an) continue;
    const oracles::Observables expected = oracles::run_eager(p, *an);
    for (auto& [sched, mutant] : kit_schedules(p, *an, a, static_cast<uint64_t>(i))) {
      const schedulers::Schedule* s = &sched;
      auto san = s->analysis ? *s->analysis : *ir::analyze(s->program);
      const auto needed = lowering::detail::needed_after(s->program, san, s->regions);
      const bool stale = s->mutant == run::Mutant::FusionStaleCopy;
      for (bool checked : {false, true})
        for (size_t r = 0; r < s->regions.size(); ++r) {
          auto spec = lowering::detail::build_spec(s->program, san, s->regions[r], needed[r], checked, stale);
          if (!spec.has_code() || kernels.count(spec.key)) continue;
          if (a.dry_run) {
            kernels[spec.key] = "";
            continue;
          }
          bool fresh = false;
          double ms = 0;
          std::string err;
          if (lowering::kernel_entry(cache, spec, *t, ts, &fresh, &ms, &err).empty())
            kit.build_errors.push_back(fmt::format("program {} {} region {}: {}", i, s->strategy, r, err));
          else
            kernels[spec.key] = lowering::KernelStore::full_key(hv, ts, spec.key);
          compiled += fresh;
        }
      lowering::KitCase c{static_cast<int>(i),
                          s->strategy,
                          s->fusion,
                          mutant,
                          mutant.empty() && std::find(must.begin(), must.end(), s->strategy) != must.end(),
                          ir::print(p),
                          ir::print(s->program),
                          s->regions,
                          s->origin,
                          0,
                          {},
                          {}};
      lowering::kit_add_expected(c, expected, floats);
      kit.cases.push_back(std::move(c));
    }
  }
  if (a.dry_run) {
    std::error_code ec;
    fs::remove_all(scratch, ec);
    if (std::string e = lowering::write_kit(a.out, kit, floats); !e.empty()) {  // the cases' files alone
      std::cerr << "aliasfuzz kit: " << e << "\n";
      return 2;
    }
    std::cout << fmt::format(
        "kit {} (dry run): {} programs, {} cases, {} distinct kernels; kit.json.xz + "
        "expected.bin.xz {:.2f} MiB in {}\n",
        a.target, a.programs, kit.cases.size(), kernels.size(),
        (fs::file_size(a.out + "/kit.json.xz") + fs::file_size(a.out + "/expected.bin.xz")) / 1048576.0, a.out);
    return 0;
  }
  // The runtime first: a pack damaged in transit still loads what precedes the damage.
  std::vector<std::string> entries = {rt};
  for (const auto& [key, full] : kernels) {
    const std::string path = cache.find(full, &why);
    if (path.empty())
      kit.build_errors.push_back("kernel " + key.substr(0, 40) + "... left the cache: " + why);
    else
      entries.push_back(path);
  }
  lowering::PackStats pack;
  if (!lowering::write_kernel_pack(a.out + "/kernels.pack", entries, &pack, &why)) {
    std::cerr << "aliasfuzz kit: " << why << "\n";
    return 2;
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  fs::remove_all(a.out + "/kernels", ec);  // a kit of an older format
  if (std::string e = lowering::write_kit(a.out, kit, floats); !e.empty()) {
    std::cerr << "aliasfuzz kit: " << e << "\n";
    return 2;
  }
  const auto copy = fs::copy_options::overwrite_existing;
  fs::copy_file(runner, a.out + "/bin/kit_runner", copy);
  for (const auto& lib : runner_libs(runner))
    fs::copy_file(lib, a.out + "/bin/" + fs::path(lib).filename().string(), copy);
  {
    std::ofstream run(a.out + "/run");
    run << "#!/bin/sh\n# Runs every case of this kit (unchecked and checked); results.json lands here\n"
           "# unless --out DIR names another folder.\nd=$(cd \"$(dirname \"$0\")\" && pwd)\n"
           "exec \"$d/bin/kit_runner\" \"$d\" \"$@\"\n";
  }
  fs::permissions(a.out + "/run", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec);
  std::cout << fmt::format(
      "kit {}: {} programs, {} cases, {} kernels ({} compiled now), {} build errors; kernels {:.1f} MiB as files, "
      "{:.1f} MiB packed; bin {:.1f} MiB; kit {:.1f} MiB in {}\n",
      a.target, a.programs, kit.cases.size(), kernels.size(), compiled, kit.build_errors.size(),
      pack.raw_bytes / 1048576.0, pack.packed_bytes / 1048576.0, folder_bytes(a.out + "/bin") / 1048576.0,
      folder_bytes(a.out) / 1048576.0, a.out);
  return 0;
}

}  // namespace

void register_kit(Command& app, int* status) {
  auto a = std::make_shared<KitArgs>();
  auto* c = app.add_subcommand("kit", "build a device kit: AOT kernels + a compiler-free runner (DIR/run)");
  c->add_option("--target", a->target, "host, opencl or cuda (default host)");
  c->add_option("--programs", a->programs, "generated programs [0, N) (default 100)");
  c->add_option("--seed", a->seed, "generator seed (default 1)");
  flags::strategies(c, a->strategies, "default: all");
  flags::injects(c, a->injects, "each mutant's cases as a campaign runs them; checked mode should detect them");
  c->add_option("--out", a->out, "the kit's folder")->required();
  c->add_flag("--dry-run", a->dry_run,
              "count the cases and distinct kernels and write only the cases' files (no kernels, no runner): "
              "sizes a kit before an hour of compiling");
  add_kernel_cache_flags(c);
  c->callback([a, status] { *status = run(*a); });
}

}  // namespace af::tools
