#include "run/spec.h"

#include <sstream>
#include <stdexcept>
#include <nlohmann/json.hpp>

namespace af::run {

std::optional<RunStrategy> RunStrategy::parse(const std::string& name, std::string* why) {
  RunStrategy s;
  s.name_ = name;
  if (name.empty()) return s;
  if (auto internal = parse_strategy(name)) {
    s.internal_ = std::move(internal);
    return s;
  }
  if (auto external = compilers::external_strategy(name)) {
    s.external_ = std::move(external);
    return s;
  }
  if (why) {
    if (const std::string py = compilers::py_spec_error(name); !py.empty())
      *why = py;
    else
      *why = "unknown strategy '" + name + "' (valid: " + join_names(strategy_names()) +
             ", or update_aliases+FIX[+FIX...] with FIX one of " + join_names(ua_fix_names()) +
             "; external: " + join_names(compilers::external_strategies()) +
             ", a Thunder one +OPTION with OPTION one of " + join_names(compilers::thunder_option_names()) +
             ", py:MODULE:FUNCTION)";
  }
  return std::nullopt;
}

std::string RunSpec::strategy_name() const { return strategy.named() ? strategy.name() : strategy_for_mutant(mutant); }

RunConfig RunSpec::config() const {
  RunConfig c;
  if (strategy.internal())
    c.strategy = *strategy.internal();
  else
    c.strategy = *parse_strategy(strategy_for_mutant(mutant));  // a table entry: always parses
  c.mutant = mutant;
  c.reorder = reorder;
  c.fusion = fusion;
  c.target = target;
  c.checked = checked;
  return c;
}

bool RunSpec::operator==(const RunSpec& o) const {
  return strategy == o.strategy && mutant == o.mutant && reorder.kind == o.reorder.kind &&
         reorder.seed == o.reorder.seed && fusion == o.fusion && target == o.target && checked == o.checked &&
         recall == o.recall && across_processes == o.across_processes;
}

std::optional<RunSpec> parse_spec(const SpelledSpec& sp, std::string* why) {
  std::string local;
  std::string& w = why ? *why : local;
  auto strategy = RunStrategy::parse(sp.strategy, &w);
  if (!strategy) return std::nullopt;
  if (strategy->is_external() && !sp.inject.empty()) {
    w = "mutant '" + sp.inject + "' cannot apply to " + sp.strategy +
        ": mutants change aliasfuzz's own strategies, not the compilers under study";
    return std::nullopt;
  }
  if (sp.recall && !strategy->is_external()) {
    w = "--recall calls a compiled function again: it applies to the compilers under study (external "
        "strategies), not to '" +
        (sp.strategy.empty() ? std::string("a mutant") : sp.strategy) + "'";
    return std::nullopt;
  }
  if (sp.across_processes && !sp.recall) {
    w = "--across-processes goes with --recall (it replaces the second call by a second process)";
    return std::nullopt;
  }
  // The mutant, policies and target parse as ours do (the strategy is typed above).
  SpelledSpec rest = sp;
  rest.strategy = "";
  RunConfig c;
  if (auto e = parse_config(rest, &c)) {
    w = *e;
    return std::nullopt;
  }
  return RunSpec{std::move(*strategy), c.mutant, c.reorder, c.fusion, c.target, c.checked, sp.recall,
                 sp.across_processes};
}

RunSpec spec_of(const SpelledSpec& sp) {
  std::string why;
  auto s = parse_spec(sp, &why);
  if (!s) throw std::invalid_argument(why);
  return std::move(*s);
}

RunStrategy strategy_of(const std::string& name) {
  std::string why;
  auto s = RunStrategy::parse(name, &why);
  if (!s) throw std::invalid_argument(why);
  return std::move(*s);
}

SpelledSpec spelled(const RunSpec& s) {
  return SpelledSpec{s.strategy.name(), s.mutant_name(), s.reorder_name(), s.fusion_name(),
                     s.target_name(),   s.checked,       s.recall,       s.across_processes};
}

nlohmann::json spec_json(const RunSpec& s) {
  const std::string inject = s.mutant_name();
  nlohmann::json j = {{"strategy", s.strategy.name()},
                      {"inject", inject.empty() ? nlohmann::json(nullptr) : nlohmann::json(inject)},
                      {"reorder", s.reorder_name()},
                      {"fusion", s.fusion_name()},
                      {"target", s.target_name()}};
  if (s.checked) j["checked"] = true;
  if (s.recall) j["recall"] = true;
  if (s.across_processes) j["across_processes"] = true;
  return j;
}

std::optional<RunSpec> spec_from_json(const nlohmann::json& j, std::string* why) {
  SpelledSpec sp;
  if (!j.is_object()) {
    if (why) *why = "a run's settings must be a JSON object";
    return std::nullopt;
  }
  auto str = [&](const char* key, std::string& field) {
    if (j.contains(key) && j[key].is_string()) field = j[key].get<std::string>();
  };
  str("strategy", sp.strategy);
  str("inject", sp.inject);
  str("reorder", sp.reorder);
  str("fusion", sp.fusion);
  str("target", sp.target);
  sp.checked = j.contains("checked") && j["checked"].is_boolean() && j["checked"].get<bool>();
  sp.recall = j.contains("recall") && j["recall"].is_boolean() && j["recall"].get<bool>();
  sp.across_processes =
      j.contains("across_processes") && j["across_processes"].is_boolean() && j["across_processes"].get<bool>();
  return parse_spec(sp, why);
}

std::string spec_words(const RunSpec& s) {
  return "strategy=" + s.strategy.name() + " inject=" + s.mutant_name() + " reorder=" + s.reorder_name() +
         " fusion=" + s.fusion_name() + " target=" + s.target_name() + (s.checked ? " checked=1" : "") +
         (s.recall ? " recall=1" : "") + (s.across_processes ? " across=1" : "");
}

std::optional<RunSpec> spec_from_words(const std::string& words, std::string* why) {
  SpelledSpec sp;
  std::istringstream ws(words);
  std::string kv;
  while (ws >> kv) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = kv.substr(0, eq), x = kv.substr(eq + 1);
    if (k == "strategy")
      sp.strategy = x;
    else if (k == "inject")
      sp.inject = x;
    else if (k == "reorder")
      sp.reorder = x;
    else if (k == "fusion")
      sp.fusion = x;
    else if (k == "target")
      sp.target = x;
    else if (k == "checked")
      sp.checked = x == "1";
    else if (k == "recall")
      sp.recall = x == "1";
    else if (k == "across")
      sp.across_processes = x == "1";
  }
  return parse_spec(sp, why);
}

std::string spec_flags(const RunSpec& s) {
  // The strategy always (a mutant alone would make `run` try it under every strategy).
  std::string f = "--strategy " + s.strategy_name() + " ";
  if (s.mutant != Mutant::None) f += "--inject " + s.mutant_name() + " ";
  f += "--reorder " + s.reorder_name() + " --fusion " + s.fusion_name() + " --target " + s.target_name();
  if (s.checked) f += " --checked";
  if (s.recall) f += " --recall";
  return s.across_processes ? f + " --across-processes" : f;
}

std::optional<std::vector<RunStrategy>> parse_strategies(const std::vector<std::string>& names, std::string* why) {
  std::vector<RunStrategy> out;
  for (const auto& name : names) {
    auto s = RunStrategy::parse(name, why);
    if (!s) return std::nullopt;
    out.push_back(std::move(*s));
  }
  return out;
}

std::optional<std::vector<Mutant>> parse_mutants(const std::vector<std::string>& names, std::string* why) {
  std::vector<Mutant> out;
  for (const auto& name : names) {
    const auto m = parse_mutant(name);
    if (!m || *m == Mutant::None) {
      if (why) *why = "unknown mutant '" + name + "' (valid: " + join_names(mutant_names()) + ")";
      return std::nullopt;
    }
    out.push_back(*m);
  }
  return out;
}

std::vector<std::string> names_of(const std::vector<RunStrategy>& strategies) {
  std::vector<std::string> out;
  for (const auto& s : strategies) out.push_back(s.name());
  return out;
}

std::vector<std::string> names_of(const std::vector<Mutant>& mutants) {
  std::vector<std::string> out;
  for (const auto m : mutants) out.push_back(mutant_name(m));
  return out;
}

std::string tier_of(const RunSpec& s) { return s.is_external() ? s.strategy.name() : s.target_name(); }

}  // namespace af::run
