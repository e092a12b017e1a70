// Every must-agree strategy, with every kind of policy, is linear (or
// n·log n) in the length of a view chain: the transformed program (its
// statements and their arguments) and its DAG grow by at most 2.3x when the
// chain doubles (n·log n allows 2.2x at n = 1,000). Sizes, not times: a
// timing threshold would be noise here; `bench/view_chain_bench` measures
// the times.
//
// Two exceptions, by construction: Thunder's own rule (`update_aliases`)
// threads every alias seen so far through an update at every view op
// (n(n+1)/2 values), and stops at its limit; `update_aliases-ordered`
// threads every alias through an update at every write (aliases x writes),
// which is linear when the writes are few and quadratic when they come
// every k views. `update_aliases-min` updates only stale aliases: linear.
#include <gtest/gtest.h>

#include "ir/analysis.h"
#include "ir/text.h"
#include "ir/view_chain.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {
namespace {

struct Chain {
  ir::Program p;
  ir::Analysis an;
  oracles::Observables expected;
};

Chain chain(int n, int write_every) {
  auto p = ir::parse(ir::view_chain_text(n, write_every));
  EXPECT_TRUE(p.ok());
  Chain c{*p, *ir::analyze(*p), {}};
  c.expected = oracles::run_eager(c.p, c.an);
  return c;
}

struct Policy {
  const char* reorder;
  const char* fusion;
};
const Policy kPolicies[] = {{"program", "none"}, {"random:3", "greedy"}, {"asap", "dataflow"}};

TEST(Scaling, MustAgreeStrategiesGrowAtMostNLogNInViewChainLength) {
  for (int write_every : {0, 50})
    for (const std::string& strategy : run::must_agree_strategy_names())
      for (const Policy& pol : kPolicies) {
        if (strategy == "update_aliases-ordered" && write_every > 0) continue;  // aliases x writes, above
        size_t last = 0;
        for (int n : {1000, 2000, 4000, 8000}) {
          const Chain c = chain(n, write_every);
          const run::SpelledSpec o{strategy, "", pol.reorder, pol.fusion};
          auto s = make_schedule(c.p, c.an, o);
          ASSERT_TRUE(s.ok()) << strategy << " n=" << n << ": " << s.error().message;
          size_t size = s->program.stmts.size() + s->edges.size();
          for (const auto& st : s->program.stmts)
            for (const auto& a : st.args) size += a.kind == ir::Arg::TensorList ? a.list.size() : 1;
          if (last)
            EXPECT_LE(size, last * 23 / 10) << strategy << " " << pol.reorder << "/" << pol.fusion << " n=" << n
                                            << " write_every=" << write_every << ": " << last << " -> " << size;
          last = size;
          const RunOutcome r = run_and_compare(c.p, c.an, c.expected, o);
          EXPECT_TRUE(r.agree) << strategy << " n=" << n << ": " << r.error;
        }
      }
}

int64_t update_values(const Schedule& s) {
  int64_t n = 0;
  for (const auto& st : s.program.stmts)
    if (st.op == ir::OpKind::UpdateAliases) n += static_cast<int64_t>(st.outs.size());
  return n;
}

TEST(Scaling, OrderedFixThreadsEveryAliasThroughEveryWrite) {
  for (int n : {1000, 2000}) {
    const Chain c = chain(n, 50);
    auto s = make_schedule(c.p, c.an, run::SpelledSpec{"update_aliases-ordered", "", "program", "none"});
    ASSERT_TRUE(s.ok());
    // Write w (every 50 views) updates the ~50w aliases seen so far.
    const int64_t writes = n / 50;
    EXPECT_GE(update_values(*s), 50 * writes * (writes + 1) / 2);
    EXPECT_TRUE(
        run_and_compare(c.p, c.an, c.expected, run::SpelledSpec{"update_aliases-ordered", "", "program", "none"})
            .agree);
  }
}

TEST(Scaling, ThundersRuleIsQuadraticAndStopsAtItsLimit) {
  // Thunder emits update_aliases over every alias seen so far at every view
  // op of the group: n(n+1)/2 values for a chain of n.
  const Chain small = chain(200, 0);
  auto s = make_schedule(small.p, small.an, run::SpelledSpec{"update_aliases", "", "program", "none"});
  ASSERT_TRUE(s.ok());
  EXPECT_GE(update_values(*s), 200 * 200 / 2);
  const Chain big = chain(8000, 0);
  const RunOutcome r =
      run_and_compare(big.p, big.an, big.expected, run::SpelledSpec{"update_aliases", "", "program", "none"});
  EXPECT_FALSE(r.agree);
  EXPECT_NE(r.error.find("would define more than"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace af::schedulers
