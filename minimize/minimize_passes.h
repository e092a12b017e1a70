// The minimizer's passes (minimize/minimize.h has the loop that runs them to a
// fixed point) and the search state they share. A pass proposes candidate
// programs through Search::try_candidate, which keeps one when it is new,
// acceptable (valid, or rejected with the finding's kind) and still
// interesting; search.cur() is always the smallest program kept so far.
// Each pass is tested alone by its before/after text
// (minimize/minimize_passes_test.cc).
#pragma once
#include <string>
#include <unordered_set>

#include "minimize/minimize.h"

namespace af::fuzz::minimizing {

// The IR names every pass reads (this namespace is the minimizer's own).
using ir::Arg;
using ir::InitKind;
using ir::OpClass;
using ir::OpKind;
using ir::Program;
using ir::Stmt;

class Search {
 public:
  Search(const Interesting& pred, const MinimizeOptions& o, MinimizeStats& st, const ir::Program& start);
  const ir::Program& cur() const { return cur_; }
  // Keeps c when it is new, acceptable and interesting.
  bool try_candidate(const ir::Program& c);
  bool out_of_budget();
  MinimizeStats& stats() { return st_; }

 private:
  const Interesting& pred_;
  const MinimizeOptions& o_;
  MinimizeStats& st_;
  double start_;
  ir::Program cur_;
  std::unordered_set<std::string> seen_;
};

// A candidate the predicate may see: valid, or for an accepts-invalid
// finding rejected with the same kind.
bool acceptable(const ir::Program& q, const MinimizeOptions& o);

// minimize_delete.cc
void delete_stmts(Search& search);       // ddmin chunks of statements, from the end
bool delete_pairs(Search& search);       // two statements that only go together (small programs)
bool delete_with_inits(Search& search);  // a statement and a simpler initial value together
void delete_decls(Search& search);       // backward, requires_grad, returns, inputs, storages
// minimize_inputs.cc
void merge_inputs(Search& search);     // two inputs of one storage become one
void hoist_views(Search& search);      // a view of a declared storage becomes inputs
void fresh_to_inputs(Search& search);  // a full() becomes an input over its own storage
// minimize_reads.cc
void bypass(Search& search);            // later uses read a statement's argument
void reads_to_returns(Search& search);  // what a statement read is returned instead
void writes_to_reads(Search& search);   // add_(x, c) -> r = add(x, 1.0), returned
// minimize_ops.cc
void simpler_ops(Search& search);             // each op walks down its class's representatives
void order_writes(Search& search);            // mul_ then add_ -> add_ then mul_
bool simpler_ops_with_inits(Search& search);  // an op's simpler form with a simpler storage init (small programs)
void plain_foreach(Search& search);           // a foreach call -> its elements as statements of their own
// minimize_order.cc
void canonical_order(Search& search);  // same-size reorders toward the least skeleton
// minimize_values.cc
void shrink(Search& search);     // storage numel, input geometry, size lists, integers
void constants(Search& search);  // floats toward 0, 1, 2, -1
void inits(Search& search);      // storages' initial values toward full/iota

}  // namespace af::fuzz::minimizing
