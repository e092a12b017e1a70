// The external strategies through real Python: torch-functionalize with
// /usr/bin/python3 (Debian's torch 1.13), the Thunder ones with the
// .venv-thunder Python named by AF_THUNDER_PYTHON (tools/run_tests.sh sets
// it when the venv exists; otherwise those tests skip).
#include "compilers/test_util.h"
#include "compilers/capabilities.h"
#include "compilers/runner.h"
#include "compilers/table.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/spelling_cases.h"
#include "oracles/torch_bridge.h"
#include "oracles/torch_function.h"

namespace af::compilers {
using oracles::Observables;
using oracles::run_eager;
using oracles::TorchResult;

using oracles::compare;
using oracles::functional_form;
using oracles::geometry_text;
using oracles::torch_function_module;
using oracles::torch_script;
using oracles::TorchRunner;
namespace {

using S = ExternalResult::Status;

std::string corpus_dir() {
  for (const char* var : {"TEST_SRCDIR"})
    if (const char* e = std::getenv(var)) return std::string(e) + "/aliasfuzz/corpus";
  return "corpus";
}

ir::Program load(const std::string& rel) {
  std::ifstream f(corpus_dir() + "/" + rel);
  std::stringstream ss;
  ss << f.rdbuf();
  auto p = ir::parse_and_validate(ss.str());
  EXPECT_TRUE(static_cast<bool>(p)) << rel;
  return p ? *p : ir::Program();
}

Observables oracle(const ir::Program& p) { return run_eager(p, *ir::analyze(p)); }

TEST(TorchFunction, SplitsTheProgramIntoSetupAndFunction) {
  const ir::Program p = load("examples/overlapping_inputs.af");
  const std::string fn = functional_form(p, torch_script(p));
  EXPECT_NE(fn.find("def _setup():"), std::string::npos) << fn;
  EXPECT_NE(fn.find("def _fn(a, b):"), std::string::npos) << fn;
  EXPECT_NE(fn.find("    return [a, b], {\"s0\": s0}"), std::string::npos) << fn;
  EXPECT_NE(fn.find("    b.exp_()"), std::string::npos) << fn;
  EXPECT_NE(fn.find("    return [r]"), std::string::npos) << fn;
  const std::string m = torch_function_module(p);
  EXPECT_EQ(m.find("if __name__"), std::string::npos);
  EXPECT_NE(m.find("def _observe("), std::string::npos);
  EXPECT_EQ(functional_form(p, "not a script"), "");
}

TEST(External, StrategyNames) {
  EXPECT_TRUE(is_external_strategy("torch-functionalize"));
  EXPECT_TRUE(is_thunder_strategy("thunder-dataflow"));
  EXPECT_TRUE(is_thunder_strategy("thunder-no-alias-updates"));
  EXPECT_FALSE(is_thunder_strategy("torch-functionalize"));
  EXPECT_FALSE(is_external_strategy("functionalize"));
  EXPECT_EQ(run_external(ir::Program(), "update_aliases").status, S::Unavailable);
}

// NAME+OPTION: a Thunder strategy with one pass off, its keyword added to
// the compile call; an option its call already sets, one only thunderfx
// has, an unknown one and a non-Thunder strategy are not strategies.
TEST(External, ThunderOptions) {
  const auto fx = external_strategy("thunderfx+no-alias-updates");
  ASSERT_TRUE(fx.has_value());
  EXPECT_EQ(fx->name, "thunderfx+no-alias-updates");
  EXPECT_EQ(fx->compile, "thunderfx(fn, skip_inplace_alias_updates=True)");
  EXPECT_TRUE(fx->thunder);
  EXPECT_EQ(external_strategy("thunder-dataflow+no-executors")->compile,
            "thunder.jit(fn, fusion_type=\"dataflow\", executors=[])");
  EXPECT_EQ(external_strategy("thunderfx+no-split-autograd")->compile,
            "thunderfx(fn, thunderfx_disable_split_autograd=True)");
  for (const char* bad : {"thunder-no-alias-updates+no-alias-updates", "thunder+no-split-autograd", "thunder+nope",
                          "inductor+no-executors", "thunder+", "thunderfx+no-executors+no-copy-check"})
    EXPECT_FALSE(is_external_strategy(bad)) << bad;
  std::vector<std::string> names;
  for (const auto& o : thunder_options(*external_strategy("thunder"))) names.push_back(o.name);
  EXPECT_EQ(names, (std::vector<std::string>{"no-alias-updates", "no-executors", "no-copy-check"}));
  EXPECT_TRUE(thunder_options(*external_strategy("aot-eager")).empty());
}

TEST(External, OneTableAndPySpecs) {
  EXPECT_EQ(external_strategies().size(), 8u);
  for (const char* s : {"inductor", "aot-eager", "thunderfx", "torch-func-functionalize"})
    EXPECT_TRUE(is_external_strategy(s)) << s;
  EXPECT_TRUE(is_thunder_strategy("thunderfx"));
  EXPECT_FALSE(is_thunder_strategy("inductor"));
  EXPECT_EQ(external_strategy("aot-eager")->compile, "torch.compile(fn, backend=\"aot_eager\")");
  // Attribution: inductor's front stages run alone as aot-eager; every
  // lower stage named in the table is itself a strategy of the table.
  EXPECT_EQ(external_strategy("inductor")->lower_stage, "aot-eager");
  for (const auto& name : external_strategies()) {
    const auto e = external_strategy(name);
    if (e->lower_stage.empty()) continue;
    EXPECT_TRUE(is_external_strategy(e->lower_stage)) << name;
    EXPECT_FALSE(e->lower_label.empty() || e->own_label.empty()) << name;
  }
  using Py = ExternalStrategy::Python;
  const auto e = external_strategy("py:my.pkg:compile_it@/opt/py/bin/python");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->python, Py::Given);
  EXPECT_EQ(e->python_path, "/opt/py/bin/python");
  EXPECT_EQ(e->imports, "import my.pkg");
  EXPECT_EQ(e->compile, "my.pkg.compile_it(fn)");
  EXPECT_EQ(external_strategy("py:m:f")->python, Py::Venv);  // the venv's Python by default
  EXPECT_EQ(py_spec_error("py:m:f"), "");
  EXPECT_EQ(py_spec_error("thunder"), "");  // not a py: spec
  EXPECT_EQ(external_python("py:m:f@/nonexistent/python"), "");
  EXPECT_NE(external_unavailable("py:m:f@/nonexistent/python").find("/nonexistent/python"), std::string::npos);
  for (const char* bad : {"py:", "py:m", "py:m:", "py::f", "py:m:f:g", "py:1m:f", "py:m.:f", "py:m:f-g", "py:m:f@",
                          "py:m:f@/a b", "py:m:f@/a'b"}) {
    EXPECT_FALSE(is_external_strategy(bad)) << bad;
    EXPECT_NE(py_spec_error(bad), "") << bad;
  }
}

// oracles/testdata/toy_compiler.py: drop_inplace_writes loses every
// in-place method's write (needs only a torch with TorchFunctionMode, so
// Debian's 1.13 runs it); wrap is torch.compile with a custom backend.
const char* kWrongToy = "py:oracles.testdata.toy_compiler:drop_inplace_writes@/usr/bin/python3";

TEST(PyStrategy, AWrongToyCompilerDiverges) {
  REQUIRE_DEBIAN_TORCH();
  const ir::Program p = load("examples/inplace_on_input.af");
  const ExternalResult r = run_external(p, kWrongToy);
  ASSERT_EQ(r.status, S::Ok) << r.error_type << ": " << r.message;
  EXPECT_FALSE(compare(p, oracle(p), r.eager));
  EXPECT_TRUE(compare(p, r.eager, r.actual).has_value()) << "the dropped add_ must show";
  // A module that does not import is not installed, never a finding.
  const ExternalResult missing = run_external(p, "py:oracles.testdata.no_such_module:f@/usr/bin/python3");
  EXPECT_EQ(missing.status, S::Unavailable);
  EXPECT_NE(missing.message.find("No module named"), std::string::npos) << missing.message;
}

TEST(NewStrategies, EachAgreesOnAnInplaceWriteAndReportsVersions) {
  REQUIRE_THUNDER();
  // One program each: torch.compile costs seconds per program.
  const ir::Program p = load("examples/inplace_on_input.af");
  for (const char* s :
       {"aot-eager", "torch-func-functionalize", "thunderfx", "inductor", "py:oracles.testdata.toy_compiler:wrap"}) {
    const ExternalResult r = run_external(p, s);
    ASSERT_EQ(r.status, S::Ok) << s << ": " << r.error_type << ": " << r.message;
    EXPECT_FALSE(compare(p, r.eager, r.actual)) << s;
  }
  EXPECT_EQ(external_versions("inductor").rfind("torch 2.", 0), 0u) << external_versions("inductor");
  EXPECT_EQ(external_versions("inductor").find("thunder"), std::string::npos) << external_versions("inductor");
  EXPECT_NE(external_versions("thunderfx").find(", thunder "), std::string::npos) << external_versions("thunderfx");
}

// thunderfx hands what Thunder cannot run (as_strided in the body) back to
// PyTorch: its split reasons come back as fallbacks (what the capability
// probe counts as unsupported); a program Thunder runs whole has none.
TEST(NewStrategies, ThunderfxReportsWhatItHandsBackToPyTorch) {
  REQUIRE_THUNDER();
  auto with = ir::parse_and_validate(
      "aliasfuzz 1\nstorage s0 f32[12] = iota(1, 1)\ninput x = s0\nr = as_strided(x, [2, 2], [4, 1], 1)\n"
      "t = mul(r, 2.0)\nreturn t\n");
  auto without =
      ir::parse_and_validate("aliasfuzz 1\nstorage s0 f32[12] = iota(1, 1)\ninput x = s0\nt = mul(x, 2.0)\nreturn t\n");
  ASSERT_TRUE(with && without);
  const ExternalResult a = run_external(*with, "thunderfx");
  ASSERT_EQ(a.status, S::Ok) << a.error_type << ": " << a.message;
  ASSERT_FALSE(a.fallbacks.empty());
  EXPECT_NE(a.fallbacks.front().find("as_strided"), std::string::npos) << a.fallbacks.front();
  const ExternalResult b = run_external(*without, "thunderfx");
  ASSERT_EQ(b.status, S::Ok) << b.error_type << ": " << b.message;
  EXPECT_TRUE(b.fallbacks.empty()) << b.fallbacks.front();
  EXPECT_TRUE(run_external(*with, "aot-eager").fallbacks.empty());  // no such record: nothing claimed
}

TEST(TorchFunctionalize, AgreesOnAnUnaliasedProgram) {
  REQUIRE_DEBIAN_TORCH();
  const ir::Program p = load("examples/inplace_on_input.af");
  const ExternalResult r = run_external(p, "torch-functionalize");
  ASSERT_EQ(r.status, S::Ok) << r.error_type << ": " << r.message;
  EXPECT_FALSE(compare(p, oracle(p), r.eager));  // torch 1.13 eager is the oracle
  EXPECT_FALSE(compare(p, r.eager, r.actual));
}

TEST(TorchFunctionalize, DivergesOnOverlappingInputs) {
  REQUIRE_DEBIAN_TORCH();
  // functionalize assumes unaliased inputs: the write through b is not
  // seen by the read of a, which overlaps it. A finding under study.
  const ir::Program p = load("examples/overlapping_inputs.af");
  const ExternalResult r = run_external(p, "torch-functionalize");
  ASSERT_EQ(r.status, S::Ok) << r.error_type << ": " << r.message;
  EXPECT_FALSE(compare(p, oracle(p), r.eager));
  auto mm = compare(p, r.eager, r.actual);
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(mm->observable, "return 0");
}

// Format v1.3: the runners report each input's geometry after eager and
// after the compiled call. functorch's functionalize (1.13) replays an
// input's metadata with the functional result's strides, not eager's: the
// transposed x keeps strides [1, 2] where eager's has [2, 5] (the campaign
// of seed 1801 found it; torch.func.functionalize in 2.9 does the same).
TEST(TorchFunctionalize, LosesTheStridesOfAnInputsMetadataMutation) {
  REQUIRE_DEBIAN_TORCH();
  auto p = ir::parse_and_validate(
      "aliasfuzz 1\nstorage s0 f32[3] = full(0.0)\ninput x0 = as_strided(s0, [1, 2], [5, 2], 0)\n"
      "add_(x0, 0.0)\nt0 = transpose_(x0, 1, 0)\n");
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  const ExternalResult r = run_external(*p, "torch-functionalize");
  ASSERT_EQ(r.status, S::Ok) << r.error_type << ": " << r.message;
  EXPECT_FALSE(compare(*p, oracle(*p), r.eager));  // eager 1.13's x0 is the oracle's
  ASSERT_EQ(r.eager.inputs.size(), 1u);
  EXPECT_EQ(geometry_text(r.eager.inputs[0]), "sizes [2, 1] strides [2, 5] offset 0");
  const auto mm = compare(*p, r.eager, r.actual);
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(mm->observable, "input x0");
  EXPECT_EQ(mm->what, "sizes [2, 1] strides [1, 2] offset 0, expected sizes [2, 1] strides [2, 5] offset 0");
}

// The torch 2.9 runners: aot_eager replays a transpose_ of an input exactly;
// Thunder refuses the op (unsupported, no finding), and on a program
// without metadata ops its runs report the inputs' declared geometry.
TEST(NewStrategies, InputGeometryThroughTheVenvRunners) {
  REQUIRE_THUNDER();
  auto p = ir::parse_and_validate(
      "aliasfuzz 1\nstorage s0 f32[6] = iota(0, 1)\ninput x = as_strided(s0, [2, 3], [3, 1], 0)\n"
      "y = transpose_(x, 0, 1)\nz = mul(y, 2.0)\nreturn z\n");
  ASSERT_TRUE(p.ok());
  const ExternalResult a = run_external(*p, "aot-eager");
  ASSERT_EQ(a.status, S::Ok) << a.error_type << ": " << a.message;
  EXPECT_FALSE(compare(*p, oracle(*p), a.eager));
  EXPECT_FALSE(compare(*p, a.eager, a.actual));
  ASSERT_EQ(a.actual.inputs.size(), 1u);
  EXPECT_EQ(geometry_text(a.actual.inputs[0]), "sizes [3, 2] strides [1, 3] offset 0");
  const ExternalResult t = run_external(*p, "thunder");
  ASSERT_EQ(t.status, S::StrategyError);
  EXPECT_TRUE(is_unsupported_error(t.error_type, t.message)) << t.error_type << ": " << t.message;
  const ir::Program q = load("examples/inplace_on_input.af");
  const ExternalResult u = run_external(q, "thunder");
  ASSERT_EQ(u.status, S::Ok) << u.error_type << ": " << u.message;
  EXPECT_EQ(u.actual.inputs.size(), q.inputs.size());
  EXPECT_FALSE(compare(q, u.eager, u.actual));
}

TEST(Thunder, UnavailableWhenThePythonIsMissing) {
  const char* old = std::getenv("AF_THUNDER_PYTHON");
  const std::string keep = old ? old : "";
  setenv("AF_THUNDER_PYTHON", "/nonexistent/python", 1);
  const ExternalResult r = run_external(load("examples/inplace_on_input.af"), "thunder");
  EXPECT_EQ(r.status, S::Unavailable);
  EXPECT_NE(r.message.find("./aliasfuzz setup --thunder"), std::string::npos) << r.message;
  if (old)
    setenv("AF_THUNDER_PYTHON", keep.c_str(), 1);
  else
    unsetenv("AF_THUNDER_PYTHON");
}

TEST(Thunder, InplaceOnAnInputAgreesUnderEveryThunderStrategy) {
  REQUIRE_THUNDER();
  // Thunder documents in-place ops on inputs (copied back to the input).
  const ir::Program p = load("examples/inplace_on_input.af");
  for (const std::string s : {"thunder", "thunder-dataflow", "thunder-no-alias-updates"}) {
    const ExternalResult r = run_external(p, s);
    ASSERT_EQ(r.status, S::Ok) << s << ": " << r.error_type << ": " << r.message;
    EXPECT_FALSE(compare(p, oracle(p), r.eager)) << s;  // torch 2.9 eager agrees with the oracle
    EXPECT_FALSE(compare(p, r.eager, r.actual)) << s;
  }
  EXPECT_NE(external_versions("thunder").find("thunder"), std::string::npos) << external_versions("thunder");
}

TEST(Thunder, BridgeRoundTripOnTheCorpus) {
  REQUIRE_THUNDER();
  // Every valid corpus program goes through the venv's runner: eager
  // PyTorch 2.9 gives the oracle's observables, and thunder.jit either
  // runs (agreeing or not: findings) or raises (an error-kind finding);
  // the runner itself never fails, and it is never restarted.
  ExternalOptions o;
  o.python = find_thunder_python();
  ExternalRunner runner(o);
  int n = 0, ok = 0, agree = 0, raised = 0;
  for (const char* dir : {"examples", "regressions"})
    for (const auto& e : std::filesystem::directory_iterator(corpus_dir() + "/" + dir)) {
      if (e.path().extension() != ".af") continue;
      std::ifstream f(e.path());
      std::stringstream ss;
      ss << f.rdbuf();
      auto p = ir::parse_and_validate(ss.str());
      if (!p) continue;  // the examples of errors
      ++n;
      const ExternalResult r = runner.run(*p, *external_strategy("thunder"));
      ASSERT_TRUE(r.status == S::Ok || r.status == S::StrategyError)
          << e.path() << ": " << r.error_type << ": " << r.message;
      EXPECT_FALSE(compare(*p, oracle(*p), r.eager)) << e.path();
      if (r.status == S::Ok) {
        ++ok;
        agree += !compare(*p, r.eager, r.actual);
      } else {
        ++raised;
      }
    }
  std::printf("thunder on the corpus: %d programs, %d ran (%d agree), %d raised\n", n, ok, agree, raised);
  EXPECT_GE(n, 5);
  EXPECT_GE(ok, 1);
  EXPECT_EQ(runner.restarts(), 0);
}

TEST(Thunder, OverlappingInputsDivergeUnlessAliasUpdatesAreSkipped) {
  REQUIRE_THUNDER();
  // A finding under study (lightning-thunder 0.2.6, torch 2.9.1 pinned):
  // two inputs that are overlapping windows of one storage. With its
  // default alias handling thunder.jit applies exp_ to a's window (b's
  // storage offset is lost) and r reads that; with
  // skip_inplace_alias_updates=True the trace happens to be eager's.
  const ir::Program p = load("examples/overlapping_inputs.af");
  const ExternalResult d = run_external(p, "thunder");
  ASSERT_EQ(d.status, S::Ok) << d.error_type << ": " << d.message;
  EXPECT_TRUE(compare(p, d.eager, d.actual).has_value());
  const ExternalResult k = run_external(p, "thunder-no-alias-updates");
  ASSERT_EQ(k.status, S::Ok) << k.error_type << ": " << k.message;
  EXPECT_FALSE(compare(p, k.eager, k.actual).has_value());
}

TEST(Thunder, AnUnsupportedOpIsAnError) {
  REQUIRE_THUNDER();
  auto p =
      ir::parse_and_validate("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\nfill_(x, 2.0)\nreturn x\n");
  ASSERT_TRUE(static_cast<bool>(p));
  const ExternalResult r = run_external(*p, "thunder");
  ASSERT_EQ(r.status, S::StrategyError) << "thunder 0.2.6 has no Tensor.fill_";
  EXPECT_FALSE(r.error_type.empty());
  EXPECT_TRUE(is_unsupported_error(r.error_type, r.message)) << r.error_type << ": " << r.message;
  EXPECT_FALSE(compare(*p, oracle(*p), r.eager));  // eager still ran
}

// The PyTorch script's user spellings (oracles/spelling_cases.h): eager
// PyTorch 2.9 gives the oracle's values, and thunder.jit never says they
// are unsupported (before: aten.slice, aten.alias, torch.as_strided and
// clone(memory_format=...) all were).
TEST(Thunder, AcceptsTheScriptsSpellings) {
  REQUIRE_THUNDER();
  namespace cases = oracles::spelling_cases;
  for (const char* text : {cases::kSlices, cases::kAliases, cases::kClones, cases::kSetitems}) {
    auto p = ir::parse_and_validate(text);
    ASSERT_TRUE(static_cast<bool>(p)) << text;
    for (const std::string s : {"thunder", "thunder-no-alias-updates"}) {
      const ExternalResult r = run_external(*p, s);
      ASSERT_TRUE(r.status == S::Ok || r.status == S::StrategyError) << s << ": " << r.error_type << ": " << r.message;
      EXPECT_FALSE(compare(*p, oracle(*p), r.eager)) << s << "\n" << text;
      if (r.status == S::StrategyError)
        EXPECT_FALSE(is_unsupported_error(r.error_type, r.message)) << s << ": " << r.error_type << ": " << r.message;
    }
  }
}

// ---- unsupported or internal: the classification of compiler exceptions

TEST(ExternalErrors, UnsupportedOrInternal) {
  struct Case {
    const char* type;
    const char* message;
    bool unsupported;
  };
  // Messages as lightning-thunder 0.2.6 (and PyTorch inside it) raise them.
  const Case cases[] = {
      {"AttributeError", "Unknown attribute fill_", true},
      {"AttributeError", "Unknown attribute sigmoid_", true},
      {"NotImplementedError",
       "Trying to call function torch.as_strided, but it is not yet supported. Please file an issue requesting "
       "support.",
       true},
      {"NotImplementedError", "only preserve_format is currently supported", true},
      {"InterpreterError",
       "Encountered exception RuntimeError: aten.alias is not registered. Register its `custom_op` output with "
       "`thunder.torch.register_custom_op`",
       true},
      {"InterpreterError", "Encountered exception NotImplementedError: not yet", true},
      {"RuntimeError", "preserve_format!=torch.preserve_format is not supported within thunder.jit", true},
      {"AssertionError", "", false},
      {"IndexError", "list index out of range", false},
      {"RuntimeError",
       "Attempting to reshape a.shape=(14,) to shape=(3, 1), but a.numel=14 is different from the number of elements "
       "in "
       "shape, 3",
       false},
      {"RuntimeError", "Shapes were expected to be the same, but got shapes (1,) and (3, 4)!", false},
      // PyTorch's overlap check inside the compiled code: eager accepted it.
      {"RuntimeError",
       "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
       "location. Please clone() the tensor before performing the operation.",
       false},
      {"RuntimeError",
       "unsupported operation: more than one element of the written-to tensor refers to a single memory location.",
       false},
      {"AttributeError", "'NoneType' object has no attribute 'shape'", false},
      {"ValueError", "Cycle detected in swap map for aliases updates: t0", false},
      {"InterpreterError", "Encountered exception AssertionError: ", false},
      {"TypeError", "unsupported operand type(s) for +: 'NoneType' and 'int'", false},
      // format v1.1's out= calls under thunder.jit
      {"TypeError", "add() got an unexpected keyword argument 'out'", true},
      {"NotImplementedError", "out is not None which is currently unsupported", true},
      {"TypeError", "add() got an unexpected keyword argument 'alpha2'", false},
      // format v1.4: torch.func.functionalize refuses a mutable custom op; thunder.jit refuses an
      // unregistered one; torch 1.13 cannot define one (the runner's "unsupported" answer)
      {"RuntimeError",
       "Found a custom (non-ATen) operator whose output has alias annotations: aliasfuzz::scale_(Tensor(a0!) x, "
       "float s) -> (). We only support functionalizing operators whose outputs do not have alias annotations",
       true},
      {"InterpreterError",
       "Encountered exception RuntimeError: aliasfuzz.scale_ is not registered. Register its `custom_op` output with "
       "`thunder.torch.register_custom_op`",
       true},
      {"NotImplementedError", "mutable custom ops (torch.library.custom_op) are unsupported in torch 1.13.0a0", true},
      // functionalization's deliberate ban (pytorch#104505), torch 2.9 and 2.15 alike
      {"RuntimeError",
       "During torch.compile, encountered a mutation on a view chain of length 2, where view 1 was an as_strided() "
       "call. as_strided() is non-compositional, and therefore is not possible to functionalize properly today,so "
       "this behavior is banned in compile.",
       true},
      {"RuntimeError",
       "setStorage: sizes [], strides [], storage offset 1, and itemsize 4 requiring a storage size of 8 "
       "are out of bounds for storage of size 4",
       false},
  };
  for (const Case& c : cases) {
    const ErrorClass k = classify_external_error(c.type, c.message);
    EXPECT_EQ(k.unsupported, c.unsupported) << c.type << ": " << c.message << " (rule " << k.rule << ")";
    EXPECT_FALSE(k.rule.empty());
  }
  // Only the first line of a message is matched.
  EXPECT_FALSE(is_unsupported_error("RuntimeError", "shape mismatch\nnot supported"));
}

// ---- the capability probe

std::string tmp_dir(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  return std::string(t ? t : "/tmp") + "/" + name;
}

// Sets an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

std::set<std::string> keys(const std::map<std::string, std::string>& m) {
  std::set<std::string> k;
  for (const auto& [a, b] : m) k.insert(a);
  return k;
}

TEST(Capabilities, ProbeProgramsAreValidAndCoverTheVocabulary) {
  std::map<std::string, std::set<std::string>> variants;
  std::set<std::string> controls;
  const auto probes = probe_programs();
  for (const ProbeProgram& pp : probes) {
    ASSERT_FALSE(pp.text.empty()) << pp.name << ": an op without probe forms (compilers/capabilities.cc)";
    auto p = ir::parse_and_validate(pp.text);
    ASSERT_TRUE(static_cast<bool>(p)) << pp.name << ": " << p.error().to_string() << "\n" << pp.text;
    if (pp.op.empty())
      controls.insert(pp.variant);
    else
      variants[pp.op].insert(pp.variant);
  }
  EXPECT_EQ(controls, (std::set<std::string>{"alone", "after-inplace", "on-view", "aliased-inputs"}));
  int ops = 0;
  for (ir::OpKind k : ir::all_ops()) {
    const ir::OpClass c = ir::op_info(k).cls;
    if (c == ir::OpClass::Scatter || c == ir::OpClass::Meta) continue;
    ++ops;
    EXPECT_EQ(variants[ir::op_name(k)], controls) << ir::op_name(k);
  }
  EXPECT_EQ(static_cast<int>(variants.size()), ops);
}

TEST(Capabilities, ProbeProgramsAgreeWithPyTorchEager) {
  // What the probe sends is valid PyTorch with the oracle's values.
  REQUIRE_DEBIAN_TORCH();
  TorchRunner torch;
  for (const ProbeProgram& pp : probe_programs()) {
    auto p = ir::parse_and_validate(pp.text);
    ASSERT_TRUE(static_cast<bool>(p)) << pp.name;
    // format v1.4's custom ops need torch >= 2.4 (oracles:torch_agreement_test FormatV14CustomOps)
    if (const auto op = ir::op_from_name(pp.op); op && ir::is_custom_op(*op)) continue;
    const TorchResult t = torch.run(*p);
    ASSERT_TRUE(t.ok) << pp.name << ": " << t.kind << ": " << t.message;
    EXPECT_FALSE(compare(*p, oracle(*p), t.obs)) << pp.name;
  }
}

TEST(Capabilities, ProbeListsWhatAFakeCompilerRefusesAndCachesIt) {
  REQUIRE_DEBIAN_TORCH();
  // torch-functionalize's Python runs a stand-in runner: `.exp_()` is
  // unsupported, `torch.tanh(` an internal error (not listed), and every
  // program with `x.add_(1.0)` (the after-inplace context) unsupported,
  // which its control shows: that context then judges no op.
  const std::string real = find_external_runner();
  ASSERT_FALSE(real.empty());
  const std::string fake = oracles::find_source_file("oracles/testdata/fake_external_runner.py", "");
  ASSERT_TRUE(std::filesystem::exists(fake)) << fake;
  const std::string cache = tmp_dir("caps-fake");
  std::filesystem::remove_all(cache);
  ScopedEnv e1("AF_EXTERNAL_RUNNER", fake),
      e2("AF_REAL_RUNNER_DIR", std::filesystem::path(real).parent_path().string()), e3("AF_CAPABILITY_CACHE", cache);
  forget_capabilities();
  const Capabilities c = probe_capabilities("torch-functionalize");
  ASSERT_TRUE(c.available) << c.error;
  EXPECT_FALSE(c.from_cache);
  EXPECT_GT(c.probes, 100);
  // exp_, and format v1.4's custom ops, which torch 1.13 cannot define
  const std::set<std::string> want{"custom_copy_", "custom_scale_", "exp_"};
  EXPECT_EQ(keys(c.unsupported), want);
  EXPECT_EQ(keys(c.inconclusive), (std::set<std::string>{"after-inplace"}));
  EXPECT_NE(c.versions.find("torch 1.13"), std::string::npos) << c.versions;
  const std::string sum = capabilities_summary(c);
  EXPECT_EQ(sum.rfind("not supported by torch-functionalize (torch 1.13", 0), 0u) << sum;
  EXPECT_EQ(sum.substr(sum.size() - 35), ": custom_copy_, custom_scale_, exp_") << sum;
  EXPECT_EQ(unsupported_op_weights("torch-functionalize"),
            (std::map<std::string, double>{{"custom_copy_", 0.0}, {"custom_scale_", 0.0}, {"exp_", 0.0}}));

  // Cached in a file named by strategy and versions: the next process reads it.
  ASSERT_FALSE(c.cache_path.empty());
  EXPECT_EQ(c.cache_path.rfind(cache + "/torch-functionalize--torch_1.13", 0), 0u) << c.cache_path;
  ASSERT_TRUE(std::filesystem::exists(c.cache_path));
  forget_capabilities();
  const Capabilities again = probe_capabilities("torch-functionalize");
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.probes, 0);
  EXPECT_EQ(keys(again.unsupported), keys(c.unsupported));

  // The weights come from the cache...
  std::ifstream in(c.cache_path);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str());
  j["unsupported"]["matmul"] = "edited";
  std::ofstream(c.cache_path) << j.dump();
  forget_capabilities();
  EXPECT_EQ(unsupported_op_weights("torch-functionalize").count("matmul"), 1u);
  // ...unless it was written for other versions: then the probe runs again.
  j["versions"]["torch"] = "0.1";
  std::ofstream(c.cache_path) << j.dump();
  forget_capabilities();
  const Capabilities reprobed = probe_capabilities("torch-functionalize");
  EXPECT_FALSE(reprobed.from_cache);
  EXPECT_EQ(keys(reprobed.unsupported), want);
  forget_capabilities();
}

// The form check: a compiler that fails on two inputs of one storage with
// different sizes (the fake, as thunder 0.2.6 does) has that form listed,
// cached apart from the ops; one that does not has none.
TEST(Capabilities, FormChecksFindAliasedInputsOfDifferentSizes) {
  REQUIRE_DEBIAN_TORCH();
  const std::string real = find_external_runner();
  ASSERT_FALSE(real.empty());
  const std::string dir = std::filesystem::path(real).parent_path().string();
  ScopedEnv e1("AF_EXTERNAL_RUNNER", oracles::find_source_file("oracles/testdata/fake_external_runner.py", "")),
      e2("AF_REAL_RUNNER_DIR", dir);
  for (const bool fails : {false, true}) {
    const std::string cache = tmp_dir(fails ? "caps-forms-fail" : "caps-forms-ok");
    std::filesystem::remove_all(cache);
    ScopedEnv e3("AF_CAPABILITY_CACHE", cache), e4("AF_FAKE_ALIASED_SIZES", fails ? "1" : "0");
    forget_capabilities();
    const Capabilities c = probe_capabilities("torch-functionalize");
    ASSERT_TRUE(c.available) << c.error;
    if (!fails) {
      EXPECT_TRUE(c.failing_forms.empty()) << failing_forms_summary(c);
      EXPECT_EQ(failing_forms_summary(c), "");
      continue;
    }
    ASSERT_EQ(c.failing_forms.size(), 1u);
    EXPECT_EQ(c.failing_forms.begin()->first, "aliased-inputs-of-different-sizes");
    EXPECT_NE(c.failing_forms.begin()->second.find("RuntimeError: Attempting to reshape"), std::string::npos);
    EXPECT_NE(failing_forms_summary(c).find("fails on aliased-inputs-of-different-sizes"), std::string::npos);
    forget_capabilities();
    const Capabilities again = probe_capabilities("torch-functionalize");  // both from their cache files
    EXPECT_TRUE(again.from_cache);
    EXPECT_EQ(again.probes, 0);
    EXPECT_EQ(again.failing_forms, c.failing_forms);
  }
  forget_capabilities();
}

TEST(Capabilities, UnavailableWithoutThePython) {
  ScopedEnv e("AF_THUNDER_PYTHON", "/nonexistent/python");
  forget_capabilities();
  const Capabilities c = probe_capabilities("thunder");
  EXPECT_FALSE(c.available);
  EXPECT_NE(c.error.find("./aliasfuzz setup --thunder"), std::string::npos) << c.error;
  EXPECT_TRUE(unsupported_op_weights("thunder").empty());
  EXPECT_EQ(capabilities_summary(c), "");
  forget_capabilities();
}

TEST(Capabilities, ThunderProbe) {
  if (!have_thunder()) {
    std::printf("skipped: no Thunder venv\n");
    GTEST_SKIP() << "skipped: no Thunder venv";
  }
  ScopedEnv e("AF_CAPABILITY_CACHE", tmp_dir("caps-thunder"));
  forget_capabilities();
  const Capabilities c = probe_capabilities("thunder", /*refresh=*/true);
  ASSERT_TRUE(c.available) << c.error;
  // The ops the script now spells as users do are supported.
  for (const char* op : {"slice", "alias", "as_strided", "clone", "view", "add_", "setitem_", "copy_"})
    EXPECT_EQ(c.unsupported.count(op), 0u) << op << ": " << c.unsupported.at(op);
  if (c.versions.find("thunder 0.2.6") != std::string::npos) {
    // lightning-thunder 0.2.6 has no Tensor.fill_ and no Tensor.sigmoid_,
    // takes no out= (format v1.1's out= ops: TypeError, or for div
    // NotImplementedError), has none of format v1.3's metadata ops
    // (Unknown attribute) and registers Tensor.unfold as an im2col-like op
    // that raises (NotImplementedError). Format v1.4's custom ops are not
    // registered with it ("aliasfuzz.scale_ is not registered"; its
    // _register_custom_op refuses mutating ones).
    std::set<std::string> want{"fill_", "sigmoid_", "unfold", "custom_copy_", "custom_scale_"};
    for (ir::OpKind op : ir::all_ops())
      if (ir::is_out_variant(op) || ir::is_metadata_inplace(op)) want.insert(ir::op_name(op));
    EXPECT_EQ(keys(c.unsupported), want);
    std::string summary, sep;
    std::map<std::string, double> weights;
    for (const auto& op : want) summary += sep + op, sep = ", ", weights[op] = 0.0;
    EXPECT_EQ(capabilities_summary(c), "not supported by thunder 0.2.6: " + summary);
    EXPECT_EQ(unsupported_op_weights("thunder"), weights);
  }
  forget_capabilities();
}

// Issue #60: the probe of a compiler that hangs or dies on its first
// control program ends within its bounds, says it is inconclusive (never
// "every op supported"), lists nothing as unsupported and caches nothing.
TEST(Capabilities, AProbeOfAFaultyCompilerIsBoundedAndInconclusive) {
  REQUIRE_DEBIAN_TORCH();
  for (const char* toy : {"hangs_on_call", "exits_on_call"}) {
    const std::string cache = tmp_dir(std::string("caps-faulty-") + toy);
    ScopedEnv e("AF_CAPABILITY_CACHE", cache);
    forget_capabilities();
    ProbeLimits limits;
    limits.program_s = 2;
    limits.total_s = 60;
    int progress_calls = 0;
    limits.progress = [&](int done, int most) {
      ++progress_calls;
      EXPECT_LE(done, most);
    };
    const std::string strategy = std::string("py:oracles.testdata.toy_compiler:") + toy + "@/usr/bin/python3";
    const Capabilities c = probe_capabilities(strategy, false, limits);
    ASSERT_TRUE(c.available) << toy << ": " << c.error;
    EXPECT_NE(c.inconclusive_why.find("first control program"), std::string::npos) << toy << ": " << c.inconclusive_why;
    EXPECT_EQ(c.probes, 1) << toy;
    EXPECT_EQ(progress_calls, 1) << toy;
    EXPECT_TRUE(c.unsupported.empty()) << toy;
    EXPECT_FALSE(std::filesystem::exists(cache) && !std::filesystem::is_empty(cache)) << toy << ": cached";
    // Not memoized either: the next probe probes again.
    EXPECT_FALSE(probe_capabilities(strategy, false, limits).from_cache) << toy;
  }
  forget_capabilities();
}

}  // namespace
}  // namespace af::compilers
