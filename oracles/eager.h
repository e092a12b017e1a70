// The eager oracle: runs a program in source order with PyTorch's exact
// semantics over real shared storages, and the observables it produces.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/program.h"
#include "oracles/kernels.h"

namespace af::oracles {

// Storages by id (declared ones first, then one per fresh result), the
// memory a program runs against.
using Memory = std::vector<std::vector<float>>;

// Declared storages at their initial values; fresh ones allocated empty.
Memory initial_memory(const ir::Program& p, const ir::Analysis& an);

// Executes one statement against memory. `an` gives every value's storage
// and geometry. The statement must have passed analysis.
void execute(const ir::Stmt& st, const ir::Analysis& an, Memory& mem);

struct Observables {
  std::vector<Dense> returns;                // in return order, logical order
  std::vector<std::vector<float>> storages;  // final contents of declared storages
};

Observables observe(const ir::Program& p, const ir::Analysis& an, const Memory& mem);

// Runs the whole program: the observables, or the program's error.
ir::Result<Observables> run_eager(const ir::Program& p, const ir::Limits& limits = ir::Limits());
Observables run_eager(const ir::Program& p, const ir::Analysis& an);

// What each statement produces when the program runs in program order
// (ir::computes_values: the written elements after an in-place write, else
// the result, in logical order); nothing for views and update_aliases.
// Checked mode compares every compiled statement with these.
std::vector<std::optional<Dense>> produced_values(const ir::Program& p, const ir::Analysis& an);
// What statement `st` has just produced in `mem` (the same rule, one
// statement): the interpreter's checked mode reads it after each statement.
Dense produced_value(const ir::Stmt& st, const ir::Analysis& an, const Memory& mem);

// Value agreement of DESIGN.md: |a - b| <= 1e-5 + 1e-5 * |b|, NaN equals
// NaN, an infinity equals only the same infinity.
bool values_agree(float actual, float expected);

struct Mismatch {
  std::string observable;  // "return 0" or a storage name
  int64_t index = 0;       // flat logical index
  float expected = 0, actual = 0;
  std::string what;        // shape or count mismatch, when not a value
};
std::optional<Mismatch> compare(const ir::Program& p, const Observables& expected, const Observables& actual);

}  // namespace af::oracles
