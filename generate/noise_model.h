// The generator's rounding-noise model (the value-range rule of each op).
//
// The oracle computes reductions in double and uses the C library's exp;
// compiled code (Halide on a CPU or GPU) may accumulate in float, fuse a
// multiply into an add, or use its own exp. Each element of each storage
// carries a bound on how far an implementation of the same program may
// drift from the oracle (first-order error analysis, worst case over
// roundings of eps relative each, a few ulp for transcendental functions).
// A candidate whose result could drift past a quarter of the comparison
// tolerance (1e-5 + 1e-5 * |value|) is dropped: no catastrophic
// cancellation, no division amplifying noise, no ill-conditioned sums.
#pragma once
#include <vector>

#include "ir/analysis.h"
#include "oracles/eager.h"

namespace af::fuzz {

// An operand's values and noise bounds, in logical order.
struct NoisyOperand {
  std::vector<float> values, noise;
};

// Taken before a statement runs: where it writes values and the operands
// its noise rule reads.
struct NoiseCapture {
  int storage = -1;      // where the statement writes values (-1: nowhere, a view)
  ir::Geometry written;  // the written elements
  std::vector<NoisyOperand> operands;
};

// `values` and `noise` are by storage; fresh_storage is the storage an
// out-of-place result gets (-1 for a view).
NoiseCapture capture_operands(const ir::Stmt& st, const ir::Analysis& an, const oracles::Memory& values,
                              const oracles::Memory& noise, int fresh_storage);

// After the statement ran (values updated): the noise bound of every
// written element in *out (infinity where none holds), and whether every
// one is within a quarter of the comparison tolerance.
bool written_noise(const ir::Stmt& st, const ir::Analysis& an, const oracles::Memory& values, const NoiseCapture& pre,
                   std::vector<float>* out);

// Whether every element that geometry g reads of a storage has noise
// bound 0 (`storage_noise`: that storage's bounds): bits every
// implementation computes alike.
bool noise_free(oracles::ConstFloats storage_noise, const ir::Geometry& g);

// Format v1.5: whether every i32 return of a program reads bits that every
// implementation computes alike (noise bound 0 on each element it views:
// no rounding, no zero whose sign a max chose). An i32 return that is not
// is no comparison a compiler can fail (the generator never makes one; the
// minimizer and the agreement tests meet them). True without i32 returns.
bool bit_exact_returns(const ir::Program& p, const ir::Analysis& an);

}  // namespace af::fuzz
