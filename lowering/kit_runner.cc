// A kit's runner (lowering/kit.h): kit_runner DIR [--out RESULTS_DIR]
// [--no-checked] [--shard I/N] (only the programs k with k % N == I: one
// task of `aliasfuzz slurm --kit`). Links no Halide and no LLVM: the kernels bind to the
// kit's own Halide runtime (which loads the GPU driver). The kernels are
// unpacked from DIR/kernels.pack into a private temp folder, removed at
// exit. Every case runs unchecked, then checked (the oracle's per-statement
// values, through the schedule's provenance, compared on the device);
// results.json gets one row per run, agreement by strategy, mutant
// detection and timing (lowering/kit_summary.h), and stdout the summary lines.
// Exit 0 when every must-agree run agreed and nothing was missing, 1
// otherwise, 2 when the kit cannot be read.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ir/text.h"
#include "lowering/aot.h"
#include "lowering/kit.h"
#include "lowering/kit_pack.h"
#include "lowering/kit_summary.h"
#include "schedulers/schedulers.h"

using namespace af;
using namespace af::lowering;

namespace {

// Line `line` (1-based) of `text`: the source statement a check names.
std::string text_line(const std::string& text, int line) {
  std::istringstream in(text);
  std::string l;
  for (int i = 1; std::getline(in, l); ++i)
    if (i == line) return l;
  return "";
}

// A run's observables against the kit's expected values; the inputs' final
// geometry (format v1.3) is not stored in the kit: it is static, so the
// oracle's comes from the original program's analysis.
std::optional<oracles::Mismatch> compare_with_kit(const KitCase& c, const std::vector<float>& floats,
                                                  const ir::Program& original, const ir::Analysis& original_an,
                                                  const oracles::Observables& actual) {
  oracles::Observables expected = kit_expected(c, floats);
  expected.inputs = oracles::input_geometries(original, original_an);
  return oracles::compare(original, expected, actual);
}

// A private folder for the unpacked kernels, removed when the runner ends.
struct TempDir {
  std::string path;
  TempDir() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/aliasfuzz-kit.XXXXXX";
    if (mkdtemp(tmpl.data())) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kit_runner KIT_DIR [--out DIR] [--no-checked] [--shard I/N]\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::string out = dir;
  bool checked_too = true;
  int shard = 0, shards = 1;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc) {
      out = argv[++i];
    } else if (!std::strcmp(argv[i], "--no-checked")) {
      checked_too = false;
    } else if (!std::strcmp(argv[i], "--shard") && i + 1 < argc &&
               std::sscanf(argv[++i], "%d/%d", &shard, &shards) == 2 && shards >= 1 && shard >= 0 && shard < shards) {
    } else {
      std::fprintf(stderr, "kit_runner: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  Kit kit;
  std::vector<float> floats;
  if (std::string e = read_kit(dir, &kit, &floats); !e.empty()) {
    std::fprintf(stderr, "kit_runner: %s\n", e.c_str());
    return 2;
  }
  const auto target = target_from_name(kit.target);
  TempDir kernels;
  if (kernels.path.empty()) {
    std::fprintf(stderr, "kit_runner: cannot create a temp folder for the kernels\n");
    return 2;
  }
  std::string why;
  const auto t_unpack = std::chrono::steady_clock::now();
  const int64_t unpacked = unpack_kernels(dir + "/kernels.pack", kernels.path, &why);
  const double unpack_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_unpack).count();
  if (!why.empty())
    std::fprintf(stderr, "kit_runner: %s/kernels.pack: %s (%lld entries read)\n", dir.c_str(), why.c_str(),
                 static_cast<long long>(unpacked));
  KernelStore store(kernels.path);
  const std::string rt_path = store.find(KernelStore::full_key(kit.halide_version, kit.target_string, "runtime"), &why);
  AotRuntime* rt = target && !rt_path.empty() ? AotRuntime::load(rt_path, *target, &why) : nullptr;
  if (!rt) {
    std::fprintf(stderr, "kit_runner: no usable Halide runtime for target %s: %s\n", kit.target.c_str(), why.c_str());
    return 2;
  }
  std::map<std::string, AotKernel> loaded;
  KernelProvider provider = [&](const detail::RegionSpec& spec, std::string* err) -> const AotKernel* {
    if (auto it = loaded.find(spec.key); it != loaded.end()) return &it->second;
    std::string w;
    const std::string p = store.find(KernelStore::full_key(kit.halide_version, kit.target_string, spec.key), &w);
    AotKernel k;
    if (p.empty()) {
      *err = "missing kernel (" + w + ")";
      return nullptr;
    }
    if (!load_kernel(p, &k, err)) return nullptr;
    return &loaded.emplace(spec.key, k).first->second;
  };
  detail::ExecutorFactory make = [&](Target, bool alias_mutant, int64_t max_numel, LowerStats& stats) {
    return detail::make_aot_executor(*rt, provider, alias_mutant, max_numel, stats);
  };
  KitSummary summary(kit.target);
  for (const auto& c : kit.cases) {
    if (c.program % shards != shard) continue;
    auto original = ir::parse(c.original);
    auto scheduled = ir::parse(c.scheduled);
    std::optional<ir::Analysis> original_an;
    if (original)
      if (auto a = ir::analyze(*original)) original_an = std::move(*a);
    const auto mutant = run::parse_mutant(c.mutant);
    for (bool checked : {false, true}) {
      if (checked && !checked_too) continue;
      KitRun run{c, checked};
      if (!original || !scheduled || !original_an || !mutant) {
        run.status = "error";
        run.detail = !mutant ? "unknown mutant '" + c.mutant + "'" : "program does not parse";
        summary.add(run);
        continue;
      }
      schedulers::Schedule s;
      s.strategy = c.strategy;
      s.fusion = c.fusion;
      s.mutant = *mutant;
      s.program = *scheduled;
      s.regions = c.regions;
      s.origin = c.origin;
      LowerOptions o;
      o.target = *target;
      o.checked = checked;
      o.mutant = *mutant;
      // Checked mode compares through the provenance with the source
      // program, as campaigns do: a strategy's bug is named at its first
      // diverging source statement.
      Expected expected;
      if (checked) expected.by_stmt = schedulers::checked_expectations(s, *original, *original_an);
      const auto t0 = std::chrono::steady_clock::now();
      LowerResult r = detail::run_with(s, o, checked ? &expected : nullptr, make);
      run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      run.regions = r.stats.regions;
      run.pipelines = r.stats.pipelines_run;
      run.run_ms = r.stats.run_ms;
      // The first run of a kernel loads it (the driver JITs its PTX, pocl
      // builds it): an unchecked run that worked runs again for its time.
      if (!checked && r.ok) {
        const LowerResult w = detail::run_with(s, o, nullptr, make);
        if (w.ok) run.warm_run_ms = w.stats.run_ms;
      }
      if (r.first_failure) {
        run.failure = r.first_failure;
        const int src = r.first_failure->source_stmt;
        if (src >= 0 && src < static_cast<int>(original->stmts.size()))
          run.source_text = text_line(c.original, original->stmts[src].line);
      }
      if (!r.ok) {
        run.status = r.error.find("missing kernel") != std::string::npos ? "missing-kernel" : "error";
        run.detail = r.error;
      } else if (auto mm = compare_with_kit(c, floats, *original, *original_an, r.obs)) {
        run.status = "disagree";
        run.detail = mm->observable + "[" + std::to_string(mm->index) + "] " + mm->what;
      } else {
        run.status = r.first_failure ? "check-failed" : "agree";
      }
      summary.add(run);
    }
  }
  const nlohmann::json results = summary.json(unpacked, unpack_s);
  std::ofstream(out + "/results.json") << results.dump(1) << "\n";
  for (const auto& line : summary.lines()) std::printf("%s\n", line.c_str());
  return summary.failures() == 0 ? 0 : 1;
}
