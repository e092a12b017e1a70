// The bug zoo measured: every mutant is detected, with a fixed generator
// seed, within the first kWithin generated programs; the detection rate per
// 1,000 programs is printed. `none` diverges on generated programs.
// Thunder's own rule (update_aliases) is studied, not asserted: how often it
// diverges under random reorders and its smallest diverging program.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {
namespace {

constexpr uint64_t kSeed = 1;
constexpr int kPrograms = 1000;

struct Generated {
  ir::Program p;
  ir::Analysis an;
  oracles::Observables expected;
};

const std::vector<Generated>& programs() {
  static const std::vector<Generated> v = [] {
    std::vector<Generated> r;
    for (int i = 0; i < kPrograms; ++i) {
      Generated g;
      g.p = fuzz::generate(kSeed, i);
      g.an = *ir::analyze(g.p);
      g.expected = oracles::run_eager(g.p, g.an);
      r.push_back(std::move(g));
    }
    return r;
  }();
  return v;
}

// The schedules tried on each program: four reorders x two fusing policies.
std::vector<std::pair<std::string, std::string>> schedules(int i) {
  std::vector<std::pair<std::string, std::string>> s;
  for (const auto& r :
       {std::string("program"), "random:" + std::to_string(i), std::string("fusion"), std::string("alap")})
    for (const auto& f : {"greedy", "dataflow"}) s.push_back({r, f});
  return s;
}

struct Study {
  int detected = 0;   // programs on which some schedule diverged
  int first = -1;     // index of the first such program
  int smallest = -1;  // index of the diverging program with fewest statements
};

Study study(const std::string& strategy, const std::string& inject) {
  Study st;
  const auto& ps = programs();
  for (int i = 0; i < kPrograms; ++i) {
    bool diverged = false;
    for (const auto& [r, f] : schedules(i)) {
      if (!run_and_compare(ps[i].p, ps[i].an, ps[i].expected, run::SpelledSpec{strategy, inject, r, f}).agree) {
        diverged = true;
        break;
      }
    }
    if (!diverged) continue;
    ++st.detected;
    if (st.first < 0) st.first = i;
    if (st.smallest < 0 || ps[i].p.stmts.size() < ps[st.smallest].p.stmts.size()) st.smallest = i;
  }
  return st;
}

// Honest bound: the worst first detection measured at seed 1 was program 9
// (fusion-stale-copy); 50 leaves room for generator changes while still
// meaning "found fast".
constexpr int kWithin = 50;

struct MutantCase {
  const char* mutant;
  const char* strategy;
};

const MutantCase kZoo[] = {
    {"ua-no-maybe-views", "update_aliases-ordered"}, {"ua-no-multi-output", "update_aliases-ordered"},
    {"ua-writes-only", "update_aliases-ordered"},    {"dce-drops-outputless", "eager"},
    {"fusion-stale-copy", "functionalize"},          {"fn-per-input-base", "functionalize"},
    {"fn-no-regenerate", "functionalize"},
};

TEST(Zoo, EveryMutantIsDetectedFast) {
  for (const auto& m : kZoo) {
    Study s = study(m.strategy, m.mutant);
    std::cout << "mutant " << m.mutant << " on " << m.strategy << ": detected on " << s.detected << " of " << kPrograms
              << " programs (rate per 1,000: " << s.detected * 1000 / kPrograms << "), first at program " << s.first
              << "\n";
    EXPECT_GE(s.first, 0) << m.mutant << " never detected";
    EXPECT_LT(s.first, kWithin) << m.mutant;
  }
}

TEST(Zoo, NoneDiverges) {
  Study s = study("none", "");
  std::cout << "none: diverges on " << s.detected << " of " << kPrograms << " programs, first at " << s.first << "\n";
  EXPECT_GT(s.detected, 0);
  EXPECT_LT(s.first, kWithin);
}

bool diverges(const ir::Program& p, const std::string& strategy, int seeds) {
  auto an = ir::analyze(p);
  if (!an) return false;
  auto expected = oracles::run_eager(p, *an);
  for (int k = 0; k < seeds; ++k)
    for (const auto& f : {"none", "greedy"})
      if (!run_and_compare(p, *an, expected, run::SpelledSpec{strategy, "", "random:" + std::to_string(k), f}).agree)
        return true;
  return false;
}

// Greedy one-statement deletion while the program stays valid and diverging.
ir::Program shrink(ir::Program p, const std::string& strategy) {
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t j = 0; j < p.stmts.size(); ++j) {
      ir::Program q = p;
      const auto outs = q.stmts[j].outs;
      q.stmts.erase(q.stmts.begin() + j);
      bool used = false;
      for (const auto& st : q.stmts)
        ir::for_each_tensor_arg(st, [&](int v) { used = used || std::count(outs.begin(), outs.end(), v); });
      // Returns of deleted values are dropped.
      std::vector<int> rets;
      for (int r : q.returns)
        if (!std::count(outs.begin(), outs.end(), r)) rets.push_back(r);
      q.returns = rets;
      if (used || !diverges(q, strategy, 64)) continue;
      p = q;
      progress = true;
      break;
    }
  }
  return p;
}

TEST(Zoo, ThundersRuleStudied) {
  // Under random reorders only (8 seeds per program, no fusion).
  const auto& ps = programs();
  int progs = 0;
  long pairs = 0, bad = 0;
  for (int i = 0; i < kPrograms; ++i) {
    bool any = false;
    for (int k = 0; k < 8; ++k) {
      ++pairs;
      if (!run_and_compare(ps[i].p, ps[i].an, ps[i].expected,
                           run::SpelledSpec{"update_aliases", "", "random:" + std::to_string(1000 * i + k), "none"})
               .agree) {
        ++bad;
        any = true;
      }
    }
    progs += any;
  }
  std::cout << "update_aliases (Thunder's rule) under random reorders: diverges on " << progs << " of " << kPrograms
            << " programs, " << bad << " of " << pairs << " (program, seed) pairs\n";
  Study s = study("update_aliases", "");
  std::cout << "update_aliases (Thunder's rule): diverges on " << s.detected << " of " << kPrograms
            << " programs under these schedules (rate per 1,000: " << s.detected * 1000 / kPrograms << ")\n";
  // Thunder's rule has known bugs the generator reaches often: finding none
  // would mean the study or the model is broken.
  EXPECT_GT(progs, 0);
  ASSERT_GE(s.smallest, 0);
  {
    ir::Program small = shrink(programs()[s.smallest].p, "update_aliases");
    std::cout << "smallest diverging program found (generated index " << s.smallest
              << ", shrunk by deleting statements to " << small.stmts.size() << " statements):\n"
              << ir::print(small);
    EXPECT_TRUE(diverges(small, "update_aliases", 64));
    EXPECT_FALSE(diverges(small, "update_aliases-ordered", 64));
  }
}

}  // namespace
}  // namespace af::schedulers
