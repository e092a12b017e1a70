// Root defects (issue #57): the evidence's pieces, the grouping rule, and
// evidence gathered from a toy compiler with two defects that raise the
// same IndexError in different functions, one of them reached through
// three different views.
#include "triage/defects.h"

#include <gtest/gtest.h>

#include "compilers/test_util.h"
#include "triage/evidence.h"
#include "triage/ledger.h"

namespace af::fuzz {
namespace {

TEST(Evidence, TheFaultFrameIsTheInnermostOutsideTheOpMachinery) {
  EXPECT_EQ(fault_frame({"torch/_dynamo/eval_frame.py:_fn",
                         "torch/_functorch/_aot_autograd/functional_utils.py:gen_alias_from_base",
                         "torch/_refs/__init__.py:select", "torch/_prims_common/__init__.py:canonicalize_dim"}),
            "torch/_functorch/_aot_autograd/functional_utils.py:gen_alias_from_base");
  // An error PyTorch's C++ raised below the compiler's entry point: no fault frame.
  EXPECT_EQ(fault_frame({"torch/_functorch/eager_transforms.py:functionalize.<locals>.wrapped"}), "");
  EXPECT_EQ(fault_frame({}), "");
}

TEST(Evidence, AMessageTemplateForgetsNumbersAndAddresses) {
  EXPECT_EQ(message_template("Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
            "Dimension out of range (expected to be in range of [N, N], but got N)");
  EXPECT_EQ(message_template("storage of size 4; at 0x7f00ab"), "storage of size N, at ADDR");
}

TEST(Evidence, ACrashStackIsReadFromFaulthandler) {
  const std::string tail =
      "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent call first):\n"
      "  File \"/v/lib/python3.11/site-packages/torch/_functorch/_aot_autograd/functional_utils.py\", line 250 in "
      "gen_alias_from_base\n"
      "  File \"/v/lib/python3.11/site-packages/torch/_functorch/_aot_autograd/runtime_wrappers.py\", line 9 in "
      "_compiled\n"
      "  File \"/tmp/aliasfuzz-runner-x/aliasfuzz_program_1.py\", line 3 in _fn\n"
      "  File \"/usr/lib/python3.11/runpy.py\", line 88 in _run_code\n";
  EXPECT_EQ(crash_frames(tail),
            (std::vector<std::string>{"torch/_functorch/_aot_autograd/runtime_wrappers.py:_compiled",
                                      "torch/_functorch/_aot_autograd/functional_utils.py:gen_alias_from_base"}));
}

TEST(Evidence, SuspectsRankByOchiaiThenByTheirFilesShare) {
  // f and g (one file) and h ran only in the failing run; p ran in one passing run of two.
  const std::vector<std::string> failing = {"a.py:f", "a.py:g", "b.py:h", "c.py:p", "torch/_refs/x.py:op"};
  const auto s = rank_suspects(failing, {{"c.py:p"}, {"d.py:q"}}, 10);
  EXPECT_EQ(s, (std::vector<std::string>{"a.py:f", "a.py:g", "b.py:h", "c.py:p"}));  // op machinery never
  EXPECT_EQ(rank_suspects(failing, {}, 1), (std::vector<std::string>{"a.py:f"}));
}

TEST(Evidence, TheHeaderLineReadsBack) {
  Evidence ev;
  ev.under = "aot-eager@2.15.0";
  ev.fault = "torch/x.py:f";
  ev.message = "got N; not N";  // a separator in a message does not break the line
  ev.suspects = {"torch/x.py:f", "torch/y.py:g"};
  ev.made_by = "torch/x.py:f.<locals>.g";
  ev.stage = "inductor: post_grad_passes #2 (reinplace; x)";  // compiler_bisector's
  ev.removed_by = "skip_inplace_alias_updates=True";
  ev.passing = 3;
  ev.neighbours = 5;
  const auto back = parse_evidence_text(evidence_text(ev));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->under, ev.under);
  EXPECT_EQ(back->fault, ev.fault);
  EXPECT_EQ(back->message, "got N, not N");
  EXPECT_EQ(back->suspects, ev.suspects);
  EXPECT_EQ(back->made_by, ev.made_by);
  EXPECT_EQ(back->stage, "inductor: post_grad_passes #2 (reinplace, x)");
  EXPECT_EQ(back->removed_by, ev.removed_by);
  EXPECT_EQ(back->passing, 3);
  EXPECT_EQ(back->neighbours, 5);
  EXPECT_FALSE(parse_evidence_text("fault x"));  // no `under`
  EXPECT_FALSE(parse_evidence_text("under x; colour blue"));
  // Inductor's compiled graph makes every tensor it returns: no evidence of
  // where a defect is (two Inductor bugs grouped by it were two defects).
  const auto generic = parse_evidence_text(
      "under inductor@2.9.1; wrong return values; made by torch/_inductor/output_code.py:CompiledFxGraph.__call__");
  ASSERT_TRUE(generic);
  EXPECT_EQ(generic->made_by, "");
  // AOTAutograd's capture calling the traced graph is no fault frame: the
  // graph's own op raised there (its message names the check).
  const auto caller = parse_evidence_text(
      "under aot-eager@2.15.0; fault torch/_functorch/_aot_autograd/graph_compile.py:"
      "aot_stage1_graph_capture.<locals>.orig_flat_fn2; message Cannot view a tensor");
  ASSERT_TRUE(caller);
  EXPECT_EQ(caller->fault, "");
  EXPECT_EQ(caller->message, "Cannot view a tensor");
}

LedgerEntry entry(const std::string& name, const std::string& strategy, const std::string& what,
                  const std::string& program) {
  std::string err;
  auto e = parse_ledger_entry(name,
                              "# aliasfuzz finding: test\n# system: test\n# strategy: " + strategy +
                                  "\n# what: " + what + "\n# status: new\n" + program,
                              &err);
  EXPECT_TRUE(e) << err;
  return e ? *e : LedgerEntry{};
}

const char* kViewWrite =
    "aliasfuzz 1\nstorage s0 f32[4] = full(0.0)\ninput x0 = s0\nt0 = select(x0, 0, 1)\n"
    "t1 = add_(t0, 1.0)\nreturn t1\n";

std::map<std::string, Evidence> evidence(std::initializer_list<std::pair<const char*, std::string>> faults) {
  std::map<std::string, Evidence> m;
  for (const auto& [name, fault] : faults) {
    Evidence ev;
    ev.under = "aot-eager";
    if (fault.rfind("message ", 0) == 0)
      ev.message = fault.substr(8);
    else if (fault.rfind("suspect ", 0) == 0)
      ev.suspects = {fault.substr(8)};
    else if (fault.rfind("made ", 0) == 0)
      ev.made_by = fault.substr(5), ev.wrong = "return values";
    else
      ev.fault = fault;
    m[name] = ev;
  }
  return m;
}

TEST(Defects, TheRuleGroupsByFaultThenMessageThenSuspectsWithinOneSystem) {
  const std::vector<LedgerEntry> es = {
      entry("a", "aot-eager", "IndexError", kViewWrite),   entry("b", "inductor", "RuntimeError", kViewWrite),
      entry("c", "aot-eager", "values", kViewWrite),       entry("d", "aot-eager", "RuntimeError", kViewWrite),
      entry("e", "aot-eager", "RuntimeError", kViewWrite), entry("f", "torch-func-functionalize", "values", kViewWrite),
      entry("g", "aot-eager", "values", kViewWrite),       entry("h", "aot-eager", "values", kViewWrite),
      entry("i", "aot-eager", "values", kViewWrite),       entry("j", "aot-eager", "input-meta", kViewWrite),
      entry("k", "aot-eager", "values", kViewWrite),
  };
  const auto ev = evidence({{"a", "torch/f.py:gen"},          // fault
                            {"b", "torch/f.py:gen"},          // the same fault through Inductor: one system
                            {"c", "suspect torch/f.py:gen"},  // wrong values: a suspect is no fault frame
                            {"d", "message setStorage: N"},   // C++ checks, one template
                            {"e", "message setStorage: N"},
                            {"f", "suspect torch/f.py:gen"},                // another system: never joined
                            {"g", "suspect torch/f.py:gen"},                // the same suspects and kind as c
                            {"i", "suspect torch/g.py:other"},              // other suspects
                            {"j", "suspect torch/f.py:gen"},                // another kind; h: no evidence
                            {"k", "made torch/f.py:gen.<locals>.patch"}});  // a wrong return made in gen
  const auto d = group_defects(es, ev);
  ASSERT_EQ(d.size(), 7u);
  EXPECT_EQ(d[0].system, "torch.compile");
  EXPECT_EQ(d[0].entries, (std::vector<std::string>{"a", "b", "k"}));
  EXPECT_EQ(d[0].evidence, "fault torch/f.py:gen");
  EXPECT_EQ(d[1].entries, (std::vector<std::string>{"c", "g"}));
  EXPECT_EQ(d[2].entries, (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(d[3].entries, (std::vector<std::string>{"h"}));
  EXPECT_EQ(d[3].evidence, "alone: no evidence");
  EXPECT_EQ(d[4].entries, (std::vector<std::string>{"i"}));
  EXPECT_EQ(d[5].entries, (std::vector<std::string>{"j"}));
  EXPECT_EQ(d[6].system, "torch.func.functionalize");
}

// Rule 3: wrong values made in one pass of torch.compile's backend are one
// defect whatever its count in each compile; a backend alone joins nothing.
TEST(Defects, WrongValuesOfOnePassAreOneDefect) {
  EXPECT_EQ(stage_pass("inductor: post_grad_passes #14 (decompose_auto_functionalized)"),
            "inductor: post_grad_passes (decompose_auto_functionalized)");
  EXPECT_EQ(stage_pass("aot_eager"), "");
  EXPECT_EQ(stage_pass(""), "");
  const std::vector<LedgerEntry> es = {
      entry("a", "inductor", "values", kViewWrite), entry("b", "inductor", "values", kViewWrite),
      entry("c", "aot-eager", "values", kViewWrite), entry("d", "aot-eager", "values", kViewWrite)};
  std::map<std::string, Evidence> ev;
  for (const char* n : {"a", "b", "c", "d"}) {
    ev[n].under = "inductor";
    ev[n].wrong = "return values";
    ev[n].suspects = {std::string("torch/s.py:") + n};  // no two alike
  }
  ev["a"].stage = "inductor: post_grad_passes #14 (decompose_auto_functionalized)";
  ev["b"].stage = "inductor: post_grad_passes #3 (decompose_auto_functionalized)";
  ev["c"].stage = ev["d"].stage = "aot_eager";
  const auto d = group_defects(es, ev);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].entries, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(d[0].evidence, "stage inductor: post_grad_passes (decompose_auto_functionalized) (wrong return values)");
}

// Over every rule: bugs that a release tells apart (one agrees there, the
// other reproduces) are two fixes, whatever evidence they share; a bug not
// checked on that release is not told apart by it.
TEST(Defects, BugsThatAReleaseFixedApartAreTwoDefects) {
  EXPECT_EQ(fixed_in({{"torch 2.9.1", "reproduces"}, {"torch 2.15.0", "agrees"}}), "torch 2.15.0");
  EXPECT_EQ(fixed_in({{"torch 2.9.1", "reproduces"}, {"torch 2.15.0", "differs: IndexError"}}), "");
  std::vector<LedgerEntry> es = {entry("a", "inductor", "values", kViewWrite),
                                 entry("b", "inductor", "values", kViewWrite),
                                 entry("c", "inductor", "values", kViewWrite)};
  es[0].on = {{"torch 2.9.1", "reproduces"}, {"torch 2.15.0", "reproduces"}};
  es[1].on = {{"torch 2.9.1", "reproduces"}, {"torch 2.15.0", "agrees"}};
  es[2].on = {{"torch 2.9.1", "reproduces"}};
  std::map<std::string, Evidence> ev;
  for (const char* n : {"a", "b", "c"}) {
    ev[n].under = "inductor";
    ev[n].stage = "inductor: post_grad_passes #12 (reinplace_inplaceable_ops)";
  }
  const auto d = group_defects(es, ev);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].entries, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(d[1].entries, (std::vector<std::string>{"b"}));
  EXPECT_NE(d[1].evidence.find("agrees on torch 2.15.0"), std::string::npos) << d[1].evidence;
}

// Rule 4's write shapes: an input written through an empty view, through
// one that reaches an element twice, past the input's own elements, or
// plainly; wrong values with the same suspects but another write shape are
// another defect (AOTAutograd's expanded fill, its empty unfold windows
// and its as_strided past an input's offset are three upstream issues).
TEST(Defects, WrongValuesWithEqualSuspectsButAnotherWriteShapeAreTwoDefects) {
  const std::string head = "aliasfuzz 1\nstorage s0 f32[5] = full(0.0)\n";
  auto shapes = [&](const std::string& body) {
    auto p = ir::parse(head + body);
    EXPECT_TRUE(p) << body;
    return p ? write_shapes(*p) : std::string("?");
  };
  EXPECT_EQ(shapes("input x0 = as_strided(s0, [], [], 4)\nt0 = as_strided(x0, [], [], 0)\nadd_(t0, 1.0)\n"),
            "outside the inputs");
  EXPECT_EQ(shapes("input x0 = as_strided(s0, [1], [1], 0)\nt0 = expand(x0, [1, 1, 2])\nfill_(t0, 1.0)\n"),
            "overlapping");
  EXPECT_EQ(shapes("input x0 = as_strided(s0, [1], [1], 0)\nt0 = unfold(x0, 0, 0, 1)\nadd_(t0, 0.0)\n"), "empty");
  EXPECT_EQ(shapes("input x0 = s0\nt0 = slice(x0, 0, 1, 3, 1)\nadd_(t0, 1.0)\nt1 = clone(x0)\nmul_(t1, 2.0)\n"), "");
  std::vector<DefectCandidate> bugs = {{"a", "torch.compile", "values", 3, "", "", "overlapping"},
                                       {"b", "torch.compile", "values", 3, "", "", "empty"},
                                       {"c", "torch.compile", "values", 4, "", "", "overlapping"}};
  std::map<std::string, Evidence> ev;
  for (const char* n : {"a", "b", "c"}) {
    ev[n].under = "aot-eager@2.15.0";
    ev[n].wrong = "storage values";
    ev[n].suspects = {"torch/_functorch/_aot_autograd/graph_capture_wrappers.py:apply_in_graph_mutations"};
  }
  const auto d = group_defects(bugs, ev);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].entries, (std::vector<std::string>{"a", "c"}));
  EXPECT_NE(d[0].evidence.find("(writes: overlapping)"), std::string::npos) << d[0].evidence;
}

// Rule 5: a bug-zoo mutant is one code change, so the bugs of one
// strategy that its removal removes are one defect (two minimal triggers of
// fusion-stale-copy were two "defects"); another strategy's, or a bug
// without that evidence, are not joined to them.
TEST(Defects, BugsThatDroppingOneMutantRemovesAreOneDefect) {
  std::vector<DefectCandidate> bugs = {{"a", "functionalize+fusion-stale-copy", "values", 3, "", "", ""},
                                       {"b", "functionalize+fusion-stale-copy", "values", 4, "", "", "overlapping"},
                                       {"c", "functionalize+fn-no-regenerate", "values", 3, "", "", ""},
                                       {"d", "functionalize+fusion-stale-copy", "values", 2, "", "", ""}};
  std::map<std::string, Evidence> ev;
  for (const char* n : {"a", "b", "c"}) {
    ev[n].under = bugs[n[0] - 'a'].system;
    ev[n].removed_by = "--inject none";
  }
  const auto d = group_defects(bugs, ev);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].entries, (std::vector<std::string>{"c"}));
  EXPECT_EQ(d[1].entries, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(d[1].evidence, "removed by --inject none");
  EXPECT_EQ(d[2].entries, (std::vector<std::string>{"d"}));
}

// issue.md says where to look: a Thunder option that removes the bug names
// what it turns off (compilers' table of Thunder's options).
TEST(Defects, AnIssueNamesWhatTheRemovingOptionTurnsOff) {
  const std::vector<LedgerEntry> es = {entry("a", "thunder", "values", kViewWrite)};
  std::map<std::string, Evidence> ev;
  ev["a"].under = "thunder";
  ev["a"].removed_by = "skip_inplace_alias_updates=True";
  const auto d = group_defects(es, ev);
  ASSERT_EQ(d.size(), 1u);
  const std::string t = defect_issue(d[0], es, ev, {}, "# repro\n");
  EXPECT_NE(t.find("`skip_inplace_alias_updates=True` added to the compile call: what it turns off, the "
                   "alias-update pass (insert_alias_updates), goes wrong"),
            std::string::npos)
      << t;
}

// Rule 3b: wrong values whose minimized programs need a foreach call, first
// wrong in one backend, are one defect (the same tensor twice, the lists
// swapped); one without the call, or first wrong elsewhere, is not.
TEST(Defects, WrongValuesThatNeedAForeachCallInOneBackendAreOneDefect) {
  const std::string head = "aliasfuzz 1\nstorage s0 f32[4] = iota(0.0, 1.0)\ninput x0 = s0\n";
  const std::vector<LedgerEntry> es = {
      entry("twice", "aot-eager", "values", head + "foreach_add_([x0, x0], 1.5)\nreturn x0\n"),
      entry("swap", "aot-eager", "values",
            head + "a = slice(x0, 0, 0, 2, 1)\nb = slice(x0, 0, 2, 4, 1)\nforeach_add_([a, b], [b, a])\nreturn x0\n"),
      entry("plain", "aot-eager", "values", head + "add_(x0, x0)\nadd_(x0, x0)\nreturn x0\n"),
      entry("lowered", "inductor", "values", head + "t = flip(x0, [0])\nforeach_add_([x0], [t])\nreturn x0\n")};
  EXPECT_EQ(program_trigger(es[0].program), "foreach call");
  EXPECT_EQ(program_trigger(es[2].program), "");
  std::map<std::string, Evidence> ev;
  for (const char* n : {"twice", "swap", "plain", "lowered"}) {
    ev[n].wrong = "return values";
    ev[n].stage = "aot_eager";
    ev[n].suspects = {std::string("torch/s.py:") + n};  // no two alike
  }
  ev["lowered"].stage = "inductor: lowerings #3 (flip)";  // its own rule-3 pass
  const auto d = group_defects(es, ev);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].entries, (std::vector<std::string>{"twice", "swap"}));
  EXPECT_EQ(d[0].evidence, "needs a foreach call, first wrong in aot_eager (wrong return values)");
}

// The toy: two defects that raise the same IndexError ("list index out of
// range") in two functions; the first reached through three views.
TEST(Defects, ATwoDefectToyGivesTwoDefectsAndThreeViewsOfOneGiveOne) {
  REQUIRE_DEBIAN_TORCH();
  const std::string toy = "py:oracles.testdata.toy_compiler:two_error_defects@/usr/bin/python3";
  const std::vector<LedgerEntry> es = {
      entry("view-select", toy, "IndexError", kViewWrite),
      entry("view-narrow", toy, "IndexError",
            "aliasfuzz 1\nstorage s0 f32[4] = full(0.0)\ninput x0 = s0\nt0 = narrow(x0, 0, 1, 2)\n"
            "t1 = mul_(t0, 2.0)\nt2 = add(x0, 1.0)\nreturn t1, t2\n"),
      entry("view-transpose", toy, "IndexError",
            "aliasfuzz 1\nstorage s0 f32[6] = iota(0.0, 1.0)\ninput x0 = as_strided(s0, [2, 3], [3, 1], 0)\n"
            "t0 = transpose(x0, 0, 1)\nt1 = sub_(t0, 1.0)\nreturn t1\n"),
      entry("exp", toy, "IndexError",
            "aliasfuzz 1\nstorage s0 f32[4] = full(0.0)\ninput x0 = s0\nt0 = add(x0, 1.0)\nt1 = exp_(t0)\n"
            "return t1\n"),
  };
  std::map<std::string, Evidence> ev;
  for (const auto& e : es) {
    std::string why;
    const auto got = gather_evidence(e, toy, &why);
    ASSERT_TRUE(got) << e.name << ": " << why;
    EXPECT_EQ(got->message, "list index out of range") << e.name;  // one message: it cannot tell them apart
    ev[e.name] = *got;
  }
  EXPECT_EQ(ev["view-select"].fault, "oracles/testdata/toy_compiler.py:_replay_view");
  EXPECT_EQ(ev["exp"].fault, "oracles/testdata/toy_compiler.py:_lower_exp");
  const auto d = group_defects(es, ev);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].entries.size(), 3u);
  EXPECT_EQ(d[0].evidence, "fault oracles/testdata/toy_compiler.py:_replay_view");
  EXPECT_EQ(d[1].entries, (std::vector<std::string>{"exp"}));
}

// C++ functionalization's evidence is the aten ops it dispatched; the
// runner's reading of the results (isfinite's abs, all, .tolist()) is not
// the compiler's and never a suspect (the ledger's
// functorch-functionalize-returned-alias-of-written-intermediate-stale).
TEST(Defects, OpSuspectsAreTheCompilersOpsNotTheRunnersReading) {
  REQUIRE_DEBIAN_TORCH();
  const LedgerEntry e = entry("alias-stale", "torch-functionalize", "values",
                              "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nt0 = add(x0, 0.0)\n"
                              "t1 = alias(t0)\nadd_(t0, 1.0)\nreturn t0, t1\n");
  std::string why;
  const auto ev = gather_evidence(e, "torch-functionalize", &why);
  ASSERT_TRUE(ev) << why;
  ASSERT_FALSE(ev->suspects.empty()) << evidence_text(*ev);
  for (const std::string& s : ev->suspects) {
    EXPECT_EQ(s.rfind("aten:", 0), 0u) << s;
    for (const char* reading : {"aten.abs.", "aten.all.", "aten._local_scalar_dense.", "aten.isfinite."})
      EXPECT_EQ(s.find(reading), std::string::npos) << evidence_text(*ev);
  }
}

// The stage of a wrong value under torch.compile (compiler_bisector): a
// defect of AOTAutograd's functionalization (pytorch#197448: fill_ through
// an expand of an input writes back the sum of the copies) is made by
// aot_eager, the first backend that runs AOTAutograd, whichever
// torch.compile strategy met it.
TEST(Defects, AWrongValueOfAotAutogradIsStagedAtAotEager) {
  const std::string torch = compilers::newest_torch();
  if (torch.empty()) GTEST_SKIP() << "skipped: no torch 2.x venv (./aliasfuzz setup --torch)";
  const LedgerEntry e = entry("expand-fill", "inductor", "values",
                              "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\n"
                              "t0 = expand(x0, [1, 1, 2])\nfill_(t0, 1.0)\n");
  std::string why;
  const auto ev = gather_evidence(e, "inductor@" + torch, &why);
  ASSERT_TRUE(ev) << why;
  EXPECT_EQ(ev->stage, "aot_eager") << evidence_text(*ev);
  // A program it gets right has no evidence to gather.
  const LedgerEntry agrees = entry("agrees", "inductor", "values", kViewWrite);
  EXPECT_FALSE(gather_evidence(agrees, "inductor@" + torch, &why));
}

// Thunder's option evidence: dataflow fusion reads x0 after div_ wrote it
// (the ledger's thunder-dataflow-write-after-read); with only the torch and
// python executors it is right, and the alias-update pass off does not
// make it right (an AssertionError instead), so the evidence names the
// executors, not the alias updates.
TEST(Defects, AThunderBugNamesTheOptionThatRemovesIt) {
  if (compilers::find_thunder_python().empty())
    GTEST_SKIP() << "skipped: no Thunder venv (./aliasfuzz setup --thunder)";
  const LedgerEntry e = entry("dataflow-war", "thunder-dataflow", "values",
                              "aliasfuzz 1\nstorage s f32[4] = iota(1, 1)\ninput x0 = s\nt0 = sigmoid(x0)\n"
                              "mul_(t0, x0)\ndiv_(x0, 2.0)\nreturn t0\n");
  std::string why;
  const auto ev = gather_evidence(e, "thunder-dataflow", &why);
  ASSERT_TRUE(ev) << why;
  EXPECT_EQ(ev->removed_by, "executors=[]") << evidence_text(*ev);
}

}  // namespace
}  // namespace af::fuzz
