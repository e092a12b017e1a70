// The parsers and name tables of the run settings (run/vocabulary.h).
#include "run/vocabulary.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace af::run {

std::string join_names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

namespace {
std::string join(const std::vector<std::string>& v) { return join_names(v); }

// The value a table of {spelling, value} rows gives a name, and back.
template <class Table>
auto value_of(const Table& table, const std::string& name) -> std::optional<decltype(std::begin(table)->second)> {
  for (const auto& [spelling, value] : table)
    if (name == spelling) return value;
  return std::nullopt;
}
template <class Table, class Value>
const char* spelling_of(const Table& table, Value v) {
  for (const auto& [spelling, value] : table)
    if (value == v) return spelling;
  std::abort();  // every enumerator has a row
}
bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
}  // namespace

// --- strategies -------------------------------------------------------------

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> v{
      "eager", "none", "functionalize", "update_aliases", "update_aliases-ordered", "update_aliases-min"};
  return v;
}
const std::vector<std::string>& must_agree_strategy_names() {
  static const std::vector<std::string> v{"eager", "functionalize", "update_aliases-ordered", "update_aliases-min"};
  return v;
}
const std::vector<std::string>& under_study_strategy_names() {
  static const std::vector<std::string> v{"none", "update_aliases"};
  return v;
}
bool is_must_agree(const std::string& s) { return contains(must_agree_strategy_names(), s); }

std::optional<Strategy> parse_strategy(const std::string& name) {
  static const std::pair<const char*, StrategyKind> kPlain[] = {
      {"eager", StrategyKind::Eager}, {"none", StrategyKind::None}, {"functionalize", StrategyKind::Functionalize}};
  if (auto kind = value_of(kPlain, name)) return Strategy{*kind, UaFixes{}, name};
  if (auto fixes = ua_fixes_of(name)) return Strategy{StrategyKind::UpdateAliases, *fixes, name};
  return std::nullopt;
}

// --- mutants ----------------------------------------------------------------

const std::vector<MutantInfo>& mutant_table() {
  // fusion-stale-copy runs under functionalize: under the update_aliases
  // family every access after a write sits behind an update_aliases node,
  // which ends a region, so it could never fire; functionalize fuses the
  // write-backs with reads.
  static const std::vector<MutantInfo> v{
      {Mutant::UaNoMaybeViews, "ua-no-maybe-views", "update_aliases-ordered", false, false},
      {Mutant::UaNoMultiOutput, "ua-no-multi-output", "update_aliases-ordered", false, false},
      {Mutant::UaWritesOnly, "ua-writes-only", "update_aliases-ordered", false, false},
      {Mutant::DceDropsOutputless, "dce-drops-outputless", "eager", false, false},
      {Mutant::FusionStaleCopy, "fusion-stale-copy", "functionalize", true, false},
      {Mutant::FnPerInputBase, "fn-per-input-base", "functionalize", false, false},
      {Mutant::FnNoRegenerate, "fn-no-regenerate", "functionalize", false, false},
      {Mutant::LowerHalideAlias, "lower-halide-alias", "functionalize", true, true},
  };
  return v;
}

const MutantInfo& mutant_info(Mutant m) {
  for (const auto& row : mutant_table())
    if (row.mutant == m) return row;
  std::abort();  // Mutant::None has no row; every other enumerator has one
}

std::optional<Mutant> parse_mutant(const std::string& name) {
  if (name.empty()) return Mutant::None;
  for (const auto& row : mutant_table())
    if (name == row.name) return row.mutant;
  return std::nullopt;
}

std::string mutant_name(Mutant m) { return m == Mutant::None ? "" : mutant_info(m).name; }

const std::vector<std::string>& mutant_names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> names;
    for (const auto& row : mutant_table()) names.push_back(row.name);
    return names;
  }();
  return v;
}

// --- reorder policies -------------------------------------------------------

namespace {
constexpr const char* kRandomPrefix = "random:";
const std::pair<const char*, ReorderKind> kSeedless[] = {{"program", ReorderKind::Program},
                                                         {"fusion", ReorderKind::Fusion},
                                                         {"asap", ReorderKind::Asap},
                                                         {"alap", ReorderKind::Alap},
                                                         {"thunder-dataflow", ReorderKind::ThunderDataflow}};
}  // namespace

std::optional<Reorder> parse_reorder(const std::string& r) {
  if (auto kind = value_of(kSeedless, r)) return Reorder{*kind, 0};
  const size_t n = std::char_traits<char>::length(kRandomPrefix);
  if (r.rfind(kRandomPrefix, 0) != 0 || r.size() == n || r.size() > n + 20) return std::nullopt;
  if (!std::all_of(r.begin() + n, r.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  return Reorder{ReorderKind::Random, std::strtoull(r.c_str() + n, nullptr, 10)};
}

std::string reorder_name(const Reorder& r) {
  if (r.kind == ReorderKind::Random) return kRandomPrefix + std::to_string(r.seed);
  return spelling_of(kSeedless, r.kind);
}

const std::vector<std::string>& reorder_policy_names() {
  static const std::vector<std::string> v{"program", "random:SEED", "fusion", "asap", "alap", "thunder-dataflow"};
  return v;
}

const std::vector<Reorder>& seedless_reorders() {
  static const std::vector<Reorder> v = [] {
    std::vector<Reorder> out;
    for (const auto& name : reorder_policy_names())
      if (auto r = parse_reorder(name)) out.push_back(*r);
    return out;
  }();
  return v;
}

std::optional<ReorderKind> parse_reorder_kind(const std::string& name) {
  if (auto kind = value_of(kSeedless, name)) return kind;
  // kRandomPrefix without its colon
  if (name.size() + 1 == std::char_traits<char>::length(kRandomPrefix) && kRandomPrefix == name + ":")
    return ReorderKind::Random;
  return std::nullopt;
}

// --- fusion policies --------------------------------------------------------

namespace {
const std::pair<const char*, Fusion> kFusions[] = {{"none", Fusion::None},
                                                   {"greedy", Fusion::Greedy},
                                                   {"consecutive", Fusion::Consecutive},
                                                   {"dataflow", Fusion::Dataflow}};
}

std::optional<Fusion> parse_fusion(const std::string& name) { return value_of(kFusions, name); }

const char* fusion_name(Fusion f) { return spelling_of(kFusions, f); }

const std::vector<std::string>& fusion_policy_names() {
  static const std::vector<std::string> v{"none", "greedy", "consecutive", "dataflow"};
  return v;
}

const std::vector<Fusion>& fusion_policies() {
  static const std::vector<Fusion> v = [] {
    std::vector<Fusion> out;
    for (const auto& row : kFusions) out.push_back(row.second);
    return out;
  }();
  return v;
}

// --- targets ----------------------------------------------------------------

namespace {
const std::pair<const char*, Target> kTargets[] = {{"interp", Target::Interp},
                                                   {"host", Target::Host},
                                                   {"opencl", Target::OpenCL},
                                                   {"cuda", Target::Cuda},
                                                   {"ptx", Target::Ptx}};
}

std::optional<Target> parse_target(const std::string& name) { return value_of(kTargets, name); }

const char* target_name(Target t) { return spelling_of(kTargets, t); }

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const auto& row : kTargets) out.push_back(row.first);
    return out;
  }();
  return v;
}

// --- one run ----------------------------------------------------------------

std::string strategy_for_mutant(Mutant m) {
  if (m == Mutant::None) return "update_aliases-ordered";  // as before: no mutant, no default of its own
  return mutant_info(m).default_strategy;
}

std::optional<std::string> parse_config(const SpelledSpec& o, RunConfig* out) {
  auto mutant = parse_mutant(o.inject);
  if (!mutant) return "unknown mutant '" + o.inject + "' (valid: " + join(mutant_names()) + ")";
  auto strategy = parse_strategy(o.strategy.empty() ? strategy_for_mutant(*mutant) : o.strategy);
  if (!strategy)
    return "unknown strategy '" + o.strategy + "' (valid: " + join(strategy_names()) +
           ", or update_aliases+FIX[+FIX...] with FIX one of " + join(ua_fix_names()) + ")";
  auto reorder = parse_reorder(o.reorder);
  if (!reorder) return "unknown reorder policy '" + o.reorder + "' (valid: " + join(reorder_policy_names()) + ")";
  auto fusion = parse_fusion(o.fusion);
  if (!fusion) return "unknown fusion policy '" + o.fusion + "' (valid: " + join(fusion_policy_names()) + ")";
  auto target = parse_target(o.target.empty() ? "interp" : o.target);
  if (!target) return "unknown target '" + o.target + "' (valid: " + join(target_names()) + ")";
  if (out) *out = RunConfig{std::move(*strategy), *mutant, *reorder, *fusion, *target, o.checked};
  return std::nullopt;
}

}  // namespace af::run
