// Structural edits of programs, the minimizer's passes' vocabulary
// (minimize/minimize_passes.h). They may make invalid programs: the search
// checks every candidate.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace af::fuzz::minimizing {

// Removes the marked statements, inputs, storages and returns (an empty
// vector marks none), and with them every statement that uses
// (transitively) a value they defined, then renumbers values (inputs first,
// then statement results, in order).
ir::Program remove(const ir::Program& p, const std::vector<bool>& drop_stmt, const std::vector<bool>& drop_input,
                   const std::vector<bool>& drop_storage, const std::vector<bool>& drop_return);

// p with one more input, declared last (its value id is the old input
// count; statement values move up by one).
ir::Program with_input(const ir::Program& p, ir::InputDecl d, const std::string& name);

// Statements [begin, end) removed, with their dependents.
ir::Program drop_stmts(const ir::Program& p, size_t begin, size_t end);

// Later uses of value `from` (after statement `after`) read `to` instead.
void substitute(ir::Program& p, int from, int to, size_t after);

// Whether a statement after `after`, or a return, reads value v.
bool used_after(const ir::Program& p, int v, size_t after);

// How simple a number is: 0 < 1 < 2 < -1 < anything else.
int number_rank(double v);
// The simple numbers, simplest first.
inline constexpr double kSimple[] = {0, 1, 2, -1};

// How simple a storage's initial values are: full(0|1|2|-1) < iota(0, 1) <
// other iotas < lists < random.
int init_rank(const ir::StorageDecl& s);
// Above every init_rank: simpler_inits(d, kAnyInit) gives every simple init.
inline constexpr int kAnyInit = 10;

// The simple initial values (full of 0, 1, 2, -1, then iota(0, 1)) of
// rank below `below`, simplest first.
std::vector<ir::StorageDecl> simpler_inits(const ir::StorageDecl& from, int below);

// Storage elements the inputs need (as_strided inputs only; a whole input
// follows its storage).
int64_t needed_numel(const ir::Program& p, int s);
void set_numel(ir::StorageDecl& s, int64_t n);

// Smaller versions of a size list (one entry at a time: 1, half, one less).
std::vector<std::vector<int64_t>> smaller_sizes(const std::vector<int64_t>& v);

}  // namespace af::fuzz::minimizing
