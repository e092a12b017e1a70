// The minimizer's loop: its passes (minimize/minimize_passes.h) run to a fixed
// point over a search that keeps the smallest interesting program.
#include "minimize/minimize.h"

#include "minimize/minimize_passes.h"
#include "generate/noise_model.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/line_process.h"

namespace af::fuzz {

using ir::Program;
using ir::Stmt;

using oracles::now_s;

namespace minimizing {

bool acceptable(const Program& q, const MinimizeOptions& o) {
  auto an = ir::analyze(q);
  // Format v1.5: an i32 return must read exact bits (a candidate that views
  // a rounded value would diverge by the rounding alone).
  if (!o.error_kind) return an.ok() && bit_exact_returns(q, *an);
  return !an && an.error().kind == *o.error_kind;
}

Search::Search(const Interesting& pred, const MinimizeOptions& o, MinimizeStats& st, const Program& start)
    : pred_(pred), o_(o), st_(st), start_(now_s()), cur_(start) {
  seen_.insert(ir::print(start));
}

bool Search::out_of_budget() {
  if (st_.budget_hit || st_.stopped) return true;
  if (o_.stop && o_.stop()) {
    st_.stopped = true;
    return true;
  }
  if ((o_.time_s > 0 && now_s() - start_ > o_.time_s) || (o_.max_tests >= 0 && st_.tests >= o_.max_tests))
    st_.budget_hit = true;
  return st_.budget_hit;
}

bool Search::try_candidate(const Program& c) {
  if (out_of_budget()) return false;
  std::string text = ir::print(c);
  if (!seen_.insert(text).second) {
    ++st_.duplicates;
    return false;
  }
  auto q = ir::parse(text);
  if (!q || !acceptable(*q, o_)) {
    ++st_.invalid;
    return false;
  }
  ++st_.tests;
  if (!pred_(*q)) return false;
  cur_ = std::move(*q);
  ++st_.accepted;
  return true;
}

}  // namespace minimizing

namespace {

// Rounds of every pass until one changes nothing; then pairs of
// statements (two deletions that only work together) on small programs.
Program run_passes(const Program& p, const Interesting& pred, const MinimizeOptions& o, MinimizeStats& st) {
  using namespace minimizing;
  Search search(pred, o, st, p);
  for (;;) {
    const int64_t before = st.accepted;
    ++st.rounds;
    delete_stmts(search);
    delete_decls(search);
    merge_inputs(search);
    bypass(search);
    hoist_views(search);
    fresh_to_inputs(search);
    reads_to_returns(search);
    simpler_ops(search);
    plain_foreach(search);
    order_writes(search);
    writes_to_reads(search);
    canonical_order(search);
    shrink(search);
    constants(search);
    inits(search);
    if (search.out_of_budget()) break;
    if (st.accepted == before && !delete_pairs(search) && !delete_with_inits(search) && !simpler_ops_with_inits(search))
      break;
  }
  if (o.rename && !search.out_of_budget()) {
    Program c = canonical_names(search.cur());
    // Renaming cannot change a verdict, but the predicate is the judge.
    if (c != search.cur()) search.try_candidate(c);
  } else if (o.rename && st.stopped) {
    // Stopped at what the caller looked for: names cannot change that.
    return canonical_names(search.cur());
  }
  return search.cur();
}

}  // namespace

Program canonical_names(const Program& p) {
  Program q = p;
  for (size_t s = 0; s < q.storages.size(); ++s) q.storages[s].name = "s" + std::to_string(s);
  for (size_t k = 0; k < q.inputs.size(); ++k) {
    q.inputs[k].name = "x" + std::to_string(k);
    q.value_names[k] = q.inputs[k].name;
  }
  int t = 0;
  for (const Stmt& st : q.stmts)
    for (int o : st.outs) q.value_names[o] = "t" + std::to_string(t++);
  return q;
}

Program minimize(const Program& p, const Interesting& interesting, const MinimizeOptions& o, MinimizeStats* stats) {
  MinimizeStats local;
  MinimizeStats& st = stats ? *stats : local;
  st = MinimizeStats();
  const double t0 = now_s();
  st.stmts_before = static_cast<int>(p.stmts.size());
  st.bytes_before = static_cast<int64_t>(ir::print(p).size());
  Program out = p;
  if (minimizing::acceptable(p, o)) {
    ++st.tests;
    st.initially_interesting = interesting(p);
    if (st.initially_interesting) out = run_passes(p, interesting, o, st);
  }
  st.stmts_after = static_cast<int>(out.stmts.size());
  st.bytes_after = static_cast<int64_t>(ir::print(out).size());
  st.elapsed_s = now_s() - t0;
  return out;
}

}  // namespace af::fuzz
