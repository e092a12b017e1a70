// The PyTorch bridge itself: scripts are standalone and exact (initial
// values bit for bit, every op of the vocabulary, awkward names), errors
// carry PyTorch's kind and the program line, and the batch runner survives
// programs that hang or kill Python.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/torch_bridge.h"
#include "oracles/torch_test_util.h"

namespace af::oracles {
namespace {

ir::Program parse_ok(const std::string& text) {
  auto p = ir::parse(text);
  EXPECT_TRUE(p.ok()) << (p ? "" : p.error().to_string());
  return p ? *p : ir::Program();
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(TorchBridge, InitialValuesAreExact) {
  ir::Program p = parse_ok(R"(aliasfuzz 1
storage a f32[9] = [0.1, -0.0, 1e-45, 3.4028235e38, -inf, inf, nan, 16777217, 0.30000001192092896]
storage b f32[7] = iota(-1.1, 0.1)
storage c f32[3] = full(0.2)
storage d f32[5000] = random(18446744073709551615)
storage e f32[64] = random(0)
input x = a
return x
)");
  TorchResult t = test_runner().run(p);
  ASSERT_TRUE(t.ok) << describe(t);
  ASSERT_EQ(t.obs.storages.size(), p.storages.size());
  for (size_t s = 0; s < p.storages.size(); ++s) {
    const auto want = ir::initial_values(p.storages[s]);
    ASSERT_EQ(t.obs.storages[s].size(), want.size()) << p.storages[s].name;
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(t.obs.storages[s][i]));
        continue;
      }
      ASSERT_EQ(bits(t.obs.storages[s][i]), bits(want[i])) << p.storages[s].name << "[" << i << "] " << want[i];
    }
  }
}

// One statement of every op (the scatters and update_aliases included),
// through names that are Python keywords or builtins.
const char* kEveryOp = R"(aliasfuzz 1
storage s0 f32[24] = random(11)
storage s1 f32[6] = iota(0.5, 0.25)
input torch = as_strided(s0, [2, 3, 4], [12, 4, 1], 0)
input def = s1
input slice = as_strided(s0, [4], [1], 20)
v0 = view(torch, [6, 4])
v1 = reshape(v0, [4, 6])
v2 = flatten(torch)
v3 = contiguous(v0)
v4 = t(v0)
v5 = transpose(torch, 0, 2)
v6 = permute(torch, [2, 0, 1])
v7 = slice(v0, 0, 1, 5, 2)
v8 = narrow(v0, 1, 1, 2)
v9 = select(torch, 1, -1)
v10 = unsqueeze(def, 0)
v11 = squeeze(v10, 0)
v12 = expand(v10, [3, 6])
v13 = diagonal(torch, 1, 1, 2)
v14 = as_strided(def, [2, 2], [2, 1], 1)
a, b = chunk(def, 2, 0)
c, d, e = split(def, 2, 0)
f, g = unbind(v14, 0)
v15 = alias(def)
float = add_(a, b)
sub_(v7, 0.5)
mul_(v8, v8)
div_(c, 4.0)
exp_(d)
neg_(e)
abs_(v9)
relu_(v13)
tanh_(v15)
sigmoid_(slice)
clamp_(v6, -1.0, 1.0)
fill_(v12, 0.75)
zero_(g)
copy_(f, g)
setitem_(torch, -1, 1, 3, f)
setitem_(v0, 0, 0, 6, 2.5)
o1 = add(torch, slice)
o2 = sub(v0, 1)
o3 = mul(v4, v4)
o4 = div(v5, 3.0)
o5 = exp(v9)
o6 = neg(v9)
o7 = abs(v9)
o8 = relu(v9)
o9 = tanh(v9)
o10 = sigmoid(v9)
o11 = clone(v5)
o12 = sum(torch, 1, 1)
o13 = amax(torch, -1, 0)
o14 = softmax(v4, 0)
o15 = matmul(v4, v0)
o16 = cat([v0, v3], 0)
o17 = full([2, 2], -3.5)
o18 = slice_scatter(v0, o2, 0, 0, 6, 1)
o19 = select_scatter(torch, o5, 1, 0)
o20 = diagonal_scatter(torch, o13, 0, 1, 2)
o21 = as_strided_scatter(v5, o17, [2, 2], [1, 4], 2)
n1, n2 = update_aliases([def, torch])
lay = as_strided(o11, [24], [1], 0)
return torch, float, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15, o16, o17, o18, o19, o20, o21, n1, n2, lay
)";

TEST(TorchBridge, EveryOpAgreesWithTheOracle) {
  ir::Program p = parse_ok(kEveryOp);
  ASSERT_TRUE(ir::analyze(p).ok()) << ir::analyze(p).error().to_string();
  const std::string script = torch_script(p);
  // Ops spelled as users write them (slice as indexing, alias as x[...],
  // the as_strided method, clone of a non-contiguous tensor as contiguous()).
  for (const char* call : {"v7 = v0[1:5:2]", "v15 = vdef[...]", "v14 = vdef.as_strided([2, 2], [2, 1], 1)", ".add_(",
                           "torch.mm(", "o11 = v5.contiguous()", "torch.slice_scatter(", "torch.as_strided_scatter(",
                           "keepdim=True", "torch.full([2, 2], -3.5, dtype=torch.float32)"})
    EXPECT_NE(script.find(call), std::string::npos) << call;
  EXPECT_EQ(script.find("torch.ops.aten"), std::string::npos);
  EXPECT_EQ(script.find("memory_format"), std::string::npos);
  TorchResult t = test_runner().run(p, script);
  EXPECT_EQ(disagreement(p, t), "") << script;
}

TEST(TorchBridge, ScriptIsStandalone) {
  ir::Program p = parse_ok(kEveryOp);
  const std::string path = ::testing::TempDir() + "/every_op.py";
  {
    std::ofstream out(path);
    out << torch_script(p);
  }
  FILE* f = popen(("/usr/bin/python3 " + path).c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  ASSERT_EQ(pclose(f), 0) << text;
  auto j = nlohmann::json::parse(text);
  ASSERT_TRUE(j.contains("returns")) << text;
  ASSERT_EQ(j["returns"].size(), p.returns.size());
  Observables o = *run_eager(p);
  // Same schema as `aliasfuzz run --json`'s "oracle" field.
  EXPECT_EQ(j["returns"][2]["sizes"].get<std::vector<int64_t>>(), o.returns[2].sizes);
  ASSERT_TRUE(j["storages"].contains("s0"));
  EXPECT_EQ(j["storages"]["s0"].size(), 24u);
}

TEST(TorchBridge, ErrorsCarryKindAndLine) {
  // Parses, fails analysis: the script still runs and PyTorch says why.
  ir::Program p = parse_ok(R"(aliasfuzz 1
storage s0 f32[6] = iota(0, 1)
input x = as_strided(s0, [2, 3], [3, 1], 0)
y = t(x)

z = view(y, [6])
return z
)");
  auto an = ir::analyze(p);
  ASSERT_FALSE(an.ok());
  EXPECT_EQ(an.error().kind, ir::ErrorKind::View);
  TorchResult t = test_runner().run(p);
  ASSERT_FALSE(t.ok);
  EXPECT_EQ(t.kind, "view");
  EXPECT_EQ(t.line, 6);
  EXPECT_NE(t.message.find("view size is not compatible"), std::string::npos) << t.message;
}

TEST(TorchBridge, HangAndCrashDoNotStopTheBatch) {
  TorchOptions o;
  o.timeout_s = 3;
  TorchRunner r(o);
  ir::Program p = parse_ok("aliasfuzz 1\nstorage s0 f32[2] = full(1.5)\ninput x = s0\ny = exp(x)\nreturn y\n");
  std::string ok_script = torch_script(p);
  TorchResult a = r.run(p, ok_script);
  ASSERT_TRUE(a.ok) << describe(a);
  TorchResult hang = r.run(p, "import time\ndef _program():\n    while True:\n        time.sleep(0.01)\n");
  EXPECT_FALSE(hang.ok);
  EXPECT_EQ(hang.kind, "timeout") << hang.message;
  TorchResult b = r.run(p, ok_script);
  EXPECT_TRUE(b.ok) << describe(b);
  TorchResult crash = r.run(p, "import os\nos._exit(3)\n");
  EXPECT_FALSE(crash.ok);
  EXPECT_EQ(crash.kind, "crash") << crash.message;
  TorchResult c = r.run(p, ok_script);
  EXPECT_TRUE(c.ok) << describe(c);
  EXPECT_EQ(r.restarts(), 2);
  EXPECT_FLOAT_EQ(c.obs.returns[0].v[0], std::exp(1.5f));
}

TEST(TorchBridge, BatchKeepsOrder) {
  std::vector<ir::Program> ps;
  for (int k = 1; k <= 5; ++k)
    ps.push_back(parse_ok("aliasfuzz 1\nstorage s0 f32[" + std::to_string(k) +
                          "] = iota(0, 1)\ninput x = s0\ny = sum(x, 0, 0)\nreturn y\n"));
  ps.push_back(parse_ok("aliasfuzz 1\nstorage s0 f32[2] = iota(0, 1)\ninput x = s0\ny = select(x, 0, 2)\nreturn y\n"));
  auto rs = run_torch_batch(ps);
  ASSERT_EQ(rs.size(), ps.size());
  for (int k = 1; k <= 5; ++k) {
    ASSERT_TRUE(rs[k - 1].ok) << describe(rs[k - 1]);
    EXPECT_FLOAT_EQ(rs[k - 1].obs.returns[0].v[0], k * (k - 1) / 2.0f);
  }
  EXPECT_EQ(rs[5].kind, "arg");
  EXPECT_EQ(rs[5].line, 4);
}

// Each discrepancy found between the oracle and PyTorch 1.13 and fixed in
// ir/ops.cc, ir/geometry.cc, oracles/kernels.cc: the oracle's verdict (a
// kind, or "" for a valid program) and agreement with PyTorch.
struct Case {
  const char* what;
  const char* kind;
  const char* body;  // after the header
};

const Case kFixed[] = {
    {"as_strided_scatter into an overlapping slot: slot.copy_ raises", "overlap",
     "storage s0 f32[4] = iota(0, 1)\ninput x = s0\nsrc = full([2], 5.0)\nr = as_strided_scatter(x, src, [2], [0], "
     "1)\nreturn r\n"},
    {"scatter results keep the base's strides (clone, preserve format)", "",
     "storage s0 f32[6] = iota(0, 1)\ninput x = as_strided(s0, [2, 3], [3, 1], 0)\ny = t(x)\n"
     "src = full([1, 2], 9.0)\nr = slice_scatter(y, src, 0, 1, 2, 1)\nlay = as_strided(r, [6], [1], 0)\n"
     "q = as_strided_scatter(y, src, [1, 2], [1, 3], 1)\nlq = as_strided(q, [6], [1], 0)\nreturn lay, lq\n"},
    {"in-place binary op: memory overlap is checked before shapes", "overlap",
     "storage s0 f32[6] = iota(0, 1)\ninput a = s0\nw = slice(a, 0, 1, 4, 1)\nr = slice(a, 0, 0, 2, 1)\nadd_(w, "
     "r)\nreturn a\n"},
    {"setitem_ of a whole leading slice is the tensor itself: x[0:n] = x is a no-op", "",
     "storage s0 f32[3] = iota(0, 1)\ninput x = as_strided(s0, [1, 3], [3, 1], 0)\ne = expand(x, [2, 3])\n"
     "setitem_(e, 0, 0, 2, e)\nreturn e\n"},
    {"setitem_ of a non-whole slice makes a new view: the same write raises", "overlap",
     "storage s0 f32[3] = iota(0, 1)\ninput x = as_strided(s0, [1, 3], [3, 1], 0)\ne = expand(x, [2, 3])\n"
     "setitem_(e, 0, 0, 5, e)\nreturn e\n"},
    {"setitem_ on a 0-d tensor with 0:0: 1.13 writes the element (Python indexing reads size 0), 2.x raises", "version",
     "storage s0 f32[4] = iota(0, 1)\ninput x = as_strided(s0, [], [], 2)\nsetitem_(x, 0, 0, 0, -0.25)\nreturn x\n"},
    {"setitem_ on a 0-d tensor with any other slice raises", "arg",
     "storage s0 f32[4] = iota(0, 1)\ninput x = as_strided(s0, [], [], 2)\nsetitem_(x, 0, 0, 1, -0.25)\nreturn x\n"},
    {"empty tensors are non-overlapping and dense: no overlap error", "",
     "storage s0 f32[3] = iota(0, 1)\ninput x = as_strided(s0, [1, 3], [3, 1], 0)\ne = expand(x, [3, 3])\n"
     "z = slice(e, 1, 2, 1, 1)\nrelu_(z)\nadd_(z, 1.0)\nreturn z\n"},
    {"expand of a 0-d tensor gives stride 0, so the setitem_ copy overlaps partially", "overlap",
     "storage s1 f32[15] = iota(0, 1)\ninput x = as_strided(s1, [], [], 1)\nt0 = unsqueeze(x, -1)\n"
     "t1 = unsqueeze(t0, 0)\nsetitem_(t0, 0, 0, 1, t1)\nreturn t0\n"},
    {"setitem_ value with more leading 1-dims than the slot (was an out-of-bounds write)", "",
     "storage s0 f32[13] = iota(0, 1)\ninput x = s0\ninput v = as_strided(s0, [1, 1], [1, 1], 3)\n"
     "setitem_(x, 0, 5, 1, v)\nsetitem_(x, 0, 5, 6, v)\nreturn x\n"},
    {"cat keeps a common channels-last layout", "",
     "storage s0 f32[10] = random(3)\ninput x = as_strided(s0, [1, 1, 3, 1], [3, 1, 1, 1], 2)\n"
     "c = cat([x, x], 1)\nlay = as_strided(c, [6], [1], 0)\nreturn c, lay\n"},
    {"clamp_ with a NaN bound fills NaN", "",
     "storage s0 f32[3] = iota(-1, 1)\ninput x = s0\nclamp_(x, nan, 1.0)\nreturn x\n"},
    {"fill_ with a finite value beyond float's range raises", "arg",
     "storage s0 f32[3] = iota(-1, 1)\ninput x = s0\nfill_(x, 1e39)\nreturn x\n"},
    {"full with a finite value beyond float's range raises", "arg",
     "storage s0 f32[3] = iota(-1, 1)\ninput x = s0\ny = full([2], -3.5e38)\nreturn y\n"},
    {"clamp_: overlap before the bounds' conversion", "overlap",
     "storage s0 f32[3] = iota(-1, 1)\ninput x = as_strided(s0, [1, 3], [3, 1], 0)\ne = expand(x, [2, 3])\n"
     "clamp_(e, 0.0, 1e39)\nreturn e\n"},
    {"add_ with a huge number is fine (a wrapped number, no conversion check)", "",
     "storage s0 f32[3] = iota(-1, 1)\ninput x = s0\nadd_(x, 1e39)\nreturn x\n"},
};

TEST(TorchBridge, FixedDiscrepancies) {
  for (const Case& c : kFixed) {
    ir::Program p = parse_ok(std::string("aliasfuzz 1\n") + c.body);
    auto an = ir::analyze(p);
    EXPECT_EQ(an ? std::string() : std::string(ir::kind_name(an.error().kind)), c.kind)
        << c.what << (an ? "" : ": " + an.error().to_string());
    TorchResult t = test_runner().run(p);
    EXPECT_EQ(disagreement(p, t), "") << c.what << "\n" << c.body;
  }
}

}  // namespace
}  // namespace af::oracles
