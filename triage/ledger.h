// The findings ledger (corpus/findings/*.af): every confirmed bug the
// project found in a real system, as a minimized program with a header:
//
//   # aliasfuzz finding: ONE-LINE CAUSE
//   # system: thunder 0.2.6 (torch 2.9.1)
//   # strategy: thunder-dataflow
//   # what: values            (or input-meta: an input's final geometry; or the error type the compiler raises;
//                             recall-WHAT: the same on the second call of --recall, which the entry replays;
//                             stale-from-cache-WHAT: the recall layout in a second process over the first's
//                             compiler cache folder)
//   # status: new | known URL | fixed VERSION
//   # on torch 2.9.1: reproduces       (one line per version replayed, by
//   # on torch 2.15.0: agrees           `aliasfuzz ledger check`)
//   # evidence: under aot-eager@2.15.0; fault PATH:FN; ...   (triage/evidence.h;
//                             `aliasfuzz ledger evidence`; `ledger defects` groups by it)
//
// `on` lines say how the entry behaves on each version of its system:
// reproduces (diverges as `what` says), agrees, or differs: WHAT
// (diverges another way). Versioned strategies (aot-eager, inductor,
// torch-func-functionalize) replay under every installed torch; the others
// under the one they run in (`thunder 0.2.6 (torch 2.9.1)`).
//
// Campaign reports label a bug whose signature matches an entry with it
// (like a fuzzer's list of known crashes), so new bugs stand out; a test
// replays every entry and fails when one no longer behaves as its status
// says (a new version fixed it, or a "fixed" one is back).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/check.h"
#include "triage/signature.h"
#include "ir/program.h"

namespace af::fuzz {

struct LedgerEntry {
  std::string name;                                    // file name without .af
  std::string cause, system, what, status, reference;  // status: new, known, fixed
  run::RunSpec spec;                                   // strategy (the others default)
  ir::Program program;
  BugSignature bug;                       // its bug signature (triage/signature.h; no name)
  std::map<std::string, std::string> on;  // `on` lines: system version ("torch 2.15.0") -> status
  std::string evidence;                   // `# evidence:` (triage/evidence.h; `ledger evidence` records it)
};

// One replay of an entry: the strategy it ran (aot-eager@2.15.0), the
// system version it names, and the status an `on` line records.
struct LedgerReplay {
  std::string strategy, version, status;
};
// The strategies an entry replays under here: one per installed torch for
// a versioned strategy, else its own strategy (when installed).
std::vector<std::string> ledger_strategies(const LedgerEntry& e);
// The system version an `on` line names for `strategy`: "torch 2.15.0" for
// a versioned one; else the versions its Python reports ("" when not installed).
std::string ledger_version(const std::string& strategy);
// Replays `e` under `strategy`; nullopt when it cannot run here.
std::optional<LedgerReplay> replay_entry(const LedgerEntry& e, const std::string& strategy);
// `on` ordered by system, then version (2.9.1 before 2.15.0).
std::vector<std::pair<std::string, std::string>> by_version(const std::map<std::string, std::string>& on);
// The first bad release among those installed (issue #57's evidence), from
// an entry's `on` lines: "first wrong on torch 2.15.0 (right on torch
// 2.9.1)" (a regression), "wrong on the oldest installed, torch 2.9.1"
// (older ones not tried), then "; right again on torch X" where a later
// release agrees; "" when no line says it is wrong.
std::string first_bad_release(const std::map<std::string, std::string>& on);
// `text` (an entry file) with its `on` lines set to `on` (sorted by version), in place of the old ones.
std::string with_on_lines(const std::string& text, const std::map<std::string, std::string>& on);
// `text` with its header line `# KEY: VALUE` set (replaced, or added at
// the end of the header).
std::string with_header_line(const std::string& text, const std::string& key, const std::string& value);
// Why `e` does not label a bug a campaign found under `strategy`, "" when
// it does: an entry labels a bug only where it still reproduces, so a
// versioned strategy's bug needs the entry's `on` line of that torch to
// say `reproduces` ("agrees on torch 2.15.0", "not checked on torch 2.14.1").
std::string ledger_label_refused(const LedgerEntry& e, const std::string& strategy);
// The strategies a bug found under `strategy` is labelled under: itself,
// then its lower stage (inductor@V: aot-eager@V, AOTAutograd's bugs seen
// through Inductor).
std::vector<std::string> label_strategies(const std::string& strategy);
// The entry that labels `bug` found under `strategy`:
// the entry of its signature, else the entry of the same cause under the
// strategy's lower stage (inductor's front stages are aot-eager's:
// AOTAutograd's bug seen through Inductor), where that entry reproduces on
// the bug's torch. nullptr when none; then *refused (when not null) says why
// an entry of the same cause does not label it.
const LedgerEntry* ledger_label(const std::vector<LedgerEntry>& entries, const BugSignature& bug,
                                const std::string& strategy, std::string* refused = nullptr);
// The real systems one of our strategies models (update_aliases: the Thunder
// front ends, whose update_aliases pass it follows); empty for the others.
std::vector<std::string> modelled_systems(const std::string& strategy);
// A bug of such a model that a ledger entry of its real system holds (the
// same kind of divergence and cause; an entry not marked fixed): the model
// predicts that entry, and a report says so instead of calling it new.
struct LedgerPrediction {
  std::string system;  // "thunder"
  const LedgerEntry* entry = nullptr;
};
std::optional<LedgerPrediction> ledger_prediction(const std::vector<LedgerEntry>& entries, const BugSignature& bug,
                                                  const std::string& strategy);
// "reproduces on 2.9.1, fixed in <= 2.15.0": the versions in order, a run of
// one status named once.
std::string on_summary(const std::map<std::string, std::string>& on);

// Parses one entry; nullopt and *error when the header or program is bad.
std::optional<LedgerEntry> parse_ledger_entry(const std::string& name, const std::string& text, std::string* error);

// What breaks the header rules (issue #56), one line per problem: status
// exactly `new`, `known URL` or `fixed VERSION`; it reproduces on some
// version of its `on` lines, and is `fixed` exactly when the newest one
// agrees; a torch `system:` names exactly the versions it reproduces on
// (of those replayed); the file name's prefix names its strategy's system.
std::vector<std::string> lint_ledger_entry(const LedgerEntry& e);
// Every entry of DIR (*.af); entries that do not parse are reported in *errors.
std::vector<LedgerEntry> load_ledger(const std::string& dir, std::vector<std::string>* errors);

// The ledger: $AF_LEDGER, else this checkout's $AF_ROOT/corpus/findings
// ("" when unknown).
std::string default_ledger_dir();
// Its entries, loaded once per process (empty when there is none).
const std::vector<LedgerEntry>& default_ledger();

}  // namespace af::fuzz
