// The findings ledger (corpus/findings/*.af): every confirmed bug the
// project found in a real system, as a minimized program with a header:
//
//   # aliasfuzz finding: ONE-LINE CAUSE
//   # system: thunder 0.2.6 (torch 2.9.1)
//   # strategy: thunder-dataflow
//   # what: values            (or input-meta: an input's final geometry; or the error type the compiler raises)
//   # status: new | known URL | fixed VERSION
//
// Campaign reports label a bug whose signature matches an entry with it
// (like a fuzzer's list of known crashes), so new bugs stand out; a test
// replays every entry and fails when one no longer behaves as its status
// says (a new version fixed it, or a "fixed" one is back).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "fuzz/check.h"
#include "ir/program.h"

namespace af::fuzz {

struct LedgerEntry {
  std::string name;       // file name without .af
  std::string cause, system, what, status, reference;  // status: new, known, fixed
  RunSpec spec;           // strategy (the others default)
  ir::Program program;
  std::string key;        // its bug signature key (fuzz/signature.h)
};

// Parses one entry; nullopt and *error when the header or program is bad.
std::optional<LedgerEntry> parse_ledger_entry(const std::string& name, const std::string& text, std::string* error);

// Every entry of DIR (*.af); entries that do not parse are reported in *errors.
std::vector<LedgerEntry> load_ledger(const std::string& dir, std::vector<std::string>* errors);

// The ledger: $AF_LEDGER, else this checkout's $AF_ROOT/corpus/findings
// ("" when unknown).
std::string default_ledger_dir();

}  // namespace af::fuzz
