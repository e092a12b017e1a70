// The skeleton of a program: what two findings of one bug share once
// minimized, sizes, constants and names abstracted. The minimizer's
// same-size rewrites move toward the least skeleton (minimize_order.cc);
// the bug signature (triage/signature.h) is taken from programs that met
// there.
#pragma once
#include <string>

#include "ir/program.h"

namespace af::fuzz {

// The skeleton as text, one line per storage, input and statement
// (returns left out; an input over a whole storage reads as as_strided
// too), with inputs in order of first use and names made canonical.
std::string skeleton(const ir::Program& p);

}  // namespace af::fuzz
