// Unit tests of the schedulers package: options, policies, every strategy
// on hand-written programs, one hand-derived expectation per strategy, and
// snapshots of before/after .af text (change detectors).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "schedulers/passes.h"
#include "schedulers/schedulers.h"
#include "run/ua_fixes.h"

namespace af::schedulers {
namespace {

std::string testdata(const std::string& name) { return "schedulers/testdata/" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ir::Program parse(const std::string& text) {
  auto p = ir::parse_and_validate(text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().to_string());
  return *p;
}

struct Case {
  ir::Program p;
  ir::Analysis an;
  oracles::Observables expected;
};

Case load(const std::string& text) {
  Case c{parse(text), {}, {}};
  c.an = *ir::analyze(c.p);
  c.expected = oracles::run_eager(c.p, c.an);
  return c;
}

RunOutcome run(const Case& c, const std::string& strategy, const std::string& reorder = "program",
               const std::string& fusion = "none", const std::string& inject = "") {
  return run_and_compare(c.p, c.an, c.expected, run::SpelledSpec{strategy, inject, reorder, fusion});
}

// The order is a topological order of the schedule's own DAG, and the
// regions cover every statement exactly once.
void expect_legal(const Schedule& s) {
  std::vector<int> order = s.order();
  ASSERT_EQ(order.size(), s.program.stmts.size());
  std::vector<int> pos(order.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(pos[order[i]], -1);
    pos[order[i]] = static_cast<int>(i);
  }
  for (const auto& e : s.edges) EXPECT_LT(pos[e.from], pos[e.to]) << e.from << " -> " << e.to;
  // Dataflow edges are in the DAG.
  for (const auto& e : dataflow_edges(s.program))
    EXPECT_TRUE(
        std::any_of(s.edges.begin(), s.edges.end(), [&](const Edge& f) { return f.from == e.from && f.to == e.to; }));
}

const char* kPrograms[] = {"alias_inputs.af", "tanh_chain.af", "setitem_views.af", "chunk_war.af"};

TEST(Options, UnknownNamesAreUsageErrorsListingTheValidOnes) {
  EXPECT_FALSE(run::parse_config(run::SpelledSpec{"functionalize", "", "random:17", "dataflow"}, nullptr));
  auto e = run::parse_config(run::SpelledSpec{"eager", "no-such-mutant", "program", "none"}, nullptr);
  ASSERT_TRUE(e);
  for (const auto& m : run::mutant_names()) EXPECT_NE(e->find(m), std::string::npos) << *e;
  EXPECT_TRUE(run::parse_config(run::SpelledSpec{"bogus", "", "program", "none"}, nullptr));
  EXPECT_TRUE(run::parse_config(run::SpelledSpec{"eager", "", "random:", "none"}, nullptr));
  EXPECT_TRUE(run::parse_config(run::SpelledSpec{"eager", "", "random:x1", "none"}, nullptr));
  EXPECT_TRUE(run::parse_config(run::SpelledSpec{"eager", "", "program", "maximal"}, nullptr));
  EXPECT_FALSE(run::parse_config(run::SpelledSpec{"eager", "lower-halide-alias", "program", "none"}, nullptr));
}

TEST(Policies, EveryCombinationIsATopologicalOrderOfItsDag) {
  for (const char* f : kPrograms) {
    Case c = load(slurp(testdata(f)));
    for (const auto& s : run::strategy_names())
      for (const auto& r : {"program", "random:1", "random:2", "random:3", "fusion", "asap", "alap"})
        for (const auto& fu : run::fusion_policy_names()) {
          auto sc = make_schedule(c.p, c.an, run::SpelledSpec{s, "", r, fu});
          if (!sc.ok() && s == "update_aliases" && std::string(f) == "alias_inputs.af") {
            // Thunder's pass 1 reshapes x (6 elements) to y's shape [3]: the real Thunder raises.
            EXPECT_NE(sc.error().message.find(run::kThunderRaises), std::string::npos) << sc.error().message;
            continue;
          }
          ASSERT_TRUE(sc.ok()) << f << " " << s << ": " << sc.error().message;
          SCOPED_TRACE(std::string(f) + " " + s + " " + r + " " + fu);
          expect_legal(*sc);
          EXPECT_EQ(sc->counters.regions, static_cast<int>(sc->regions.size()));
        }
  }
}

// An unused input before inputs of one storage shifts Thunder's alias
// indices onto an input of another storage and size, which its pass 1
// reshapes: the real Thunder raises there, and the model now stops there.
// It went on emitting statements over the failed reshape, and the shape
// rule of index_add_ (a 0-d source, rank-2 target) crashed: program 29627
// of the main job's campaign, seed 1796138773.
TEST(Policies, ThunderRaisingInPassOneStopsTheModel) {
  auto p = ir::parse_and_validate(
      "aliasfuzz 1\n"
      "storage s0 f32[27] = iota(-1.0, 0.125)\n"
      "storage s1 f32[64] = random(4590036)\n"
      "storage s2 f32[2] = random(11618128)\n"
      "storage idx0 i64[1] = [1]\n"
      "storage idx1 i64[1] = [0]\n"
      "storage mask0 bool[1] = [0]\n"
      "input x0 = as_strided(s0, [20], [1], 5)\n"
      "input x1 = as_strided(s1, [3, 1, 3], [3, 3, 1], 47)\n"
      "input x2 = as_strided(s1, [3, 2, 8], [1, 3, 6], 6)\n"
      "input x3 = as_strided(s1, [17, 1], [1, 1], 19)\n"
      "input x4 = as_strided(s2, [1, 1], [2, 2], 1)\n"
      "input i0 = idx0\n"
      "input i1 = idx1\n"
      "input m0 = mask0\n"
      "t0 = squeeze(x4, 1)\n"
      "fill_(x4, 1.0)\n"
      "sub_(t0, -2.0)\n"
      "t1 = slice(x3, -2, -6, 17, 1)\n"
      "t2 = narrow(x1, 0, 2, 1)\n"
      "t3 = mul(t1, 1.5)\n"
      "t4, t5, t6 = unbind(x1, 2)\n"
      "t7 = reshape(x0, [1, 5, 4])\n"
      "t8 = contiguous(t4)\n"
      "index_add_(t8, 0, i0, x4)\n"
      "clamp_(t7, -0.25, 0.75)\n"
      "t9, t10, t11 = unbind(t6, 0)\n"
      "return t9, x0, t8\n");
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  auto an = ir::analyze(*p);
  ASSERT_TRUE(an.ok());
  auto sc = make_schedule(*p, *an, run::SpelledSpec{"update_aliases", "", "program", "none"});
  ASSERT_FALSE(sc.ok());
  EXPECT_NE(sc.error().message.find(run::kThunderRaises), std::string::npos) << sc.error().message;
}

TEST(Policies, FusionPolicies) {
  Case c = load(slurp(testdata("tanh_chain.af")));
  auto none = make_schedule(c.p, c.an, run::SpelledSpec{"none", "", "program", "none"});
  auto greedy = make_schedule(c.p, c.an, run::SpelledSpec{"none", "", "program", "greedy"});
  EXPECT_EQ(none->counters.regions, 4);
  EXPECT_EQ(greedy->counters.regions, 1);  // all elementwise
  // eager never fuses, whatever the policy.
  auto eager = make_schedule(c.p, c.an, run::SpelledSpec{"eager", "", "fusion", "dataflow"});
  EXPECT_EQ(eager->counters.regions, 4);
  EXPECT_EQ(eager->order(), (std::vector<int>{0, 1, 2, 3}));
}

TEST(Policies, RandomIsSeededAndAsapAlapDiffer) {
  // Two independent chains: random orders differ between seeds, repeat with one seed.
  Case c = load(
      "aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\n"
      "a = exp(x)\nb = neg(x)\nc = exp(a)\nd = neg(b)\ne = add(c, d)\nf = exp(x)\nreturn e, f\n");
  std::set<std::vector<int>> seen;
  for (int seed = 0; seed < 20; ++seed) {
    auto s1 = make_schedule(c.p, c.an, run::SpelledSpec{"none", "", "random:" + std::to_string(seed), "none"});
    auto s2 = make_schedule(c.p, c.an, run::SpelledSpec{"none", "", "random:" + std::to_string(seed), "none"});
    EXPECT_EQ(s1->order(), s2->order());
    seen.insert(s1->order());
  }
  EXPECT_GT(seen.size(), 3u);
  auto asap = make_schedule(c.p, c.an, run::SpelledSpec{"none", "", "asap", "none"});
  auto alap = make_schedule(c.p, c.an, run::SpelledSpec{"none", "", "alap", "none"});
  EXPECT_EQ(asap->order()[2], 5);  // f = exp(x) is ready at once: as soon as possible
  EXPECT_EQ(alap->order()[5], 5);  // and has no successor: as late as possible
  EXPECT_NE(asap->order(), alap->order());
}

TEST(Strategies, MustAgreeOnesAgreeOnHandWrittenProgramsUnderEveryPolicy) {
  for (const char* f : kPrograms) {
    Case c = load(slurp(testdata(f)));
    for (const auto& s : run::must_agree_strategy_names())
      for (int seed = 0; seed < 25; ++seed)
        for (const auto& fu : run::fusion_policy_names()) {
          auto r = run(c, s, "random:" + std::to_string(seed), fu);
          EXPECT_TRUE(r.agree) << f << " " << s << " random:" << seed << " " << fu << " "
                               << (r.mismatch ? r.mismatch->observable + " " + r.mismatch->what : "");
        }
  }
}

TEST(Strategies, NoneDivergesOnAliasedWrites) {
  Case c = load(slurp(testdata("alias_inputs.af")));
  EXPECT_TRUE(run(c, "none").agree);  // program order is still right
  bool diverged = false;
  for (int seed = 0; seed < 30 && !diverged; ++seed) diverged = !run(c, "none", "random:" + std::to_string(seed)).agree;
  EXPECT_TRUE(diverged);
}

TEST(Strategies, ThundersRuleLeavesWriteAfterReadUnordered) {
  Case c = load(slurp(testdata("chunk_war.af")));
  bool ua_diverged = false;
  for (int seed = 0; seed < 40; ++seed) {
    ua_diverged = ua_diverged || !run(c, "update_aliases", "random:" + std::to_string(seed)).agree;
    EXPECT_TRUE(run(c, "update_aliases-ordered", "random:" + std::to_string(seed)).agree);
  }
  EXPECT_TRUE(ua_diverged);
}

TEST(Strategies, UpdateAliasesMinSavesRegions) {
  Case c = load(slurp(testdata("tanh_chain.af")));
  auto ordered = make_schedule(c.p, c.an, run::SpelledSpec{"update_aliases-ordered", "", "fusion", "greedy"});
  auto min = make_schedule(c.p, c.an, run::SpelledSpec{"update_aliases-min", "", "fusion", "greedy"});
  EXPECT_GT(ordered->counters.regions, min->counters.regions);
  EXPECT_GT(ordered->counters.fusion_breaks, min->counters.fusion_breaks);
  // -ordered: one update, before tanh_ (Thunder PR 2772 keeps those); -min:
  // none, since a's name after tanh_ carries the write to every read.
  EXPECT_EQ(ordered->counters.nodes_added, 1);
  EXPECT_EQ(min->counters.nodes_added, 0);
  EXPECT_EQ(min->counters.regions, 1);
  auto rule = make_schedule(c.p, c.an, run::SpelledSpec{"update_aliases", "", "fusion", "greedy"});
  int updates = 0;
  for (const auto& st : rule->program.stmts) updates += st.op == ir::OpKind::UpdateAliases;
  EXPECT_EQ(updates, 4);  // Thunder 0.2.6: before tanh_ and before every mul (lightning-thunder issue 2768)
}

TEST(Strategies, FunctionalizeIsPureExceptWriteBacks) {
  for (const char* f : kPrograms) {
    Case c = load(slurp(testdata(f)));
    auto s = make_schedule(c.p, c.an, run::SpelledSpec{"functionalize", "", "program", "none"});
    ASSERT_TRUE(s.ok());
    int writebacks = 0;
    for (const auto& st : s->program.stmts) {
      if (!ir::is_inplace(st.op)) continue;
      const auto& dst = s->analysis->values[st.args[0].i];
      if (dst.storage < s->analysis->num_declared) {
        EXPECT_EQ(st.op, ir::OpKind::CopyI);
        ++writebacks;
      }
    }
    EXPECT_EQ(writebacks, 1) << f;  // one mutated storage in each
    EXPECT_GT(s->counters.extra_storages, 0);
  }
}

TEST(Strategies, FunctionalizeUsesInverseViews) {
  Case c = load(slurp(testdata("setitem_views.af")));
  auto s = make_schedule(c.p, c.an, run::SpelledSpec{"functionalize", "", "program", "none"});
  std::string text = ir::print(s->program);
  for (const char* op : {"slice_scatter(", "select_scatter(", "as_strided_scatter(", "transpose("})
    EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
}

TEST(Interpreter, FusionStaleCopyReadsTheDestinationBeforeTheWrite) {
  Case c = load("aliasfuzz 1\nstorage s0 f32[2] = [1, 2]\ninput x = s0\nadd_(x, 1.0)\ny = mul(x, 10.0)\nreturn y\n");
  auto fused = run(c, "none", "program", "greedy", "fusion-stale-copy");
  ASSERT_FALSE(fused.agree);
  EXPECT_EQ(fused.mismatch->expected, 20.f);
  EXPECT_EQ(fused.mismatch->actual, 10.f);
  EXPECT_TRUE(run(c, "none", "program", "none", "fusion-stale-copy").agree);  // not fused: nothing stale
  EXPECT_TRUE(run(c, "none", "program", "greedy").agree);
}

// Thunder fuses an in-place op's copy_ with later reads of its result; so
// do the fixed variants (no update before a read whose name is current),
// which is where fusion-stale-copy bites.
TEST(Mutants, FusionStaleCopyReachesTheUpdateAliasesFamily) {
  Case c = load("aliasfuzz 1\nstorage s0 f32[2] = [1, 2]\ninput x = s0\nadd_(x, 1.0)\ny = mul(x, 10.0)\nreturn y\n");
  for (const char* s : {"update_aliases-ordered", "update_aliases-min"}) {
    auto r = run(c, s, "program", "greedy", "fusion-stale-copy");
    ASSERT_FALSE(r.agree) << s;
    EXPECT_EQ(r.mismatch->actual, 10.f) << s;
    EXPECT_TRUE(run(c, s, "program", "greedy").agree) << s;
  }
}

// dot marks reads left unordered with a write to the same elements: the
// rule leaves sigmoid(x0) and mul(t0, x0) unordered with div_(x0); the
// fixed variants order every such pair, on every hand-written program.
TEST(Dot, MarksUnorderedReadWritePairs) {
  Case c = load(
      "aliasfuzz 1\nstorage s f32[4] = iota(1, 1)\ninput x0 = s\nt0 = sigmoid(x0)\nmul_(t0, x0)\n"
      "div_(x0, 2.0)\nreturn t0\n");
  auto rule = make_schedule(c.p, c.an, run::SpelledSpec{"update_aliases", "", "program", "none"});
  ASSERT_TRUE(rule.ok());
  EXPECT_EQ(unordered_hazards(*rule).size(), 2u);
  EXPECT_NE(to_dot(*rule).find("hazard"), std::string::npos);
  for (const char* f : kPrograms) {
    Case k = load(slurp(testdata(f)));
    for (const char* st : {"eager", "functionalize", "update_aliases-ordered", "update_aliases-min"}) {
      auto sc = make_schedule(k.p, k.an, run::SpelledSpec{st, "", "program", "none"});
      ASSERT_TRUE(sc.ok());
      EXPECT_TRUE(unordered_hazards(*sc).empty()) << f << " " << st;
    }
  }
}

// The fixed variants stay linear in a view chain's length (Thunder's rule
// is quadratic, and stops at a limit): the size of the transformed program
// (statements + tensor arguments) for chains of 1,000 and 8,000 aliases.
TEST(Strategies, FixedVariantsAreLinearInViewChains) {
  auto chain = [](int n) {
    std::string t = "aliasfuzz 1\nstorage s0 f32[4] = full(1)\ninput x = s0\nv0 = alias(x)\n";
    for (int i = 1; i < n; ++i) t += "v" + std::to_string(i) + " = alias(v" + std::to_string(i - 1) + ")\n";
    return t + "add_(v" + std::to_string(n - 1) + ", 1.0)\nr = exp(v0)\nreturn r\n";
  };
  auto size = [](const Schedule& sc) {
    int64_t n = 0;
    for (const auto& st : sc.program.stmts) {
      ++n;
      for (const auto& a : st.args) n += a.kind == ir::Arg::TensorList ? static_cast<int64_t>(a.list.size()) : 1;
    }
    return n;
  };
  Case small = load(chain(1000)), large = load(chain(8000));
  for (const char* s : {"update_aliases-ordered", "update_aliases-min"}) {
    auto a = make_schedule(small.p, small.an, run::SpelledSpec{s, "", "program", "none"});
    auto b = make_schedule(large.p, large.an, run::SpelledSpec{s, "", "program", "none"});
    ASSERT_TRUE(a.ok() && b.ok()) << s;
    EXPECT_LE(size(*b), 9 * size(*a)) << s << ": " << size(*a) << " -> " << size(*b);
    EXPECT_TRUE(run(large, s).agree) << s;
  }
  auto rule = make_schedule(large.p, large.an, run::SpelledSpec{"update_aliases", "", "program", "none"});
  ASSERT_FALSE(rule.ok());
  EXPECT_EQ(rule.error().kind, ir::ErrorKind::Limit);
}

TEST(Mutants, DceDropsSetitem) {
  Case c = load(slurp(testdata("setitem_views.af")));
  EXPECT_FALSE(run(c, "eager", "program", "none", "dce-drops-outputless").agree);
  EXPECT_TRUE(run(c, "eager", "program", "none").agree);
}

TEST(Mutants, FnPerInputBaseBreaksAliasedInputs) {
  Case c = load(slurp(testdata("alias_inputs.af")));
  EXPECT_FALSE(run(c, "functionalize", "program", "none", "fn-per-input-base").agree);
}

TEST(Dot, HasClustersAndAddedEdges) {
  Case c = load(slurp(testdata("chunk_war.af")));
  auto s = make_schedule(c.p, c.an, run::SpelledSpec{"update_aliases-ordered", "", "fusion", "greedy"});
  std::string d = to_dot(*s);
  EXPECT_NE(d.find("subgraph cluster_r0"), std::string::npos);
  EXPECT_NE(d.find("style=dashed"), std::string::npos);
  EXPECT_NE(d.find("update_aliases"), std::string::npos);
}

// Snapshots of before/after text: testdata/NAME.af ->
// testdata/NAME.STRATEGY.snapshot.af (program reorder, greedy fusion). They
// were written by the code under test, so they detect change, not error:
// the hand-derived expectations are HandChecked.* below. Set
// AF_UPDATE_SNAPSHOTS=DIR to rewrite them in DIR after reading the diff.
TEST(Snapshots, BeforeAfterTextUnchanged) {
  const char* update = std::getenv("AF_UPDATE_SNAPSHOTS");
  for (const char* f : kPrograms) {
    Case c = load(slurp(testdata(f)));
    std::string stem = std::string(f).substr(0, std::string(f).size() - 3);
    for (const auto& s : run::strategy_names()) {
      auto sc = make_schedule(c.p, c.an, run::SpelledSpec{s, "", "program", "greedy"});
      std::string text;
      if (!sc.ok()) text = "# " + sc.error().message + "\n";  // the rule predicts that Thunder raises
      const std::string snapshot = stem + "." + s + ".snapshot.af";
      if (!sc.ok()) {
        if (update)
          std::ofstream(std::string(update) + "/" + snapshot) << text;
        else
          EXPECT_EQ(slurp(testdata(snapshot)), text) << "snapshot " << snapshot;
        continue;
      }
      text = schedule_text(*sc);
      // The snapshot text is itself a valid program of the format.
      auto back = ir::parse_and_validate(text);
      ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << text;
      EXPECT_EQ(ir::print(*back), ir::print(sc->program));
      if (update) {
        std::ofstream(std::string(update) + "/" + snapshot) << text;
        continue;
      }
      EXPECT_EQ(slurp(testdata(snapshot)), text) << "snapshot " << snapshot << " differs; actual:\n" << text;
    }
  }
}

// ---- hand-checked expectations, one per strategy --------------------------
//
// abs_(a); b = neg(a) on a = [-1, 2]. By hand: abs_ makes s0 [1, 2], so b is
// [-1, -2]. The expected programs follow each strategy's rule as its file
// documents it, written here before running the code:
//   none, eager: the program as it is (eager: one region per statement);
//   functionalize: abs_ becomes its functional counterpart bound to a new
//     version a_1, later reads use a_1, the input is written back at the end;
//   update_aliases (Thunder's rule): every op touching an alias is fenced by
//     update_aliases, the in-place op becomes functional + copy_;
//   update_aliases-ordered: one fence before the first in-place op, which
//     stays in place and binds the next version;
//   update_aliases-min: no fence (a has no other alias), abs_ binds a_1.
const char* kAbsNeg =
    "aliasfuzz 1\n"
    "storage s0 f32[2] = [-1, 2]\n"
    "input a = s0\n"
    "abs_(a)\n"
    "b = neg(a)\n"
    "return b\n";

std::string expected_program(const std::string& body) {
  return "aliasfuzz 1\nstorage s0 f32[2] = [-1.0, 2.0]\ninput a = s0\n" + body + "return b\n";
}

struct HandCase {
  const char* strategy;
  const char* body;  // the statements of the transformed program
  int regions;       // under greedy fusion, program order
};

const HandCase kHandCases[] = {
    {"none", "abs_(a)\nb = neg(a)\n", 1},
    {"eager", "abs_(a)\nb = neg(a)\n", 2},
    {"functionalize", "a_1 = abs(a)\nb = neg(a_1)\ncopy_(a, a_1)\n", 1},
    {"update_aliases",
     "a_1 = update_aliases([a])\na_1_1 = abs(a_1)\na_2 = copy_(a_1, a_1_1)\na_3 = update_aliases([a_2])\n"
     "b = neg(a_3)\n",
     4},  // each update_aliases is a region of its own; abs and copy_ fuse
    {"update_aliases-ordered", "a_1 = update_aliases([a])\na_2 = abs_(a_1)\nb = neg(a_2)\n", 2},
    {"update_aliases-min", "a_1 = abs_(a)\nb = neg(a_1)\n", 1},
};

TEST(HandChecked, EveryStrategyHasAHandDerivedCase) {
  std::set<std::string> covered;
  for (const auto& h : kHandCases) covered.insert(h.strategy);
  for (const auto& s : run::strategy_names()) EXPECT_TRUE(covered.count(s)) << "no hand-checked case for " << s;
}

TEST(HandChecked, AbsThenNegUnderEveryStrategy) {
  Case c = load(kAbsNeg);
  for (const auto& h : kHandCases) {
    auto sc = make_schedule(c.p, c.an, run::SpelledSpec{h.strategy, "", "program", "greedy"});
    ASSERT_TRUE(sc.ok()) << h.strategy << ": " << sc.error().to_string();
    EXPECT_EQ(ir::print(sc->program), expected_program(h.body)) << h.strategy;
    EXPECT_EQ(static_cast<int>(sc->regions.size()), h.regions) << h.strategy;
    const oracles::Observables o = interpret(*sc);
    ASSERT_EQ(o.returns.size(), 1u) << h.strategy;
    EXPECT_EQ(o.returns[0].v, (std::vector<float>{-1.f, -2.f})) << h.strategy;
    EXPECT_EQ(o.storages[0], (std::vector<float>{1.f, 2.f})) << h.strategy;
  }
}

}  // namespace
}  // namespace af::schedulers
