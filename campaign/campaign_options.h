// The settings of a fuzz campaign (campaign/campaign.h runs one). Apart from
// campaign.h so that the campaign's parts (worker pool, store, case
// checking) depend on its settings, not on the campaign that uses them.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "generate/generator.h"
#include "run/spec.h"

namespace af::fuzz {

// The share of the case timeout one answer of an external compiler may
// take in a worker or a minimizer child (compilers::set_external_timeout):
// the worker catches the hang itself, before the campaign's kill.
inline constexpr double kExternalShareOfCase = 0.8;

struct CampaignOptions {
  double time_s = 60;     // stop after this many seconds (when programs < 0)
  int64_t programs = -1;  // global program indices [0, programs); -1: until time_s
  uint64_t seed = 1;
  int jobs = 1;
  std::vector<run::RunStrategy> strategies;  // empty: must-agree + under study
  std::vector<run::Mutant> injects;          // mutants (each run with its strategy)
  run::Target target = run::Target::Interp;
  // Checked mode for every run but the external strategies': a finding's
  // bucket comes from the first source statement the checks report.
  bool checked = false;
  // Format v1.4's recall for every external strategy (run/spec.h RunSpec::recall).
  bool recall = false;
  // With recall: the history across processes instead (RunSpec::across_processes).
  bool across_processes = false;
  std::string out;  // output folder
  bool resume = false;
  int shard_i = 0, shard_n = 1;
  double case_timeout_s = 20;
  int64_t memory_limit_mb = 4096;
  // The first finding of each new bucket is minimized when the campaign
  // ends (must-agree buckets first, then mutants, then the rest, by first
  // program), each in a child process with this budget, within a total.
  double minimize_s = 5;         // per bucket; 0: off
  double minimize_total_s = -1;  // < 0: a quarter of time_s (30 s with --programs)
  // Then the novelty leads (issue #34: findings with a feature no bug
  // program had, each minimized keeping it), within this total; each
  // has minimize_s. < 0: a quarter of time_s (30 s with --programs); 0: off.
  double novelty_total_s = -1;
  // A time campaign also minimizes while it runs (issue #34): this share of
  // its wall time goes to rounds of minimization (those totals' jobs,
  // buckets first), so bugs show, and survive an interrupt, before the end;
  // what is left waits for the end as before. 0: only at the end.
  double minimize_share = 0.2;
  // A minimization ends at the first candidate that is a ledger bug
  // (MinimizeOptions::known_bug), unless this is set (--minimize-past-known).
  bool minimize_past_known = false;
  bool quiet = false;    // no status lines
  bool verbose = false;  // also a line per minimization round (the status line counts them anyway)
  // findings.jsonl keeps one line per bucket (with its count); with
  // log_all, findings-all.jsonl also gets every divergence.
  bool log_all = false;
  // For campaign.json and the reports: the command line that started (or
  // resumed) the campaign, and versions of the tools ("aliasfuzz", "halide";
  // run_campaign adds each external strategy's from its capability probe).
  std::string command_line;
  std::map<std::string, std::string> versions;
  GenOptions gen;
  // `--weight OP=W` and `--format V` as given (campaign.json keeps them; a
  // resume applies them to `gen` again).
  std::vector<std::string> gen_weights;
  std::string gen_format;
  // When every strategy is external (real Thunder, PyTorch functionalize)
  // and no mutant is asked for, the ops they cannot run (the capability
  // probe, compilers::unsupported_op_weights) get weight 0 in `gen`, and
  // not_supported says which ("not supported by thunder 0.2.6: fill_, ...").
  // campaign.json keeps the weights: --resume reuses them without probing.
  bool capability_weights = true;
  std::vector<std::string> not_supported;  // filled by run_campaign
  // Fault injection for the campaign's own tests: these programs abort or
  // hang inside the worker.
  std::vector<uint64_t> test_crash_on, test_hang_on;
  // Tests: a worker's bound on one answer of an external compiler (0: the
  // case timeout's kExternalShareOfCase), so that a test can make the
  // campaign's own kill at the case timeout catch a compiler's hang.
  double test_external_timeout_s = 0;
};

}  // namespace af::fuzz
