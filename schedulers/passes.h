// The passes of the schedulers package, one file each (LLVM style):
//
//   eager.cc            strategy `eager`: program order, one region per op
//   none.cc             strategy `none`: dataflow edges only (known unsafe)
//   functionalize.cc    strategy `functionalize` (+ fn-per-input-base, fn-no-regenerate)
//   update_aliases.cc   strategies `update_aliases`, `-ordered`, `-min`
//                       (+ ua-no-maybe-views, ua-no-multi-output, ua-writes-only)
//   dce.cc              mutant pass dce-drops-outputless
//   dag.cc              the dependence DAG (dataflow + the strategy's edges)
//   reorder.cc          reorder policies program, random:SEED, fusion, asap, alap
//   thunder_dataflow.cc reorder policy thunder-dataflow (Thunder's dataflow fusion order)
//   fusion.cc           fusion policies none, greedy, consecutive, dataflow
//   input_metadata.cc   the inputs' metadata replay (format v1.3), after the regions
//   pipeline.cc         make_schedule: strategy -> mutants -> DAG -> order -> regions -> replay -> counters
//   interpreter.cc      the interpreter tier (schedules run by the reference kernels)
//   dot.cc              Graphviz text of a schedule
//
// Everything a caller needs is in schedulers/schedulers.h; this header is
// the passes' shared vocabulary.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/program.h"
#include "run/vocabulary.h"
#include "schedulers/schedule.h"
#include "run/ua_fixes.h"

namespace af::schedulers {

using ir::for_each_tensor_arg;  // ir/program.h

// What a strategy pass returns.
struct Transformed {
  ir::Program program;
  std::vector<Edge> added_edges;  // the strategy's ordering edges (indices into program.stmts)
  std::vector<bool> added_node;   // by statement
  std::vector<int> origin;        // by statement: the source statement it stands for, or -1 (Schedule::origin)
  // functionalize: write-back statements and the storage (by name index
  // into program.storages) each overwrites; the DAG orders every read of
  // that storage before it.
  std::vector<std::pair<int, int>> writebacks;
  bool chain = false;  // eager: a total order and one op per region
  // The analysis of `program` when the pass already knows it (saves a
  // second ir::analyze); null to have the pipeline analyze the program.
  std::shared_ptr<const ir::Analysis> analysis;
  std::string error;  // the pass could not build a valid program
};

// Builds a program statement by statement, keeping names unique and the
// geometry of every value (the same inference ir::analyze runs).
class Builder {
 public:
  // Copies storages and inputs of `src` (value ids of inputs are kept) and
  // reserves every name of `src`. `src_an`, when given, must be exactly
  // ir::analyze's analysis of `src` (tensor identities included): then
  // emit_source reuses its results instead of inferring them again.
  explicit Builder(const ir::Program& src, const ir::Analysis* src_an = nullptr);
  // A new value standing for source value v (an id in `src`): named as v
  // when that name is not yet defined here, else suffixed like value(name, false).
  int value(int v);
  // A new value: with keep and `name` a source value's name, value(int)
  // of that value; else name_1, name_2, ... (never a source or storage
  // name; a name that is not a source value's is always suffixed).
  int value(const std::string& name, bool keep = true);
  // value(name of source value v, false), without hashing the name again.
  int suffixed(int v);
  // Appends a statement; returns its index. Infers the outputs' metas.
  int emit(ir::OpKind op, const std::vector<int>& outs, std::vector<ir::Arg> args, int line, bool added);
  // Source statement k again, over `args` (its arguments renamed to values
  // defined here, the same kinds and numbers): as emit(op of k, outs, args,
  // line of k, added), without inferring when the source analysis already
  // holds the result (see reuse_source_metas).
  int emit_source(int k, const std::vector<int>& outs, std::vector<ir::Arg> args, bool added);
  // One-output convenience: a fresh value named after `base` (suffixed), returned.
  int emit1(ir::OpKind op, const std::string& base, std::vector<ir::Arg> args, int line, bool added);
  const ir::TensorMeta& meta(int v) const { return metas_[v]; }
  // The error ir::infer gives for a statement over values defined here,
  // without emitting it.
  std::optional<ir::Error> try_infer(ir::OpKind op, const std::vector<ir::Arg>& args) const;
  ir::Program& program() { return p_; }
  std::vector<bool>& added() { return added_; }
  // Provenance: statements emitted with added == false from now on stand
  // for source statement k (Schedule::origin); added ones get -1.
  void set_source(int k) { source_ = k; }
  std::vector<int>& origin() { return origin_; }
  bool failed() const { return !error_.empty(); }
  // Accept in-place ops whose operand partly overlaps the written tensor
  // (Thunder has no such check; update_aliases' pass 1 can create them and
  // its pass 3 clones the operands).
  void tolerate_overlap() { tolerate_overlap_ = true; }
  // The analysis of the program built (the same ir::analyze would give,
  // limits aside); valid when !failed().
  ir::Analysis analysis(int num_declared) const;
  const std::string& error() const { return error_; }

 private:
  // The outputs' metas of source statement `s` re-emitted over `args`, from
  // the source analysis, when nothing the shape rule reads differs:
  // ir::infer sees a tensor's geometry and storage size, and whether two
  // tensors share a storage or are one object; never ids themselves. False
  // (nothing set) when anything differs.
  bool reuse_source_metas(const ir::Stmt& s, const std::vector<int>& outs, const std::vector<ir::Arg>& args);
  // Gives a result a new storage of its own (an out-of-place op's), of
  // memory_words(*m) words (its storage_numel and wide already set).
  void make_fresh(ir::TensorMeta* m);
  int append(ir::Stmt st, bool added);

  const ir::Program& src_;
  const ir::Analysis* src_an_ = nullptr;
  ir::Program p_;
  std::vector<bool> added_;
  std::vector<int> origin_;
  int source_ = -1;
  // Names are made without a table of every name: a suffixed name
  // base_K splits at its last '_' into one base and one counter value, so
  // suffixed names never collide with each other; they can only collide
  // with a source or storage name of that form (`suffixed_`, usually
  // empty). Source names are taken by source value id (`defined_`).
  std::vector<bool> defined_;                        // by source value id: its name is defined here
  std::unordered_set<std::string> suffixed_;         // source and storage names of the form base_digits
  std::unordered_map<std::string, int> counter_;     // base -> last suffix used
  std::unordered_map<std::string, int> source_ids_;  // name -> source value id (value(name, true) only)
  std::vector<int*> source_counter_;                 // by source value id: its name's counter_ entry, once looked up
  int new_suffixed(const std::string& base, int* counter);
  std::vector<ir::TensorMeta> metas_;
  std::vector<ir::CheckedArg> checked_;  // emit's arguments, reused
  ir::OutMetas outs_;                    // emit's inferred results, reused
  std::vector<int64_t> storage_numel_;
  std::vector<int> fresh_storage_;
  int next_impl_ = 0;
  bool tolerate_overlap_ = false;
  std::string error_;
};

// Provenance of a program left as it is: statement k stands for k.
std::vector<int> identity_origin(const ir::Program& p);
// A program left as it is, with its analysis: no added statements or edges.
Transformed unchanged(const ir::Program& p, const ir::Analysis& an);

// Strategy passes.
// Format v1.3: p with every metadata op (transpose_, as_strided_, ...)
// replaced by the view op it mirrors. The strategies schedule that program:
// the values are the same (a metadata op moves no data, and its source
// names are retired, so no statement reads x's old geometry after it), and
// reordering a read of x past a plain view is legal where it is not past
// transpose_. `an` stays valid for it (only the retired names' tensor
// identity differs).
ir::Program views_for_metadata_ops(const ir::Program& p);
// Format v1.4's custom ops as the aten ops of their bodies (custom_scale_(x,
// s) -> mul_(x, s), custom_copy_ -> copy_): what every internal strategy
// schedules. A custom op binds nothing, so the bindings stay valid.
ir::Program aten_for_custom_ops(const ir::Program& p);
// The epilogue every strategy's schedule of a program with metadata ops
// ends with (input_metadata.cc): `x_1 = as_strided_(x, sizes, strides,
// offset)` for each input of `src` whose final geometry is not its
// declared one, as PyTorch's functionalization replays it on the caller's
// tensor; appended to the program and to the last region, analysis
// updated. Whether it added any.
bool replay_input_metadata(const ir::Program& src, const ir::Analysis& src_an, Schedule* s);
Transformed eager_strategy(const ir::Program& p, const ir::Analysis& an);
Transformed none_strategy(const ir::Program& p, const ir::Analysis& an);
// `an_exact`: `an` is ir::analyze's analysis of `p` itself (false for the
// views_for_metadata_ops program, whose retired names' identity differs).
Transformed functionalize_strategy(const ir::Program& p, const ir::Analysis& an, run::Mutant mutant, bool an_exact);
Transformed update_aliases_strategy(const ir::Program& p, const ir::Analysis& an, run::UaFixes fixes,
                                    run::Mutant mutant);

// Mutant pass dce-drops-outputless: removes setitem_ and unbound copy_.
void dce_drops_outputless(Transformed& t);

// The DAG: dataflow edges (a use after the statement defining the value).
std::vector<Edge> dataflow_edges(const ir::Program& p);
// Every read of a storage before the write-backs that overwrite it.
std::vector<Edge> writeback_edges(const ir::Program& p, const ir::Analysis& an,
                                  const std::vector<std::pair<int, int>>& writebacks);
std::vector<std::vector<int>> predecessors(int n, const std::vector<Edge>& edges);

// Fusibility (the same under every fusion policy): update_aliases,
// reductions, softmax, matmul and cat are fusion breaks; everything else
// (views, elementwise, in-place, scatters) fuses. `eager` fuses nothing.
using Fusible = std::function<bool(int stmt)>;
Fusible fusible_for(const ir::Program& p, bool chain);

// Reorder policies: a topological order of the DAG given by `preds`.
// `program` is the scheduled program (thunder-dataflow weighs its ops).
std::vector<int> reorder(const std::vector<std::vector<int>>& preds, const run::Reorder& policy, const Fusible& fusible,
                         const ir::Program& program);
// Thunder's dataflow ordering (thunder_dataflow.cc).
std::vector<int> thunder_dataflow_order(const std::vector<std::vector<int>>& preds, const ir::Program& program);
// Fusion policies: regions over `order` (dataflow may reorder within the DAG).
std::vector<std::vector<int>> fuse(const std::vector<int>& order, const std::vector<std::vector<int>>& preds,
                                   run::Fusion policy, const Fusible& fusible);

}  // namespace af::schedulers
