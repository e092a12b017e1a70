// Programs that PyTorch eager rejects, for the accepts-invalid class of
// findings (issue #17): a compiler that runs a program eager refuses (a
// partial overlap, a shape that does not broadcast, a view of strides it
// cannot view) is reported in a bucket class of its own.
//
// An invalid program is a generated program with one statement changed
// (a tensor argument replaced by an earlier value, an integer argument
// moved, an index value moved out of range or onto another), cut after
// that statement: eager raises there, so later statements would only give
// a compiler reasons of their own to refuse it. Its returns are the
// surviving ones plus what the failing statement makes or writes, so that
// a compiler that accepts it has to produce a value for it.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/error.h"
#include "ir/program.h"

namespace af::fuzz {

// The error kinds eager PyTorch raises on (the oracle agrees with it on
// them: oracles/torch_agreement_test): overlap, shape, view, arg. The
// others are the format's own (syntax, name, limit, dtype, resize),
// results PyTorch leaves unspecified (undefined) or version-dependent.
bool eager_raises(ir::ErrorKind k);

// The index of the statement on the error's line (the failing statement),
// or p.stmts.size() when an input, a storage or the return failed.
size_t failing_stmt(const ir::Program& p, const ir::Error& error);

// Statement `stmt` of p changed as hash h picks (unchecked: the result may
// be valid or invalid of any kind). Printed and parsed again, so that
// every statement has its line.
ir::Program variant(const ir::Program& p, size_t stmt, uint64_t h);

// A program eager rejects, made from the valid program p with hash h (up
// to 64 variants tried): cut after its failing statement, its error of an
// eager_raises kind. nullopt when no variant fails that way.
std::optional<ir::Program> invalid_from(const ir::Program& p, uint64_t h);

}  // namespace af::fuzz
