// The recall layout (format v1.4, `--recall`): the same inputs, with the
// same sizes, strides and offsets, in another alias layout, for the second
// call of a compiled function (a compiler that specializes on how its
// inputs alias must notice that they alias differently now: pytorch#139789).
// A pass from program to program: its result prints as .af like any other.
#pragma once
#include <optional>
#include <string>

#include "ir/program.h"

namespace af::ir {

// Apart: when some storage holds two or more inputs, every input gets a
// storage of its own (a copy of its storage's declaration: the same
// values). Together: otherwise, the inputs of each dtype move into one
// storage (the largest of theirs, so every geometry fits), where they now
// alias. nullopt when neither changes anything (one input, or inputs of
// distinct dtypes). The statements and returns are unchanged.
std::optional<Program> recall_layout(const Program& p);

// "apart" or "together": which way recall_layout moved p's inputs ("" when it cannot).
std::string recall_direction(const Program& p);

}  // namespace af::ir
