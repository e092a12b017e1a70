// Order dependence of the indexed writes (format v1.2), decided per element
// from the index values: docs/format.md "Order dependence".
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/error.h"
#include "ir/ops.h"

namespace af::ir {

// One position of an indexed write: the storage element it writes, the
// source element it reads (in the source's storage; -1: none), the index entry it belongs to and
// the logical element of x it writes (row-major).
struct IndexedAccess {
  int64_t write, read, entry, element;
};

// Every position of an indexed write whose shapes infer() accepted and
// whose index values are in range (check_index_values' bounds).
std::vector<IndexedAccess> indexed_accesses(OpKind op, const std::vector<CheckedArg>& args,
                                            const std::vector<int64_t>& index);

// `undefined` when the result depends on the order of the positions: two
// positions write one element (accumulating ops: unless both write one
// logical element, a duplicate index),
// or a position reads a source element another position writes.
std::optional<Error> indexed_order_dependence(OpKind op, const std::vector<CheckedArg>& args,
                                              const std::vector<int64_t>& index);

}  // namespace af::ir
