// The eager oracle: runs a program in source order with PyTorch's exact
// semantics over real shared storages, and the observables it produces.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/program.h"
#include "oracles/kernels.h"
#include "oracles/memory.h"

namespace af::oracles {

// Every storage of the analysis in one arena (oracles/memory.h): declared
// storages at their initial values, fresh ones zeroed; a run allocates
// nothing more per statement.
Memory initial_memory(const ir::Program& p, const ir::Analysis& an);
// The same in *mem, reusing its arena (the executors keep one per thread:
// no allocation per run).
void initial_memory(const ir::Program& p, const ir::Analysis& an, Memory* mem);

// Executes one statement against memory. `an` gives every value's storage
// and geometry. The statement must have passed analysis.
void execute(const ir::Stmt& st, const ir::Analysis& an, Memory& mem);

struct Observables {
  std::vector<Dense> returns;                // in return order, logical order
  std::vector<std::vector<float>> storages;  // final contents of declared storages
  // Format v1.3: the final geometry of each declared input's tensor object
  // (declaration order), what the caller holds after the call: metadata ops
  // (transpose_, as_strided_, ...) change it (docs/format.md "Input
  // geometry").
  std::vector<ir::Geometry> inputs;
  // Format v1.4 training: each input's .grad after the program's backward
  // (nullopt: none), as PyTorch computed it; empty where no autograd ran
  // (the oracle and our own executors compute forward values only).
  std::vector<std::optional<std::vector<float>>> grads;
};

// The final geometry of every declared input's tensor object: the geometry
// of the last name bound to that object (`y = transpose_(x, 0, 1)`,
// `r = relu_(y)`: x ends with r's, which is y's). Static (the analysis
// decides it); every executor's observables take it from here, the
// scheduled program's analysis for a schedule (whose epilogue replays it).
std::vector<ir::Geometry> input_geometries(const ir::Program& p, const ir::Analysis& an);

// Returns, declared storages and input_geometries: what a run's memory
// shows the caller (every executor's run ends here).
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

// Value agreement of docs/design.md: |a - b| <= 1e-5 + 1e-5 * |b|, NaN equals
// NaN, an infinity equals only the same infinity.
bool values_agree(float actual, float expected);

struct Mismatch {
  std::string observable;  // "return 0", a storage name, or "input x" (its final geometry)
  int64_t index = 0;       // flat logical index
  float expected = 0, actual = 0;
  std::string what;  // shape or count mismatch, when not a value
  // Format v1.5: an i32 or i64 return's element as the integer it is (index
  // is then the element's, not the memory word's).
  bool integer = false;
  int64_t expected_int = 0, actual_int = 0;
  // An f64 return's element (format v1.5's tenth slice), as the double it is.
  bool f64 = false;
  double expected_f64 = 0, actual_f64 = 0;
};
// Storages and returns first, then the inputs' geometry: sizes and offset
// exactly, strides except of dims of size <= 1 (PyTorch's contiguity rules
// ignore them, and as_strided_/unsqueeze_ may leave any stride there); then
// a training program's gradients ("grad x"), when both sides have them.
std::optional<Mismatch> compare(const ir::Program& p, const Observables& expected, const Observables& actual);
// Whether a Mismatch's observable is an input's final geometry ("input x",
// or "inputs" when an executor reported none).
inline bool is_input_geometry(const std::string& observable) {
  return observable == "inputs" || observable.rfind("input ", 0) == 0;
}
// An input's geometry as compare's message shows it: "sizes [4, 3] strides [1, 4] offset 0".
std::string geometry_text(const ir::Geometry& g);
// Whether two final input geometries agree (compare's rule).
bool input_geometry_agrees(const ir::Geometry& actual, const ir::Geometry& expected);

}  // namespace af::oracles
