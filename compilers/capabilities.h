// The capability probe: what an external strategy cannot run (ops, forms),
// probed once per strategy and system version and cached across processes.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace af::compilers {
// What an external strategy cannot run: for every op of the vocabulary
// (ir::all_ops() without the ops strategies introduce), tiny programs (the
// op alone on an input; after an in-place write to that input; on a
// strided view that is then written; on one of two inputs sharing a
// storage; each form of its arguments, e.g. add_ with a number and with a
// tensor) go through the strategy next to the same programs without the
// op. An op is unsupported when one of its programs raises an unsupported
// error (classify_external_error) while the program without it runs.
struct Capabilities {
  std::string strategy;
  std::string versions;                            // "torch 2.9.1, thunder 0.2.6"; "" when not probed
  std::map<std::string, std::string> unsupported;  // op name -> "ErrorType: message [probe]" of one failing probe
  // Contexts whose program without any op already failed (so no op was
  // judged there): variant -> "ErrorType: message" (e.g. thunder-dataflow
  // raises AssertionError on a written strided view).
  std::map<std::string, std::string> inconclusive;
  // Forms of program (not ops) the strategy fails on while the same
  // program without that form runs: form -> "ErrorType: message". A
  // campaign generates around them (fuzz::GenOptions), so that one known
  // crash does not end most of its programs. Forms: see kFormChecks in
  // capabilities.cc ("aliased-inputs-of-different-sizes").
  std::map<std::string, std::string> failing_forms;
  int probes = 0;  // programs run (0 when read from the cache)
  bool from_cache = false;
  bool available = false;  // the strategy's Python is installed and the probe ran
  std::string error;       // why not available
  // Why the probe as a whole concluded nothing ("" when it did): the first
  // control program hung or killed the Python, or the probe ran past its
  // total bound. Nothing is then known unsupported, and nothing is cached.
  std::string inconclusive_why;
  std::string cache_path;
};

// The capabilities of `strategy`, probed at its first use in this process
// and cached across processes per strategy and system version in
// $AF_CAPABILITY_CACHE, else $XDG_CACHE_HOME/aliasfuzz/capabilities, else
// ~/.cache/aliasfuzz/capabilities (STRATEGY--VERSIONS.json, written
// atomically; a cache of another version is never read). refresh: probe
// again and rewrite the cache. Unavailable (no Python): available false.
struct ProbeLimits {
  double program_s = 60;   // one probe program's answer (a campaign: its case timeout)
  double total_s = 600;    // the whole probe; past it the probe is inconclusive
  // Called after each probe program: programs run, programs at most.
  std::function<void(int done, int most)> progress;
};
Capabilities probe_capabilities(const std::string& strategy, bool refresh = false, const ProbeLimits& limits = {});
// Forgets what this process probed or read (the next call reads the cache): for tests.
void forget_capabilities();

// op name -> 0.0 for every op `strategy` cannot run (empty when it can run
// them all or is not installed): fuzz::GenOptions::op_weights takes it
// directly (weight 0 disables an op).
std::map<std::string, double> unsupported_op_weights(const std::string& strategy);

// "not supported by thunder 0.2.6: fill_, sigmoid_" ("" when nothing is).
std::string capabilities_summary(const Capabilities& c);
// "thunderfx (torch 2.9.1, thunder 0.2.6) fails on aliased-inputs-of-different-sizes
// (RuntimeError: ...)" ("" when it fails on no form).
std::string failing_forms_summary(const Capabilities& c);

// The probe's programs for one op (.af text, valid) with their names, and
// the controls (the same programs without the op): exposed for tests.
struct ProbeProgram {
  std::string name;     // "OP/FORM/VARIANT" or "control/VARIANT"
  std::string op;       // "" for a control
  std::string variant;  // alone, after-inplace, on-view, aliased-inputs
  std::string text;
};
std::vector<ProbeProgram> probe_programs();

}  // namespace af::compilers
