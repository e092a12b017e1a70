// The random program generator: seeded, emitting only valid programs
// (no error of any kind, every value finite; but see invalid_rate). Program k of seed S is the
// same on every machine: generate(S, k, options).
//
// Programs mix aliased inputs (one storage shared by several inputs:
// identical, overlapping and disjoint windows, different ranks), views of
// views, in-place ops through views, multi-output views with a mutated
// piece, may-alias ops (reshape/flatten/contiguous) followed by mutation,
// setitem_, copy_ into inputs, dead mutations, reads of siblings after
// writes, writes after reads and clone-then-mutate, and end with a return
// of a few tensors (the last result, the last written view, a view made
// before a later write to its storage). See generator.cc for how validity,
// finiteness and determinism are guaranteed.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/program.h"

namespace af::fuzz {

struct GenOptions {
  int size = 12;           // statements (target: one more when matmul adds its transpose,
                           // fewer only when no candidate fits; at most 9000)
  int max_rank = 3;        // of every tensor (1..6)
  int64_t max_numel = 64;  // per storage (and per generated tensor); at most 65536
  // op name -> weight multiplier (default 1; 0 disables); an op of table
  // weight 0 (ir/ops.h, off by default) named here is drawn at this weight
  // (sin=1.1 gives sin tanh_'s default weight, 1.1).
  std::map<std::string, double> op_weights;
  // Extensions (defaults keep programs small).
  int max_storages = 3;  // declared storages: 1..max_storages
  int max_inputs = 5;    // inputs over all storages
  int max_returns = 4;   // returned tensors: 1..max_returns
  // Every further input of a storage takes its first input's sizes and
  // strides (at an offset of its own): for a compiler that crashes on
  // aliased inputs of different sizes (its capability probe, oracles::
  // Capabilities::failing_forms), so that its campaign reaches value
  // comparisons instead of meeting that one known crash again and again.
  bool aliased_inputs_same_sizes = false;
  double value_bound = 1000;  // every value of every storage stays within +-value_bound
  // Drop candidates whose rounding noise (float vs double accumulation, FMA,
  // other exp implementations) could exceed a quarter of the comparison
  // tolerance, so compiled tiers never diverge from the oracle by rounding.
  bool guard_noise = true;
  // Re-validate the finished program with ir::analyze (the generator's
  // incremental checks already guarantee validity; this is a safety net).
  bool verify = true;
  // The fraction of programs made invalid on purpose (`fuzz --invalid-rate`):
  // program k is then one PyTorch eager rejects (generate/invalid.h), made from
  // the valid program k; which k is drawn from (seed, k) alone, so every
  // other program is the one rate 0 gives.
  double invalid_rate = 0;
  // Format v1.4 training: the fraction of programs made training programs
  // (generate/training.h: leaves that require grad, backward(SEED)); which k is
  // drawn from (seed, k) alone. 0 by default; `--format 1.4` sets it.
  double training_rate = 0;
};

// `--format 1.4`'s GenOptions::training_rate.
inline constexpr double kFormatV14TrainingRate = 0.5;
// `--format 1.5`'s weight of each of its constructs: view(x, dtype)
// (generate/recipes_dtype.cc) and flip (generate/recipes.cc).
inline constexpr double kFormatV15Weight = 3.0;
// Format v1.5's foreach calls (generate/recipes_foreach.cc): `--weight
// foreach=W` (op_weights["foreach"], which `--format 1.5` sets to 1) makes
// W times this fraction of the add_, sub_, mul_, div_ and copy_ statements
// drawn a foreach call of one to three elements.
inline constexpr const char* kForeachWeight = "foreach";
inline constexpr double kForeachRate = 0.25;

// The k-th program of a campaign seeded with `seed`.
ir::Program generate(uint64_t seed, uint64_t index, const GenOptions& options = GenOptions());

// What generation cost (for benchmarks and tuning); accumulated.
struct GenStats {
  int64_t programs = 0, statements = 0;
  int64_t rejected_invalid = 0;  // candidates ir::infer refused (or outside rank/numel caps)
  int64_t rejected_bound = 0;    // candidates whose values left [-value_bound, value_bound]
  int64_t rejected_noise = 0;    // candidates whose rounding noise could exceed the tolerance
  int64_t regenerated = 0;       // programs the final ir::analyze refused (expected 0)
};
ir::Program generate(uint64_t seed, uint64_t index, const GenOptions& options, GenStats* stats);

// The k-th program with ir::analyze's verdict on it, computed once: the
// generator's final verification is that analysis, so a caller that checks
// the program (a campaign's worker, the benches) does not analyze it again.
struct Generated {
  ir::Program program;
  ir::Result<ir::Analysis> analysis;
};
Generated generate_analyzed(uint64_t seed, uint64_t index, const GenOptions& options = GenOptions(),
                            GenStats* stats = nullptr);

// The structure-aware decoder of the libFuzzer target: the same generator
// with every choice read from the bytes (one or two bytes per choice; a
// seeded stream derived from the bytes once they run out). Any bytes give
// a valid program.
ir::Program generate_from_bytes(const uint8_t* data, size_t size, const GenOptions& options = GenOptions());

// The ops the generator emits (format v1 vocabulary minus the ops that
// strategies introduce: scatters and update_aliases).
const std::vector<ir::OpKind>& generated_ops();
// `--weight OP=W` (gen, fuzz): options->op_weights[OP] = W; an error text
// (else "") when OP is not a generated op (or "foreach") or W is not a
// number >= 0.
std::string set_op_weight(const std::string& op_eq_w, GenOptions* options);
// `--format V` (gen, fuzz): "1.3", the default, leaves the options as they
// are; "1.4" also draws format v1.4's constructs (docs/format.md: the
// mutable custom ops) unless a weight names them; "1.5" those and format
// v1.5's dtype view. An error text otherwise.
std::string use_format(const std::string& version, GenOptions* options);
// `--format`'s help (gen, fuzz).
inline constexpr char kFormatHelp[] =
    "1.3 (default), 1.4: also draw format v1.4's constructs (mutable custom ops, graph breaks, training), or 1.5: "
    "those, view(x, i32|i64|f64) (the dtype views), flip(x, dims), bmm(a, b), matmul_nd(a, b) (torch.matmul), index_add .. scatter_add out of place and "
    "addcmul_out, addcdiv_out, lerp_out, foreach_add_ .. foreach_copy_ "
    "(docs/format.md)";

// `o` restricted to the programs the Halide lowering takes: all but format
// v1.5's dtype view (the lowering holds f32 only), whose weight it sets to 0.
GenOptions halide_options(GenOptions o = GenOptions());

}  // namespace af::fuzz
