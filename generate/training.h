// Format v1.4 training programs from generated ones (`--format 1.4`,
// docs/format.md "Training"): the program's f32 inputs become buffers that
// a leaf scales in place before anything else runs, and the program ends
// with backward(SEED), so that gradients flow through its views and
// in-place writes to the leaves. PyTorch judges what autograd makes of it.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/program.h"

namespace af::fuzz {

// The training form of p, drawn from h: for one or two f32 inputs x that
// share their storage with no other input (the first, and another one half
// of the time) a leaf `w = as_strided(gw, x's
// sizes, contiguous, 0) requires_grad` over a new storage `gw = full(1.0)`
// and a first statement mul_(x, w): the values are p's exactly (x * 1.0),
// and everything computed from x needs w's gradient. Writes stay on
// buffers and intermediates (eager refuses an in-place write to a leaf).
// nullopt when p has no such input, or the scaled program is invalid.
std::optional<ir::Program> training_form(const ir::Program& p, uint64_t h);

}  // namespace af::fuzz
