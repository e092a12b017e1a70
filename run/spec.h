// The settings of one run, typed and parsed once at the edges (the command
// line, campaign.json, findings.jsonl, minimize.json, regression-file
// headers, settings.json). A RunSpec holds the strategy as one of
// aliasfuzz's own (a kind with its update_aliases fixes) or as a row of the
// external table (compilers/table.h, with its torch version), and the
// mutant, policies and target as the enumerators of run/vocabulary.h.
// Names exist only in the spellings here (JSON, flags) and in the tables
// behind them; nothing else compares one as a string (tools/name_compare_test.sh).
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compilers/table.h"
#include "run/vocabulary.h"

namespace af::run {

// The strategy a run names: ours, a system under study, or none (a
// mutant's run: the mutant's default strategy, strategy_for_mutant).
class RunStrategy {
 public:
  RunStrategy() = default;  // none named
  // "" is none named; an unknown name gives nullopt and the reason (naming the valid choices).
  static std::optional<RunStrategy> parse(const std::string& name, std::string* why = nullptr);
  bool named() const { return !name_.empty(); }
  bool is_external() const { return external_.has_value(); }
  const std::optional<Strategy>& internal() const { return internal_; }
  const std::optional<compilers::ExternalStrategy>& external() const { return external_; }
  // As spelled ("update_aliases+war+args", "aot-eager@2.15.0"); "" when none is named.
  const std::string& name() const { return name_; }
  bool operator==(const RunStrategy& o) const { return name_ == o.name_; }

 private:
  std::string name_;
  std::optional<Strategy> internal_;
  std::optional<compilers::ExternalStrategy> external_;
};

struct RunSpec {
  RunStrategy strategy;
  Mutant mutant = Mutant::None;  // none for an external strategy
  Reorder reorder;
  Fusion fusion = Fusion::None;
  Target target = Target::Interp;
  // Checked mode: every statement is compared with the oracle's value of
  // the source statement it stands for, and the first that differs is
  // reported (schedulers::CheckFailure); not for external strategies.
  bool checked = false;
  // Format v1.4's recall (external strategies only): the compiled function
  // is called a second time, on the program's inputs in another alias
  // layout (ir/relayout.h recall_layout), and that call too is compared
  // with eager PyTorch on its own inputs.
  bool recall = false;
  // With recall: the history across processes instead of a second call
  // (issue #56, `stale-from-cache`): the program compiles in one process
  // and its recall layout in a new one over the first's compiler cache
  // folder; a divergence a fresh cache folder does not show is the finding.
  bool across_processes = false;

  // Run through a real compiler in Python (no schedule of ours, no policy, no target).
  bool is_external() const { return strategy.is_external(); }
  // The strategy that runs: the named one, else the mutant's default.
  std::string strategy_name() const;
  std::string mutant_name() const { return run::mutant_name(mutant); }  // "" for none
  std::string reorder_name() const { return run::reorder_name(reorder); }
  std::string fusion_name() const { return run::fusion_name(fusion); }
  std::string target_name() const { return run::target_name(target); }
  // "STRATEGY+MUTANT" as named: whose bug a divergence is (a campaign's
  // novelty bookkeeping keys its features by it; policies and targets aside).
  std::string who() const { return strategy.name() + "+" + mutant_name(); }
  // One of the strategies that must agree with the oracle, without a mutant:
  // a divergence is a bug in aliasfuzz.
  bool must_agree() const { return strategy.named() && mutant == Mutant::None && is_must_agree(strategy.name()); }
  // Ours: the typed settings the schedulers and the lowering take.
  RunConfig config() const;
  bool operator==(const RunSpec& o) const;
};

// Parses every spelled setting; on a usage error (an unknown name, a
// mutant on an external strategy) nullopt and the message naming the valid
// choices in *why.
std::optional<RunSpec> parse_spec(const SpelledSpec& spelled, std::string* why = nullptr);
SpelledSpec spelled(const RunSpec& s);
// For tests and tables that spell the tables' own names: parse_spec, and
// std::invalid_argument (with the reason) where it would give nullopt.
RunSpec spec_of(const SpelledSpec& spelled);
RunStrategy strategy_of(const std::string& name);

// The one JSON spelling of a spec (settings.json, findings.jsonl,
// minimize.json): inject null when empty, "checked" only when set, so
// unchecked specs read as before.
nlohmann::json spec_json(const RunSpec& s);
// A spec from that spelling (absent keys take their defaults); nullopt
// with the reason for a name no table knows.
std::optional<RunSpec> spec_from_json(const nlohmann::json& j, std::string* why = nullptr);
// The regression-file header's spelling ("strategy=S inject=M reorder=R
// fusion=F target=T[ checked=1][ recall=1][ across=1]"), both ways.
std::string spec_words(const RunSpec& s);
std::optional<RunSpec> spec_from_words(const std::string& words, std::string* why = nullptr);
// The same settings as `aliasfuzz run` flags ("--strategy S [--inject M]
// --reorder R --fusion F --target T [--checked] [--recall [--across-processes]]").
std::string spec_flags(const RunSpec& s);

// A campaign's lists (--strategy, --inject; campaign.json) both ways:
// nullopt and the first unknown name's reason in *why.
std::optional<std::vector<RunStrategy>> parse_strategies(const std::vector<std::string>& names,
                                                         std::string* why = nullptr);
std::optional<std::vector<Mutant>> parse_mutants(const std::vector<std::string>& names, std::string* why = nullptr);
std::vector<std::string> names_of(const std::vector<RunStrategy>& strategies);
std::vector<std::string> names_of(const std::vector<Mutant>& mutants);

// The tier a spec runs in, for throughput figures: the external strategy's
// name (a Python child), else its target ("interp", "host", ...).
std::string tier_of(const RunSpec& s);

}  // namespace af::run
