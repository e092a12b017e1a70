#include "fuzz/check.h"

#include <algorithm>

#include "ir/analysis.h"

namespace af::fuzz {

const std::vector<std::string>& must_agree_strategies() {
  static const std::vector<std::string> v{"eager", "functionalize", "update_aliases-ordered", "update_aliases-min"};
  return v;
}

const std::vector<std::string>& under_study_strategies() {
  static const std::vector<std::string> v{"none", "update_aliases"};
  return v;
}

bool is_must_agree(const std::string& s) {
  const auto& v = must_agree_strategies();
  return std::find(v.begin(), v.end(), s) != v.end();
}

namespace {
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
uint64_t hash_str(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}
}  // namespace

std::vector<RunSpec> campaign_specs(uint64_t seed, uint64_t index, const std::vector<std::string>& strategies,
                                    const std::vector<std::string>& injects, const std::string& target) {
  std::vector<std::string> ss = strategies;
  if (ss.empty()) {
    ss = must_agree_strategies();
    for (const auto& s : under_study_strategies()) ss.push_back(s);
  }
  std::vector<std::pair<std::string, std::string>> runs;  // strategy, inject
  for (const auto& s : ss) runs.push_back({s, ""});
  for (const auto& m : injects) runs.push_back({"", m});
  static const char* kFusion[] = {"none", "greedy", "dataflow"};
  std::vector<RunSpec> specs;
  for (const auto& [s, m] : runs) {
    const uint64_t h = mix(mix(seed ^ mix(index)) ^ hash_str(s + "/" + m));
    RunSpec r;
    r.strategy = s;
    r.inject = m;
    r.target = target;
    // Mostly random topological orders (they find ordering bugs); the
    // named policies now and then.
    const uint64_t pick = h % 10;
    if (pick < 6) r.reorder = "random:" + std::to_string((h >> 8) % 1000000);
    else r.reorder = std::vector<std::string>{"fusion", "asap", "alap", "program"}[pick - 6];
    r.fusion = kFusion[(h >> 40) % 3];
    specs.push_back(r);
  }
  return specs;
}

std::string bucket_of(const RunRecord& r) {
  std::string reorder = r.spec.reorder.rfind("random:", 0) == 0 ? "random" : r.spec.reorder;
  std::string what;
  if (!r.error.empty()) what = "error";
  else if (r.mismatch && r.mismatch->observable.rfind("return", 0) == 0) what = "return";
  else what = "storage";
  std::string b = (r.spec.strategy.empty() ? std::string("mutant") : r.spec.strategy);
  if (!r.spec.inject.empty()) b += "+" + r.spec.inject;
  b += "__" + reorder + "__" + r.spec.fusion + "__" + what;
  if (!r.op.empty()) b += "__" + r.op;
  for (char& c : b)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+' || c == '.')) c = '_';
  return b;
}

std::vector<RunRecord> check_program(const ir::Program& p, const oracles::Observables& expected,
                                     const std::vector<RunSpec>& specs) {
  std::vector<RunRecord> out;
  auto an = ir::analyze(p);
  for (const RunSpec& s : specs) {
    RunRecord r;
    r.spec = s;
    if (s.strategy == "eager" && s.inject.empty()) {
      oracles::Observables actual = oracles::run_eager(p, *an);
      r.mismatch = oracles::compare(p, expected, actual);
      r.agree = !r.mismatch;
      r.regions = static_cast<int>(p.stmts.size());
    } else {
      continue;  // strategies arrive with schedulers/
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace af::fuzz
