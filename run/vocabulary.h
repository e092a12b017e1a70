// The settings of one run, typed: strategy, mutant, reorder policy, fusion
// policy, target and checked mode. Each is parsed once from its
// command-line spelling (the same spellings settings.json, campaign.json and
// findings.jsonl store) by the parsers here, and printed back from the same
// tables, so nothing else in aliasfuzz compares one of these names as a
// string.
//
// It sits below every layer that consumes it (the schedulers' passes, the
// Halide lowering, the checking core, the command line); the target is here
// too so that the lowering and the checking core share one list.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run/ua_fixes.h"

namespace af::run {

// "a, b, c": the valid choices an error message names.
std::string join_names(const std::vector<std::string>& names);

// --- strategies -------------------------------------------------------------

enum class StrategyKind { Eager, None, Functionalize, UpdateAliases };
struct Strategy {
  StrategyKind kind = StrategyKind::Eager;
  UaFixes fixes;                   // UpdateAliases: the fixes the name selects
  std::string spelling = "eager";  // as written (update_aliases+war+args keeps its order)
};
std::optional<Strategy> parse_strategy(const std::string& name);
// Every strategy this package implements (update_aliases+FIX[+FIX...] aside).
const std::vector<std::string>& strategy_names();
// The one must-agree list: eager, functionalize, update_aliases-ordered, update_aliases-min.
const std::vector<std::string>& must_agree_strategy_names();
// Those under study that campaigns run by default: none, update_aliases.
const std::vector<std::string>& under_study_strategy_names();
bool is_must_agree(const std::string& strategy);

// --- mutants (the bug zoo) --------------------------------------------------

enum class Mutant {
  None,
  UaNoMaybeViews,
  UaNoMultiOutput,
  UaWritesOnly,
  DceDropsOutputless,
  FusionStaleCopy,
  FnPerInputBase,
  FnNoRegenerate,
  LowerHalideAlias,
};
struct MutantInfo {
  Mutant mutant;
  const char* name;
  // The strategy a mutant runs with when a run names none.
  const char* default_strategy;
  // It only fires in regions of more than one statement: campaigns never
  // pair it with the fusion policy `none`.
  bool needs_fused_regions;
  // It lives in the Halide lowering: on the interpreter tier it changes nothing.
  bool needs_halide_target;
};
// Every mutant (not Mutant::None), in the order help texts list them.
const std::vector<MutantInfo>& mutant_table();
const MutantInfo& mutant_info(Mutant m);  // m != Mutant::None
// "" is Mutant::None.
std::optional<Mutant> parse_mutant(const std::string& name);
// "" for Mutant::None.
std::string mutant_name(Mutant m);
const std::vector<std::string>& mutant_names();

// --- reorder policies -------------------------------------------------------

enum class ReorderKind { Program, Random, Fusion, Asap, Alap, ThunderDataflow };
struct Reorder {
  ReorderKind kind = ReorderKind::Program;
  uint64_t seed = 0;  // Random only
};
std::optional<Reorder> parse_reorder(const std::string& name);
std::string reorder_name(const Reorder& r);
// program, random:SEED, fusion, asap, alap, thunder-dataflow
const std::vector<std::string>& reorder_policy_names();
// Every policy without a seed (all but random:SEED), parsed.
const std::vector<Reorder>& seedless_reorders();
// A policy as a table lists it, without a seed: a seedless policy, or
// "random", which stands for random:SEED with a seed chosen per program.
std::optional<ReorderKind> parse_reorder_kind(const std::string& name);

// --- fusion policies --------------------------------------------------------

enum class Fusion { None, Greedy, Consecutive, Dataflow };
std::optional<Fusion> parse_fusion(const std::string& name);
const char* fusion_name(Fusion f);
const std::vector<std::string>& fusion_policy_names();  // none, greedy, consecutive, dataflow
const std::vector<Fusion>& fusion_policies();           // the same, parsed

// --- targets ----------------------------------------------------------------

// interp: the reference kernels (schedulers::interpret); the others run the
// Halide lowering (a binary that links it registers an executor).
enum class Target { Interp, Host, OpenCL, Cuda, Ptx };
std::optional<Target> parse_target(const std::string& name);
const char* target_name(Target t);
const std::vector<std::string>& target_names();  // interp, host, opencl, cuda, ptx

// --- one run ----------------------------------------------------------------

struct RunConfig {
  Strategy strategy;
  Mutant mutant = Mutant::None;
  Reorder reorder;
  Fusion fusion = Fusion::None;
  Target target = Target::Interp;
  bool checked = false;  // device-side checks (Halide targets)
};

// The settings as spelled on a command line, in settings.json and in
// findings.jsonl (strategy "" runs the mutant's default strategy).
struct SpelledSpec {
  std::string strategy, inject, reorder = "program", fusion = "none", target = "interp";
  bool checked = false;
  bool recall = false;  // external strategies only (run/spec.h RunSpec::recall)
  bool across_processes = false;  // with recall (RunSpec::across_processes)
};

// The strategy a mutant runs with when a run names none.
std::string strategy_for_mutant(Mutant m);

// Parses every spelled setting of one of our strategies (run/spec.h
// parse_spec takes the external ones too); on a usage error (an unknown
// strategy, mutant, policy or target) returns the message naming the
// valid choices. `out` may be null (a check only).
std::optional<std::string> parse_config(const SpelledSpec& spelled, RunConfig* out);

}  // namespace af::run
