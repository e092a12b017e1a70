// The must-agree property: on generated programs, eager, functionalize,
// update_aliases-ordered and update_aliases-min agree with the eager oracle
// under random reorder seeds (plus the fusion, asap and alap policies) and
// every fusion policy. Each RapidCheck case is one program x 72 schedules
// (4 strategies x 3 fusion policies x 6 reorders); the suite runs at least
// 10,000 program x schedule pairs (checked at the end).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <atomic>
#include <cstdlib>
#include <iostream>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "schedulers/schedulers.h"
#include "run/ua_fixes.h"

namespace af::schedulers {
namespace {

std::atomic<long> g_pairs{0};  // pairs the RapidCheck property checked (this process)
constexpr uint64_t kSeed = 20261129;

RC_GTEST_PROP(MustAgree, GeneratedProgramsUnderRandomSchedules, ()) {
  const uint64_t index = *rc::gen::inRange<uint64_t>(0, uint64_t{1} << 40);
  fuzz::GenOptions go;
  go.size = *rc::gen::inRange(2, 25);
  const ir::Program p = fuzz::generate(kSeed, index, go);
  auto an = ir::analyze(p);
  RC_ASSERT(an.ok());
  const oracles::Observables expected = oracles::run_eager(p, *an);
  const auto seeds = *rc::gen::container<std::vector<uint32_t>>(3, rc::gen::arbitrary<uint32_t>());
  std::vector<std::string> reorders{"program", "fusion", "asap", "alap", "thunder-dataflow"};
  for (auto s : seeds) reorders.push_back("random:" + std::to_string(s));
  for (const auto& strategy : run::must_agree_strategy_names())
    for (const auto& fusion : run::fusion_policy_names())
      for (const auto& reorder : reorders) {
        RunOutcome r = run_and_compare(p, *an, expected, run::SpelledSpec{strategy, "", reorder, fusion});
        ++g_pairs;
        if (!r.agree) {
          RC_LOG() << "program (seed " << kSeed << ", index " << index << ", size " << go.size << "):\n"
                   << ir::print(p) << strategy << " reorder " << reorder << " fusion " << fusion << ": "
                   << (r.mismatch
                           ? r.mismatch->observable + " [" + std::to_string(r.mismatch->index) + "] " + r.mismatch->what
                           : "")
                   << "\n";
        }
        RC_ASSERT(r.agree);
      }
}

// The analysis the strategies build incrementally (to skip a second
// ir::analyze) is the one ir::analyze gives for their programs.
TEST(Strategies, IncrementalAnalysisMatchesAnalyze) {
  int replays = 0;  // schedules ending with the input-metadata replay (extended, not re-analyzed)
  for (uint64_t k = 0; k < 300; ++k) {
    const ir::Program p = fuzz::generate(kSeed, k);
    auto an = ir::analyze(p);
    ASSERT_TRUE(an.ok());
    const bool metadata = ir::has_metadata_ops(p);
    for (const auto& s : run::strategy_names()) {
      auto sc = make_schedule(p, *an, run::SpelledSpec{s, "", "program", "none"});
      // Thunder's rule may predict that the real Thunder raises (pass 1).
      if (!sc.ok() && s == "update_aliases" && sc.error().message.find(run::kThunderRaises) != std::string::npos)
        continue;
      ASSERT_TRUE(sc.ok()) << sc.error().message;
      auto re = ir::analyze(sc->program);
      ASSERT_TRUE(re.ok()) << s << ": " << re.error().to_string() << "\n" << ir::print(sc->program);
      ASSERT_EQ(re->storage_numel, sc->analysis->storage_numel) << s;
      ASSERT_EQ(re->values.size(), sc->analysis->values.size());
      for (size_t v = 0; v < re->values.size(); ++v) {
        EXPECT_EQ(re->values[v].storage, sc->analysis->values[v].storage) << s << " value " << v;
        EXPECT_EQ(re->values[v].g, sc->analysis->values[v].g) << s << " value " << v;
        EXPECT_EQ(re->values[v].storage_numel, sc->analysis->values[v].storage_numel) << s << " value " << v;
        // Tensor identity too (in-place results are their argument; the
        // overlap checks read it), except where eager and none keep the
        // source's analysis for a program whose metadata ops became views
        // (views_for_metadata_ops: only the retired names' identity differs).
        if (!metadata || (s != "eager" && s != "none"))
          EXPECT_EQ(re->values[v].impl, sc->analysis->values[v].impl) << s << " value " << v;
      }
      EXPECT_EQ(re->fresh_storage, sc->analysis->fresh_storage) << s;
      // A replayed input is its tensor object re-shaped (the same impl).
      for (int j = 0; j < static_cast<int>(sc->program.stmts.size()); ++j)
        if (is_input_metadata_replay(*sc, j)) {
          ++replays;
          const int out = sc->program.stmts[j].outs[0];
          EXPECT_EQ(re->values[out].impl, sc->analysis->values[out].impl) << s << " value " << out;
        }
    }
  }
  EXPECT_GT(replays, 0) << "no generated program re-shapes an input: the replay's analysis went untested";
}

// A printed schedule is a program too (users read it, edit it and feed it
// back): it may hold Thunder's update_aliases nodes, which no generated
// program has. Every strategy's schedule of a generated program, read back,
// must agree under every must-agree strategy.
TEST(MustAgree, SchedulesReadBackAsPrograms) {
  long runs = 0, with_update_nodes = 0;
  const std::vector<std::string> reorders{"program", "alap", "random:11", "random:12"};
  for (uint64_t k = 0; k < 120; ++k) {
    const ir::Program p = fuzz::generate(kSeed + 1, k);
    auto an = ir::analyze(p);
    ASSERT_TRUE(an.ok());
    for (const auto& s : run::strategy_names()) {
      auto sc = make_schedule(p, *an, run::SpelledSpec{s, "", "random:5", "greedy"});
      if (!sc.ok()) continue;  // the unfixed update_aliases predicts that Thunder raises
      const std::string text = ir::print(sc->program);
      auto q = ir::parse_and_validate(text);
      ASSERT_TRUE(q.ok()) << s << " of program " << k << ": " << q.error().to_string() << "\n" << text;
      auto qan = ir::analyze(*q);
      ASSERT_TRUE(qan.ok());
      for (const auto& st : q->stmts) with_update_nodes += st.op == ir::OpKind::UpdateAliases;
      const oracles::Observables expected = oracles::run_eager(*q, *qan);
      for (const auto& strategy : run::must_agree_strategy_names())
        for (const auto& reorder : reorders) {
          const RunOutcome r = run_and_compare(*q, *qan, expected, run::SpelledSpec{strategy, "", reorder, "none"});
          ++runs;
          EXPECT_TRUE(r.agree) << strategy << " reorder " << reorder << " on " << s << "'s schedule of program " << k
                               << ": " << (r.mismatch ? r.mismatch->observable : r.error) << "\n"
                               << text;
        }
    }
  }
  EXPECT_GT(with_update_nodes, 0) << "no schedule held an update_aliases node: the case went untested";
  std::cout << "schedules read back: " << runs << " runs, " << with_update_nodes << " update_aliases nodes\n";
}

// A deterministic sweep on top of the property (the bar is 30,000
// program x schedule pairs per run).
TEST(MustAgree, SweepOfGeneratedPrograms) {
  long pairs = 0;
  for (uint64_t index = 0; index < 160; ++index) {
    fuzz::GenOptions go;
    go.size = 2 + static_cast<int>(index % 23);
    const ir::Program p = fuzz::generate(kSeed + 1, index, go);
    auto an = ir::analyze(p);
    ASSERT_TRUE(an.ok());
    const oracles::Observables expected = oracles::run_eager(p, *an);
    std::vector<std::string> reorders{"program", "fusion", "asap", "alap", "thunder-dataflow"};
    for (int k = 0; k < 3; ++k) reorders.push_back("random:" + std::to_string(index * 7 + k));
    for (const auto& strategy : run::must_agree_strategy_names())
      for (const auto& fusion : run::fusion_policy_names())
        for (const auto& reorder : reorders) {
          RunOutcome r = run_and_compare(p, *an, expected, run::SpelledSpec{strategy, "", reorder, fusion});
          ++pairs;
          ASSERT_TRUE(r.agree) << "program " << index << " " << strategy << " " << reorder << " " << fusion << "\n"
                               << ir::print(p);
        }
  }
  EXPECT_EQ(pairs,
            160L * static_cast<long>(run::must_agree_strategy_names().size() * run::fusion_policy_names().size()) * 8);
}

// The ops one format version added, weighted up: the must-agree
// strategies under every fusion policy and eight reorders agree with the
// oracle on 200 programs; returns the statements of those ops.
long agree_over_added_ops(bool (*added)(ir::OpKind), uint64_t seed, uint64_t random_stride, const char* label) {
  fuzz::GenOptions go;
  for (ir::OpKind op : ir::all_ops())
    if (added(op)) go.op_weights[ir::op_name(op)] = 5;
  long pairs = 0, uses = 0;
  for (uint64_t index = 0; index < 200; ++index) {
    go.size = 4 + static_cast<int>(index % 21);
    const ir::Program p = fuzz::generate(seed, index, go);
    auto an = ir::analyze(p);
    EXPECT_TRUE(an.ok());
    if (!an.ok()) return uses;
    for (const auto& st : p.stmts) uses += added(st.op);
    const oracles::Observables expected = oracles::run_eager(p, *an);
    std::vector<std::string> reorders{"program", "fusion", "asap", "alap", "thunder-dataflow"};
    for (uint64_t k = 0; k < 3; ++k) reorders.push_back("random:" + std::to_string(index * random_stride + k));
    for (const auto& strategy : run::must_agree_strategy_names())
      for (const auto& fusion : run::fusion_policy_names())
        for (const auto& reorder : reorders) {
          RunOutcome r = run_and_compare(p, *an, expected, run::SpelledSpec{strategy, "", reorder, fusion});
          ++pairs;
          EXPECT_TRUE(r.agree) << "program " << index << " " << strategy << " " << reorder << " " << fusion << ": "
                               << r.error << "\n"
                               << ir::print(p);
          if (!r.agree) return uses;
        }
  }
  std::cout << label << ": " << pairs << " program x schedule pairs, " << uses << " statements of its ops\n";
  return uses;
}

// Format v1.1's ops (out= variants, several operands).
TEST(MustAgree, FormatV11Ops) { EXPECT_GT(agree_over_added_ops(ir::added_in_v11, kSeed + 2, 11, "format v1.1"), 600); }

// Format v1.2's indexed and masked writes (index and mask inputs, writes
// through views of inputs and into inputs sharing storage).
TEST(MustAgree, FormatV12Ops) { EXPECT_GT(agree_over_added_ops(ir::added_in_v12, kSeed + 3, 13, "format v1.2"), 300); }

// Format v1.3's metadata ops (on inputs and views of inputs, then reads and
// writes through the new geometry) and unfold (overlapping windows read).
TEST(MustAgree, FormatV13Ops) { EXPECT_GT(agree_over_added_ops(ir::added_in_v13, kSeed + 4, 17, "format v1.3"), 300); }

// Format v1.4's custom ops (scheduled as the aten ops of their bodies) and
// graph_break (a statement of no values).
TEST(MustAgree, FormatV14Ops) { EXPECT_GT(agree_over_added_ops(ir::added_in_v14, kSeed + 5, 19, "format v1.4"), 300); }

// Format v1.5's dtype view and the i32 arithmetic on what it views (the
// recipe adds the i32 statements; only the views are counted): functionalize
// replays and inverts the dtype steps, and writes i32 numbers as i32.
TEST(MustAgree, FormatV15Ops) { EXPECT_GT(agree_over_added_ops(ir::added_in_v15, kSeed + 6, 23, "format v1.5"), 100); }

// The property's own bar, checked after every test ran (so it holds in any
// test order, and a --gtest_filter that leaves the property out checks nothing).
class PairsAtLeast : public ::testing::Environment {
 public:
  void TearDown() override {
    std::cout << "program x schedule pairs checked by the property: " << g_pairs.load() << "\n";
    if (g_pairs.load() > 0) EXPECT_GE(g_pairs.load(), 30000);
  }
};

}  // namespace
}  // namespace af::schedulers

int main(int argc, char** argv) {
  // 500 cases x 72 schedules = 36,000 pairs, with a fixed RapidCheck seed
  // so CI runs are reproducible; RC_PARAMS overrides (e.g. a random seed or
  // more cases: RC_PARAMS="max_success=5000").
  setenv("RC_PARAMS", "max_success=500 seed=20261129", 0);
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new af::schedulers::PairsAtLeast);
  return RUN_ALL_TESTS();
}
