// The PyTorch script spells ops as users write them where PyTorch gives
// the same semantics: slice as Python indexing (dim wrapped, bounds clamped
// like aten.slice), alias as x[...], as_strided as the Tensor method, clone
// without a memory format (contiguous() of a non-contiguous tensor), and
// setitem_ along a negative dim with the dim wrapped. Every case must give
// the oracle's values under PyTorch 1.13 (/usr/bin/python3) (and reach
// Thunder without an "unsupported" error: compilers/external_test.cc). Statements from a program's first error on keep
// the literal aten spellings, so that PyTorch raises its own error there.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/torch_bridge.h"
#include "oracles/spelling_cases.h"
#include "oracles/torch_function.h"
#include "oracles/torch_test_util.h"

namespace af::oracles {
namespace {

using namespace spelling_cases;

ir::Program parse(const std::string& text) {
  auto p = ir::parse(text);
  EXPECT_TRUE(static_cast<bool>(p)) << (p ? "" : p.error().to_string()) << "\n" << text;
  return p ? *p : ir::Program();
}

// The statements of the script (between `def _program():` and its return).
std::string body(const std::string& script) {
  const size_t b = script.find("def _program():");
  const size_t e = script.find("\n    return [", b);
  return script.substr(b, e - b);
}

// The table's PyTorch spelling of every op (ir/ops.h, column `torch`) names
// a callable of PyTorch 1.13: a Tensor method (".m") or a torch.* function.
// Ops added to the table are checked here without editing the test.
TEST(TorchSpelling, EveryTableSpellingIsAPyTorchCallable) {
  std::string names;
  for (ir::OpKind op : ir::all_ops()) {
    const std::string sp = ir::op_info(op).torch;
    if (sp.empty()) {  // update_aliases: bound to its inputs, no call
      EXPECT_EQ(ir::op_info(op).family, ir::Family::Meta) << ir::op_name(op) << " has no PyTorch spelling";
      continue;
    }
    // Format v1.4's callables are the script's own (_custom_ops() registers
    // torch.ops.aliasfuzz.*, _graph_break is Dynamo's or a no-op): checked
    // by running scripts (oracles:torch_agreement_test FormatV14Ops under
    // torch >= 2.4, EveryOpOfTheTable for graph_break under 1.13).
    if (ir::added_in_v14(op)) continue;
    names += "\"" + sp + "\", ";
  }
  const std::string script = std::string(std::filesystem::temp_directory_path() / "af_spellings.py");
  std::ofstream(script) << "import functools, torch\n"
                           "def callable_of(s):\n"
                           "    if s.startswith('.'): return getattr(torch.Tensor, s[1:], None)\n"
                           "    try: return functools.reduce(getattr, s.split('.')[1:], torch)\n"
                           "    except AttributeError: return None\n"
                           "print(' '.join(s for s in ["
                        << names << "] if not callable(callable_of(s))) or 'all')\n";
  const char* py = std::getenv("AF_TORCH_PYTHON");
  FILE* f = popen(((py && *py ? std::string(py) : "/usr/bin/python3") + " " + script + " 2>&1").c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, f)) out += buf;
  pclose(f);
  EXPECT_EQ(out, "all\n") << "not PyTorch callables: " << out;
}

TEST(TorchSpelling, UsersSpellingsInTheScript) {
  const std::string s = body(torch_script(parse(kSlices)));
  EXPECT_NE(s.find("a = x[:, 1:4:2]"), std::string::npos) << s;
  EXPECT_NE(s.find("b = x[:, 2:5]"), std::string::npos) << s;  // -3 wrapped, 100 clamped to 5
  EXPECT_NE(s.find("c = x[0:2]"), std::string::npos) << s;     // -100 clamped to 0
  EXPECT_NE(s.find("d = x[:, 4:4]"), std::string::npos) << s;  // end < start: empty at start
  EXPECT_NE(s.find("e = x[3:3:3]"), std::string::npos) << s;   // dim -2 of rank 2; start clamped
  EXPECT_NE(s.find("h = y[:, 2:3:2]"), std::string::npos) << s;
  EXPECT_NE(s.find("i = y[:, :, 1:4]"), std::string::npos) << s;
  EXPECT_EQ(s.find("torch.ops.aten"), std::string::npos) << s;

  const std::string a = body(torch_script(parse(kAliases)));
  EXPECT_NE(a.find("a = x[...]"), std::string::npos) << a;
  EXPECT_NE(a.find("w = x.as_strided([2, 2], [1, 4], 3)"), std::string::npos) << a;
  EXPECT_EQ(a.find("torch.ops.aten"), std::string::npos) << a;
  // Inputs are still made by torch.as_strided, in _setup (outside _fn).
  const std::string m = torch_function_module(parse(kAliases));
  const std::string fn = m.substr(m.find("def _fn("));
  EXPECT_EQ(fn.find("torch.as_strided("), std::string::npos) << fn;

  const std::string c = body(torch_script(parse(kClones)));
  EXPECT_NE(c.find("c = x.contiguous()"), std::string::npos) << c;   // x is not contiguous
  EXPECT_NE(c.find("cc = xc.clone()"), std::string::npos) << c;      // xc is
  EXPECT_NE(c.find("ce = e.contiguous()"), std::string::npos) << c;  // expanded
  EXPECT_NE(c.find("cs = s.clone()"), std::string::npos) << c;       // 0-d
  EXPECT_EQ(c.find("memory_format"), std::string::npos) << c;

  const std::string t = body(torch_script(parse(kSetitems)));
  EXPECT_NE(t.find("x[:, :, 1:3] = 5.0"), std::string::npos) << t;
  EXPECT_NE(t.find("x[:, 0:1] = -2.5"), std::string::npos) << t;
  EXPECT_NE(t.find("x[1:2] = 9.0"), std::string::npos) << t;
  EXPECT_EQ(t.find("_index("), std::string::npos) << t;
}

TEST(TorchSpelling, AgreesWithPyTorchEager) {
  for (const char* text : {kSlices, kAliases, kClones, kSetitems}) {
    const ir::Program p = parse(text);
    ASSERT_TRUE(ir::analyze(p).ok()) << ir::analyze(p).error().to_string();
    const TorchResult r = test_runner().run(p);
    EXPECT_EQ(disagreement(p, r), "") << text;
  }
}

TEST(TorchSpelling, StatementsFromTheFirstErrorOnKeepTheAtenSpelling) {
  // The slice before the error is spelled as indexing; the view of a
  // non-contiguous slice is the error (kind view, line 6); what follows
  // keeps aten's spellings, so PyTorch raises exactly where it would.
  const char* text = R"(aliasfuzz 1
storage s0 f32[12] = iota(0, 1)
input x = as_strided(s0, [3, 4], [4, 1], 0)
a = slice(x, 1, 0, 2, 1)
c = clone(a)
b = view(a, [6])
d = slice(x, 5, 0, 1, 1)
e = alias(x)
f = clone(x)
return b
)";
  const ir::Program p = parse(text);
  const std::string s = body(torch_script(p));
  EXPECT_NE(s.find("a = x[:, 0:2]"), std::string::npos) << s;
  EXPECT_NE(s.find("c = a.contiguous()"), std::string::npos) << s;
  EXPECT_NE(s.find("d = torch.ops.aten.slice.Tensor(x, 5, 0, 1, 1)"), std::string::npos) << s;
  EXPECT_NE(s.find("f = x.clone(memory_format=torch.contiguous_format)"), std::string::npos) << s;
  const TorchResult r = test_runner().run(p);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "view") << describe(r);
  EXPECT_EQ(r.line, 6) << describe(r);
  EXPECT_EQ(disagreement(p, r), "");

  // An error in the statement itself (a bad dim): PyTorch's own kind and line.
  const ir::Program q =
      parse("aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\na = slice(x, 3, 0, 1, 1)\nreturn a\n");
  const TorchResult rq = test_runner().run(q);
  EXPECT_EQ(rq.kind, "arg") << describe(rq);
  EXPECT_EQ(rq.line, 4) << describe(rq);
}

TEST(TorchSpelling, GeneratedProgramsRichInTheRespeltOps) {
  fuzz::GenOptions g;
  for (const char* op : {"slice", "alias", "as_strided", "clone", "setitem_"}) g.op_weights[op] = 6;
  int failures = 0;
  const int n = 150;
  std::map<std::string, int> seen;
  for (int k = 0; k < n; ++k) {
    const ir::Program p = fuzz::generate(77, static_cast<uint64_t>(k), g);
    for (const auto& st : p.stmts) ++seen[ir::op_name(st.op)];
    const std::string d = disagreement(p, test_runner().run(p));
    if (!d.empty() && ++failures <= 5) ADD_FAILURE() << "program " << k << ": " << d << "\n" << ir::print(p);
  }
  EXPECT_EQ(failures, 0) << failures << " of " << n << " disagree";
  for (const char* op : {"slice", "alias", "as_strided", "clone", "setitem_"}) EXPECT_GE(seen[op], 40) << op;
}

}  // namespace
}  // namespace af::oracles
