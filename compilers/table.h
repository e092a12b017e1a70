// External strategies under study: a program run through a real compiler
// in Python and compared with eager PyTorch of the same Python. Every one
// is an entry of one table (external.cc, kBuiltins): the Python it runs in
// and a Python expression that compiles `fn`, the program's function:
//
//   torch-functionalize        functorch.experimental.functionalize(fn), /usr/bin/python3 (PyTorch 1.13)
//   thunder                    thunder.jit(fn) with its defaults (CPU, torch executor)
//   thunder-dataflow           thunder.jit(fn, fusion_type="dataflow")
//   thunder-no-alias-updates   thunder.jit(fn, skip_inplace_alias_updates=True)
//   inductor                   torch.compile(fn, backend="inductor") (CPU)
//   aot-eager                  torch.compile(fn, backend="aot_eager")
//   thunderfx                  thunder.dynamo.thunderfx(fn) (Thunder as a torch.compile backend)
//   torch-func-functionalize   torch.func.functionalize(fn)
//   inductor@2.15.0, ...       a torch.compile-family strategy under one torch
//                              version (.venvs/torch-2.15.0; `./aliasfuzz
//                              setup --torch 2.15.0`); without '@', the newest
//                              installed
//   py:MODULE:FUNCTION[@PYTHON]  MODULE.FUNCTION(fn): any compiler, in PYTHON
//                              (default: the venv's); MODULE importable there
//                              (the working directory is on sys.path)
//
// The Thunder ones and py: run in .venv-thunder (torch 2.9.1,
// lightning-thunder 0.2.6; `./aliasfuzz setup --thunder`), torch-functionalize
// in Debian's PyTorch 1.13, the torch.compile family under any installed
// torch (installed_torches(): .venv-thunder's 2.9.1 is one). Eager runs fn on
// one set of storages, the compiled function on a fresh, independent set
// with the same aliasing (oracles/torch_function.h); Dynamo is reset before
// every program, so each compiles afresh. Programs go to one long-lived
// Python process per interpreter (compilers/external_runner.py), started
// lazily on first use and restarted after a crash, a timeout or a fork.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace af::compilers {

// One external strategy: an entry of the built-in table or a parsed py: spec.
struct ExternalStrategy {
  enum class Python { Venv, System, Given, Torch };
  std::string name;
  // The system whose code runs (issue #57: a root defect belongs to one):
  // strategies that run one code base are one system (thunder, its
  // dataflow fusion and thunderfx are "thunder"; aot-eager and inductor
  // are "torch.compile"); a py: spec is its own.
  std::string system;
  Python python = Python::Venv;
  std::string python_path;  // Python::Given: the path after '@'
  // Python::Torch: the torch version after '@' (NAME@VERSION); "" when the
  // name has none, which means the newest installed (newest_torch()).
  std::string torch_version;
  std::string imports;   // Python statements that make `compile` evaluable
  std::string compile;   // a Python expression in `fn` giving the compiled callable
  bool thunder = false;  // lightning-thunder's version belongs to its versions
  // Attribution: `lower_stage` names the strategy that runs this one's
  // front stages alone (inductor: aot-eager, AOTAutograd without Inductor).
  // When both run, a divergence both show is `lower_label`'s, one only this
  // strategy shows is `own_label`'s.
  std::string lower_stage, lower_label, own_label;
  // A Python expression in `cfn` (the compiled callable, after a call): the
  // parts of the program the compiler handed back to eager PyTorch (e.g.
  // thunderfx's split reasons), as strings; "" when it cannot tell. The
  // capability probe counts an op it hands back as unsupported.
  std::string fallbacks;
  // A torch.compile-family strategy (inductor, aot-eager,
  // torch-func-functionalize): it runs under any installed torch,
  // NAME@VERSION in .venvs/torch-VERSION (`./aliasfuzz setup --torch VERSION`).
  bool versioned = false;
  // Its transform is C++ (functionalization): evidence of where it goes
  // wrong is the aten ops it dispatches, not only its Python functions.
  bool native = false;
  // Its compiled callable is torch.compile's (inductor, aot-eager): the
  // backend is one torch.compile (and its compiler_bisector) can switch.
  bool torch_compile() const { return compile.rfind("torch.compile(", 0) == 0; }
};

// The built-in names (not the py: ones), in table order.
const std::vector<std::string>& external_strategies();
// The table entry of `strategy` (NAME, NAME@VERSION, a Thunder NAME+OPTION),
// or the parsed `py:MODULE:FUNCTION[@PYTHON]`; nullopt for any other name
// (a malformed py: spec included).
std::optional<ExternalStrategy> external_strategy(const std::string& strategy);
bool is_external_strategy(const std::string& strategy);
// Thunder's options that turn one of its passes off (issue #57: the
// smallest change of its options that removes a divergence says which
// pass goes wrong). `NAME+OPTION` (thunderfx+no-alias-updates) is the
// Thunder strategy NAME with that keyword argument added to its compile
// call, in campaigns, `run` and repro.py alike.
struct ThunderOption {
  const char* name;       // no-alias-updates
  const char* keyword;    // skip_inplace_alias_updates=True
  const char* turns_off;  // what it turns off, as a person reads it
};
// The options that apply to a Thunder strategy (not one its compile call
// already sets), in the order evidence tries them; empty for any other.
std::vector<ThunderOption> thunder_options(const ExternalStrategy& e);
std::vector<std::string> thunder_option_names();  // every OPTION, for help texts
// The option whose keyword argument is `keyword` ("executors=[]"); nullptr for none.
const ThunderOption* thunder_option_by_keyword(const std::string& keyword);
bool is_thunder_strategy(const std::string& strategy);
// The system a strategy runs, as a report names it, given the versions it
// reported ("thunder 0.2.6 (torch 2.9.1)"): a Thunder strategy by Thunder's
// version, and by its own name unless it is thunder.jit with its defaults
// ("thunder 0.2.6", "thunder 0.2.6 (thunder-dataflow)"); any other as
// "NAME (VERSIONS)".
std::string system_label(const std::string& strategy, const std::string& versions);
// The installed torch versions a versioned strategy can run under, oldest
// first, with their Pythons: every .venvs/torch-VERSION (under $AF_TORCH_VENVS,
// then the checkout, as find_thunder_python looks), and .venv-thunder's
// pinned torch. Tests stand a stub version up with $AF_TORCH_VENVS.
struct InstalledTorch {
  std::string version, python;
};
std::vector<InstalledTorch> installed_torches();
std::string newest_torch();  // "" when none is installed
// `strategy` with its torch version spelled out: a versioned built-in
// without '@' gets `version` ("" = newest_torch()); anything else, and any
// strategy when no torch is installed, comes back as it is.
std::string with_torch_version(const std::string& strategy, const std::string& version = "");
// The strategy without its torch version ("aot-eager@2.15.0" -> "aot-eager"):
// one bug on two versions has one signature.
std::string strategy_base(const std::string& strategy);
// Whether `v` is spelled as a torch version (2.15.0, 2.16.0.dev20261201).
bool is_torch_version(const std::string& v);
// Numeric order of dotted versions ("2.9.1" < "2.15.0"; a "+cu128" suffix ignored).
bool version_less(const std::string& a, const std::string& b);
// Why `strategy` (starting with "py:") is malformed, "" when it is well formed
// or not a py: spec at all.
std::string py_spec_error(const std::string& strategy);

// The .venv-thunder Python: $AF_THUNDER_PYTHON, else .venv-thunder/bin/python
// under $AF_ROOT, $BUILD_WORKSPACE_DIRECTORY, the directories above the
// binary (and the working directory). Empty when not installed.
std::string find_thunder_python();
// The Python that runs `strategy`: the thunder venv's, $AF_TORCH_PYTHON or
// /usr/bin/python3 for torch-functionalize, a py: spec's own, a versioned
// strategy's torch (the newest installed without '@'). Empty when not
// installed.
std::string external_python(const ExternalStrategy& e);
// Why external_python(e) is empty, with the way to install it.
std::string external_unavailable(const ExternalStrategy& e);
// The same for a strategy's name (parsed here: for the edges, a command's
// flag or a test; a RunSpec holds the parsed strategy).
std::string external_python(const std::string& strategy);
std::string external_unavailable(const std::string& strategy);
// compilers/external_runner.py ($AF_EXTERNAL_RUNNER, runfiles, source tree); empty when not found.
std::string find_external_runner();

}  // namespace af::compilers
