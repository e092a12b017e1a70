// A device kit (issue #13): a folder that runs generated programs' schedules
// on a machine with a GPU driver and no compiler.
//   DIR/run                   the entry point (sh): runs bin/kit_runner DIR
//   DIR/bin/kit_runner        links no Halide and no LLVM (lowering:core)
//   DIR/kernels.pack          Halide's runtime and every region's AOT kernel:
//                             KernelStore entries in one xz stream
//                             (lowering/kit_pack.h), verified on load
//   DIR/kit.json.xz           target, target string, Halide version, the cases
//   DIR/expected.bin.xz       the oracle's observables, raw little-endian f32
// (both xz-compressed: `xz -dc DIR/kit.json.xz` shows the cases; a kit of
// an older build with plain kit.json/expected.bin still reads)
// Each case: one program under one strategy (its transformed program and
// regions), the original program (observable names), where its expected
// observables lie in expected.bin. A mutant's case (`aliasfuzz kit
// --inject M`) carries the mutant, which the lowering honors too, and
// every case its provenance (Schedule::origin), so checked mode names the
// first diverging source statement. The runner runs every case unchecked
// and checked, compares with the oracle, times it, and writes results.json
// and one summary line; a case whose kernel is missing is reported as such.
// Halide-free (kit_runner links it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "oracles/eager.h"

namespace af::lowering {

struct KitCase {
  int program = 0;  // index in the kit's generated programs
  std::string strategy, fusion;
  std::string mutant;      // "" or the injected mutant (its cases should be detected)
  bool must_agree = true;  // a must-agree strategy without a mutant (others may disagree by design)
  std::string original;    // the generated program (text)
  std::string scheduled;   // schedule.program (text)
  std::vector<std::vector<int>> regions;
  std::vector<int> origin;      // Schedule::origin: by scheduled statement, its source statement or -1
  int64_t expected_offset = 0;  // floats into expected.bin
  std::vector<std::vector<int64_t>> return_shapes;
  std::vector<int64_t> storage_sizes;
};

struct Kit {
  std::string target, target_string, halide_version;
  uint64_t seed = 0;
  std::vector<KitCase> cases;
  std::vector<std::string> build_errors;  // regions Halide could not compile (their cases report a missing kernel)
};

// Appends o's values to `floats` and records their layout in c.
void kit_add_expected(KitCase& c, const oracles::Observables& o, std::vector<float>& floats);
// The returns and storages back; not the inputs' final geometry (static:
// the runner takes oracles::input_geometries of the original program).
oracles::Observables kit_expected(const KitCase& c, const std::vector<float>& floats);

// kit.json.xz + expected.bin.xz; "" or an error.
std::string write_kit(const std::string& dir, const Kit& kit, const std::vector<float>& floats);
std::string read_kit(const std::string& dir, Kit* kit, std::vector<float>* floats);

}  // namespace af::lowering
