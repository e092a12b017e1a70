// Validation by abstract interpretation of geometry: for every value its
// storage and geometry, or the first error of the program (kind and line).
// Everything here is decided without computing a single element value.
#pragma once
#include <vector>

#include "ir/error.h"
#include "ir/program.h"
#include "ir/text.h"

namespace af::ir {

struct Analysis {
  std::vector<TensorMeta> values;      // by value id
  std::vector<int64_t> storage_numel;  // declared storages first, then fresh ones
  int num_declared = 0;
  // For each statement, the storage id its fresh result lives in, or -1.
  std::vector<int> fresh_storage;
  // The program's estimated element operations (statement_work of every
  // statement plus its returns), at most Limits::max_work.
  int64_t work = 0;
};

Result<Analysis> analyze(const Program& p, const Limits& limits = Limits());

// What analyze gives the program made of p's first n statements (a prefix
// of a valid program is valid: each statement is checked against the ones
// before it), cut from p's analysis `an` instead of computed again: the
// values the later statements define are unset, and their fresh storages
// are gone (storage ids grow in statement order).
Analysis prefix_analysis(const Program& p, const Analysis& an, size_t n);
// The element operations one statement costs an executor, from its
// checked arguments and inferred results: 1 for a view or metadata op, m*k*n
// for matmul, else the most elements among its tensors (each is read or
// written once). Limits::max_work bounds their sum over a program.
int64_t statement_work(OpKind op, const std::vector<CheckedArg>& args, const OutMetas& outs);
// Parse then analyze: the whole validity check of a text.
Result<Program> parse_and_validate(const std::string& text, const Limits& limits = Limits());

// The argument list of a statement resolved against known metas (helper
// shared by analyze and by passes that re-infer single statements).
std::vector<CheckedArg> checked_args(const Stmt& st, const std::vector<TensorMeta>& values);
// The same into a vector reused across statements (no allocation once its
// capacity suffices).
void checked_args_into(const Stmt& st, const std::vector<TensorMeta>& values, std::vector<CheckedArg>* out);

// The elements an in-place statement writes: its first argument, or for
// setitem_ the slice it assigns.
Geometry written_geometry(const Stmt& st, const Analysis& an);
// Whether a view-like result `out` of op on `src` is the tensor object src
// itself (PyTorch returns self): in-place results, format v1.3's metadata
// ops, and may-alias ops that return their argument unchanged.
bool returns_self(OpKind op, const Geometry& out, const Geometry& src);
// The meta of result `o` of statement st, the one rule of ir::analyze, the
// generator's incremental analysis and the schedule builder (values: the
// metas so far; storage_words: each storage's size in 32-bit words). A
// fresh result gets storage -1: the caller gives it a new storage of
// memory_words(meta) words. A view shares its source argument's storage
// (update_aliases': its list element's, whose dtype it keeps). impl is
// *next_impl (then advanced) unless the op returns the source itself.
TensorMeta result_meta(const Stmt& st, OutMeta o, Dtype dtype, const std::vector<CheckedArg>& args,
                       const std::vector<TensorMeta>& values, const std::vector<int64_t>& storage_words,
                       int* next_impl);
// Format v1.3: whether value v (0-d, defined before statement `upto`) is a
// tensor object that squeeze_ made 0-d. Python indexing of such a tensor
// differs between versions (PyTorch 1.13 slices it as the 1-element 1-d
// tensor it was, 2.x raises), so setitem_ on it is kind `version`.
bool squeezed_to_0d(const Program& p, const std::vector<TensorMeta>& values, size_t upto, int v);
// Whether a statement computes element values (in-place writes,
// out-of-place results, may-alias ops that copy); views and update_aliases
// only name memory. Its produced values: the written elements after an
// in-place write, else its result.
bool computes_values(const Stmt& st, const Analysis& an);
// Whether a program holds a metadata op (transpose_, as_strided_, ...,
// format v1.3): only those give an input's tensor object another geometry.
bool has_metadata_ops(const Program& p);

}  // namespace af::ir
