// Parser and printer: canonical printing, round trips, error kinds and
// lines for malformed text, and no crash on truncated or corrupted input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/analysis.h"
#include "ir/text.h"

namespace af::ir {
namespace {

std::vector<std::string> corpus_files() {
  std::vector<std::string> r;
  for (const auto& e : std::filesystem::recursive_directory_iterator("corpus"))
    if (e.path().extension() == ".af") r.push_back(e.path().string());
  std::sort(r.begin(), r.end());
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Text, CorpusRoundTrips) {
  auto files = corpus_files();
  ASSERT_GE(files.size(), 6u);
  for (const auto& f : files) {
    auto p = parse(slurp(f));
    if (!p) continue;  // error cases are covered elsewhere
    std::string once = print(*p);
    auto q = parse(once);
    ASSERT_TRUE(q) << f << ": " << q.error().to_string() << "\n" << once;
    EXPECT_TRUE(*p == *q) << f;
    EXPECT_EQ(once, print(*q)) << f;  // canonical: printing is a fixed point
    EXPECT_EQ(structural_hash(*p), structural_hash(*q));
  }
}

TEST(Text, CanonicalForm) {
  auto p = parse(
      "# comment\n\naliasfuzz 1\nstorage s0 f32[4] = [1, 2.5, -3e-1, inf]\n"
      "input   x=as_strided( s0,[2,2],[2,1],0 )  # trailing\n"
      "a , b = chunk(x, 2, 0)\nadd_(a, 1)\nc = mul(b, -2.0)\nreturn c, x\n");
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_EQ(print(*p),
            "aliasfuzz 1\nstorage s0 f32[4] = [1.0, 2.5, -0.3, inf]\n"
            "input x = as_strided(s0, [2, 2], [2, 1], 0)\n"
            "a, b = chunk(x, 2, 0)\nadd_(a, 1)\nc = mul(b, -2.0)\nreturn c, x\n");
}

// Format v1.4 training: leaves and the backward print back as written;
// a leaf of an integer storage is kind dtype, anything after the backward
// (or a backward without a return before it) is a syntax error.
TEST(Text, TrainingSyntax) {
  const std::string text =
      "aliasfuzz 1\nstorage s0 f32[4] = random(1)\nstorage s1 f32[4] = full(1.0)\n"
      "input x = s0\ninput w = as_strided(s1, [2, 2], [2, 1], 0) requires_grad\n"
      "t0 = view(x, [2, 2])\nmul_(t0, w)\nreturn t0\nbackward(7)\n";
  auto p = parse(text);
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_TRUE(p->inputs[1].requires_grad);
  EXPECT_EQ(p->backward, 7u);
  EXPECT_TRUE(is_training(*p));
  EXPECT_EQ(print(*p), text);
  auto plain = parse("aliasfuzz 1\nstorage s0 f32[4] = random(1)\ninput x = s0\nreturn x\n");
  EXPECT_FALSE(is_training(*plain));
  auto q = *p;
  q.backward.reset();
  EXPECT_FALSE(q == *p);
  EXPECT_NE(structural_hash(q), structural_hash(*p));
  auto err = [](const std::string& t) { return parse(t).error(); };
  EXPECT_EQ(err("aliasfuzz 1\nstorage m i64[2] = [0, 1]\ninput i = m requires_grad\nreturn i\n").kind,
            ErrorKind::Dtype);
  for (const char* bad :
       {"aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x = s0 grad\nreturn x\n",
        "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x = s0\nreturn x\nbackward(1)\nbackward(2)\n",
        "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x = s0\nreturn x\nbackward(-1)\n",
        "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x = s0\nreturn x\nbackward()\n",
        "aliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x = s0\nreturn x\nadd_(x, 1.0)\n"})
    EXPECT_EQ(err(bad).kind, ErrorKind::Syntax) << bad;
}

// The text parses into a valid program that prints as the same text, and
// printing then parsing again gives the same program and hash.
void expect_round_trip(const std::string& text) {
  auto p = parse_and_validate(text);
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_EQ(print(*p), text);
  auto q = parse(print(*p));
  ASSERT_TRUE(q);
  EXPECT_TRUE(*p == *q);
  EXPECT_EQ(structural_hash(*p), structural_hash(*q));
}

// A program that round-trips (expect_round_trip), with its analysis: the
// metadata of each statement's first result by statement index. A program
// that does not parse or analyze throws (std::get), which fails the test.
struct Analyzed {
  Program p;
  Analysis an;
  const TensorMeta& out(int stmt) const { return an.values[p.stmts[stmt].outs[0]]; }
};
Analyzed analyzed(const std::string& text) {
  expect_round_trip(text);
  Program p = parse_and_validate(text).value();
  Analysis an = analyze(p).value();
  return {std::move(p), std::move(an)};
}

TEST(Text, FormatV11OpsRoundTrip) {
  const std::string text =
      "aliasfuzz 1\nstorage s0 f32[12] = iota(0.0, 1.0)\ninput x = as_strided(s0, [3, 4], [4, 1], 0)\n"
      "r = select(x, 0, 0)\nq = select(x, 0, 1)\nc = add_out(r, q, 2)\nsub_out(r, q, r)\nmul_out(q, q, -0.5)\n"
      "div_out(r, q, 4.0)\nexp_out(r, q)\nneg_out(q, q)\nabs_out(r, q)\ntanh_out(q, r)\nd = sigmoid_out(r, r)\n"
      "y = clone(x)\naddcmul_(x, y, y, 0.5)\naddcdiv_(y, x, x, -2)\nlerp_(y, x, r)\nlerp_(x, x, 0.25)\n"
      "clamp_tensor_(r, q, d)\nreturn c, d, y\n";
  expect_round_trip(text);
}

struct Bad {
  const char* text;
  ErrorKind kind;
  int line;
};

// Format v1.3: the metadata ops and unfold print as they parse, and bind
// the geometry of the view they mirror; the metadata op's result is the
// tensor object x itself.
TEST(Text, FormatV13RoundTrip) {
  const std::string text =
      "aliasfuzz 1\nstorage s0 f32[12] = iota(0.0, 1.0)\ninput x = as_strided(s0, [3, 4], [4, 1], 0)\n"
      "u = unfold(x, 1, 3, 1)\na = transpose_(x, 0, 1)\nb = t_(a)\nc = unsqueeze_(b, -1)\nd = squeeze_(c, 2)\n"
      "e = swapdims_(d, 1, 0)\nf = as_strided_(e, [2, 2], [1, 2], 3)\nadd_(f, 1.0)\nreturn u, f\n";
  const Analyzed a = analyzed(text);
  EXPECT_EQ(a.out(0).g, (Geometry{{3, 2, 3}, {4, 1, 1}, 0}));  // windows of 3 every 1 along dim 1
  EXPECT_EQ(a.out(1).g, (Geometry{{4, 3}, {1, 4}, 0}));
  EXPECT_EQ(a.out(2).g, (Geometry{{3, 4}, {4, 1}, 0}));
  EXPECT_EQ(a.out(3).g, (Geometry{{3, 4, 1}, {4, 1, 1}, 0}));
  EXPECT_EQ(a.out(4).g, (Geometry{{3, 4}, {4, 1}, 0}));
  EXPECT_EQ(a.out(6).g, (Geometry{{2, 2}, {1, 2}, 3}));
  for (int k = 1; k <= 6; ++k)
    EXPECT_EQ(a.out(k).impl, a.an.values[0].impl) << "statement " << k << " returns x itself";
  EXPECT_NE(a.out(0).impl, a.an.values[0].impl);  // unfold is a new view
}

// Format v1.5: view(x, i32) prints as it parses; its result shares x's
// geometry and storage with dtype i32, and dtypes flow through views,
// the i32 arithmetic and views back to f32.
TEST(Text, FormatV15RoundTripAndDtypes) {
  const std::string text =
      "aliasfuzz 1\nstorage s0 f32[6] = iota(0.0, 1.0)\ninput x = as_strided(s0, [2, 3], [3, 1], 0)\n"
      "y = view(x, i32)\nz = add(y, 3)\nt = transpose(z, 0, 1)\nw = view(t, f32)\nmul_(y, -2)\nc = clone(w)\n"
      "return z, y, c\n";
  const Analyzed a = analyzed(text);
  EXPECT_EQ(a.out(0).dtype, Dtype::I32);
  EXPECT_EQ(a.out(0).g, a.an.values[0].g);
  EXPECT_EQ(a.out(0).storage, a.an.values[0].storage);
  EXPECT_EQ(a.out(1).dtype, Dtype::I32);
  EXPECT_EQ(a.out(2).dtype, Dtype::I32);
  EXPECT_EQ(a.out(3).dtype, Dtype::F32);
  EXPECT_EQ(a.out(5).dtype, Dtype::F32);
}

// Format v1.5's flip prints as it parses; its result is a fresh storage in
// x's layout (preserve format: a transposed x's strides), of x's dtype.
TEST(Text, FormatV15FlipRoundTrip) {
  const std::string text =
      "aliasfuzz 1\nstorage s0 f32[12] = iota(0.0, 1.0)\ninput x = as_strided(s0, [4, 3], [1, 4], 0)\n"
      "t = flip(x, [0, -1])\ny = view(x, i32)\nu = flip(y, [1])\nreturn t, u\n";
  const Analyzed a = analyzed(text);
  EXPECT_EQ(a.out(0).g, (Geometry{{4, 3}, {1, 4}, 0}));
  EXPECT_NE(a.out(0).storage, a.an.values[0].storage);
  EXPECT_EQ(a.out(0).dtype, Dtype::F32);
  EXPECT_EQ(a.out(2).dtype, Dtype::I32);
}

// Format v1.5's i64 data: a view(x, i64) joins two f32 elements of the
// last dim (strides and offset halve), its view back splits them, and its
// elements are two memory words each (wide); an i64 view of an odd
// number of f32 words sees one element fewer.
TEST(Text, FormatV15WideViews) {
  const std::string text =
      "aliasfuzz 1\nstorage s0 f32[17] = iota(0.0, 1.0)\ninput x = as_strided(s0, [2, 4], [8, 1], 2)\n"
      "y = view(x, i64)\nz = mul(y, 3)\nt = view(z, i32)\nu = view(y, f32)\nreturn t, u\n";
  const Analyzed a = analyzed(text);
  EXPECT_EQ(a.out(0).g, (Geometry{{2, 2}, {4, 1}, 1}));
  EXPECT_TRUE(a.out(0).wide);
  EXPECT_EQ(a.out(0).storage_numel, 8);  // 17 words
  EXPECT_TRUE(a.out(1).wide);
  EXPECT_EQ(a.an.storage_numel[a.out(1).storage], 8);  // 4 elements, 8 words
  EXPECT_EQ(a.out(2).g, (Geometry{{2, 4}, {4, 1}, 0}));
  EXPECT_FALSE(a.out(2).wide);
  EXPECT_EQ(a.out(3).g, a.an.values[0].g);
  EXPECT_EQ(a.out(3).storage_numel, 17);
  // i64 data as an index: PyTorch takes it; the format checks index values
  // statically, so an index is a declared i64 storage's (kind `dtype`).
  auto p = parse_and_validate(
      "aliasfuzz 1\nstorage s f32[4] = full(0.0)\nstorage d f32[6] = iota(1.0, 1.0)\nstorage e f32[2] = "
      "iota(1.0, 1.0)\ninput x = s\ninput w = d\ninput src = e\ni = view(x, i64)\nindex_add_(w, 0, i, src)\n"
      "return w\n");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ErrorKind::Dtype);
  EXPECT_EQ(p.error().line, 9);
}

// Format v1.5's f64 data (tenth slice): i64's geometry and words; the
// same-size view across keeps them; a Python float stays a double.
TEST(Text, FormatV15F64Views) {
  const std::string text =
      "aliasfuzz 1\nstorage s0 f32[17] = iota(0.0, 1.0)\ninput x = as_strided(s0, [2, 4], [8, 1], 2)\n"
      "d = view(x, f64)\ne = mul(d, 0.1)\nq = view(e, i64)\nf = view(q, f64)\nreturn f\n";
  const Analyzed a = analyzed(text);
  EXPECT_EQ(a.out(0).g, (Geometry{{2, 2}, {4, 1}, 1}));
  EXPECT_EQ(a.out(0).dtype, Dtype::F64);
  EXPECT_TRUE(a.out(0).wide);
  EXPECT_TRUE(a.out(1).wide);
  EXPECT_EQ(a.out(1).dtype, Dtype::F64);
  EXPECT_EQ(a.an.storage_numel[a.out(1).storage], 8);  // 4 elements, 8 words
  EXPECT_EQ(a.out(2).dtype, Dtype::I64);
  EXPECT_TRUE(a.out(2).wide) << "i64 data, not an index";
  EXPECT_EQ(a.out(3).g, a.out(1).g);
  EXPECT_EQ(a.out(3).dtype, Dtype::F64);  // (analyzed() checks that the text prints back as written)
}

TEST(Text, FormatV15ErrorKinds) {
  const std::string base = "aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = s0\ny = view(x, i32)\n";
  const Bad cases[] = {
      {"z = add(y, 1.5)\nreturn z\n", ErrorKind::Dtype, 5},                  // a float number: PyTorch computes in f32
      {"z = add(y, x)\nreturn z\n", ErrorKind::Dtype, 5},                    // f32 and i32: promotion
      {"z = exp(y)\nreturn z\n", ErrorKind::Dtype, 5},                       // no i32 exp in the format
      {"z = sum(y, 0, 0)\nreturn z\n", ErrorKind::Dtype, 5},                 // PyTorch sums int32 into int64
      {"z = view(x, bool)\nreturn z\n", ErrorKind::Dtype, 5},                // bool is a mask dtype
      {"z = view(y, i64)\nw = add(z, y)\nreturn w\n", ErrorKind::Dtype, 6},  // i64 and i32: promotion
      {"z = view(x, i64)\nw = add(z, 1.5)\nreturn w\n", ErrorKind::Dtype, 6},          // i64 and a float
      {"z = view(x, i64)\nw = sum(z, 0, 0)\nreturn w\n", ErrorKind::Dtype, 6},         // no i64 reductions
      {"z = select(x, 0, 1)\nw = view(z, i64)\nreturn w\n", ErrorKind::View, 6},       // a 0-d tensor's element size
      {"z = slice(x, 0, 1, 4, 1)\nw = view(z, i64)\nreturn w\n", ErrorKind::View, 6},  // 3 f32 elements
      {"z = view(x, f16)\nreturn z\n", ErrorKind::Arg, 5},                             // no such dtype
      {"z = view(x, f64)\nw = mul(z, x)\nreturn w\n", ErrorKind::Dtype, 6},            // f64 and f32: promotion
      {"z = view(x, f64)\nw = sum(z, 0, 0)\nreturn w\n", ErrorKind::Dtype, 6},         // no f64 reductions
      {"z = view(x, f64)\nw = div(z, 3.0)\nreturn w\n", ErrorKind::Dtype, 6},  // division: not one rounding everywhere
      {"z = view(x, f64)\nw = view(z, i64)\nv = add(w, z)\nreturn v\n", ErrorKind::Dtype, 7},  // i64 and f64
      {"z = slice(x, 0, 1, 3, 1)\nw = view(z, f64)\nreturn w\n", ErrorKind::View, 6},          // an odd offset
      {"copy_(x, y)\nreturn x\n", ErrorKind::Dtype, 5},                                        // a conversion
      {"z = view(x, i32, 3)\nreturn z\n", ErrorKind::Arg, 5},   // the dtype alone: PyTorch's TypeError
      {"z = flip(x, [0, -1])\nreturn z\n", ErrorKind::Arg, 5},  // a dim twice
      {"z = flip(x, [1])\nreturn z\n", ErrorKind::Arg, 5},      // out of range
  };
  for (const Bad& c : cases) {
    auto p = parse_and_validate(base + c.text);
    ASSERT_FALSE(p) << c.text;
    EXPECT_EQ(p.error().kind, c.kind) << c.text << ": " << p.error().to_string();
    EXPECT_EQ(p.error().line, c.line) << c.text << ": " << p.error().to_string();
    EXPECT_EQ(p.error().message.find("view_dtype"), std::string::npos) << "spelled as written: " << p.error().message;
  }
}

TEST(Text, FormatV13ErrorKinds) {
  const std::string h = "aliasfuzz 1\nstorage s0 f32[12] = iota(0, 1)\ninput x = as_strided(s0, [3, 4], [4, 1], 0)\n";
  const Bad cases[] = {
      {"y = transpose_(x, 0, 1)\nz = neg(x)\n", ErrorKind::Retired, 5},  // x's object was re-shaped
      {"r = relu_(x)\ny = t_(x)\nz = neg(r)\n", ErrorKind::Retired, 6},  // r is x too
      {"y = t_(x)\nreturn x\n", ErrorKind::Retired, 5},
      {"y = t_(x)\nz = t_(x)\n", ErrorKind::Retired, 5},
      {"transpose_(x, 0, 1)\n", ErrorKind::Name, 4},  // the result must be bound
      {"y = transpose_(x, 0, 2)\n", ErrorKind::Arg, 4},
      {"y = squeeze_(x, 2)\n", ErrorKind::Arg, 4},
      {"y = unsqueeze_(x, 3)\n", ErrorKind::Arg, 4},
      {"y = swapdims_(x, -3, 0)\n", ErrorKind::Arg, 4},
      {"u = unsqueeze(x, 0)\ny = t_(u)\n", ErrorKind::Arg, 5},          // t_ of a 3-d tensor
      {"y = as_strided_(x, [4, 4], [4, 1], 0)\n", ErrorKind::View, 4},  // out of the storage
      {"y = as_strided_(x, [2], [1], -1)\n", ErrorKind::View, 4},
      {"u = unfold(x, 1, 5, 1)\n", ErrorKind::Arg, 4},  // window larger than the dim
      {"u = unfold(x, 1, 2, 0)\n", ErrorKind::Arg, 4},
      {"u = unfold(x, 1, -1, 1)\n", ErrorKind::Arg, 4},
      {"u = unfold(x, 2, 1, 1)\n", ErrorKind::Arg, 4},
      {"u = unfold(x, 1, 2, 1)\nadd_(u, 1.0)\n", ErrorKind::Undefined,
       5},  // overlapping windows: PyTorch does not check
      {"u = unfold(x, 1, 2, 1)\nc = clone(u)\ncopy_(u, c)\n", ErrorKind::Undefined, 6},
      // 1.13 slices a tensor squeeze_ made 0-d as the 1-d tensor it was, 2.x raises
      {"r = select(x, 0, 0)\nn = narrow(r, 0, 1, 1)\nz = squeeze_(n, 0)\nsetitem_(z, 0, 0, 1, 2.0)\n",
       ErrorKind::Version, 7},
  };
  for (const auto& c : cases) {
    const std::string text = h + c.text;
    auto p = parse_and_validate(text);
    ASSERT_FALSE(p) << text;
    EXPECT_EQ(kind_name(p.error().kind), std::string(kind_name(c.kind))) << text << "\n" << p.error().to_string();
    EXPECT_EQ(p.error().line, c.line) << text << "\n" << p.error().to_string();
  }
  // Valid: a view of x taken before the metadata op keeps its geometry,
  // fill_ through overlapping windows writes one value, a squeeze_ of a dim
  // that is not 1 leaves x as it is.
  const char* ok[] = {
      "v = select(x, 0, 1)\ny = t_(x)\nz = neg(y)\nreturn v, z\n",
      "u = unfold(x, 1, 2, 1)\nfill_(u, 2.0)\nreturn u\n",
      "y = squeeze_(x, 0)\nreturn y\n",
      "u = unfold(x, 0, 2, 2)\nneg_(u)\nreturn u\n",
  };
  for (const char* t : ok) {
    auto p = parse_and_validate(h + t);
    EXPECT_TRUE(p) << t << "\n" << p.error().to_string();
  }
}

// Format v1.2: i64 and bool storages (every initializer they take), inputs
// that are views of them, and the indexed and masked writes.
TEST(Text, FormatV12RoundTrip) {
  const std::string text =
      "aliasfuzz 1\nstorage s0 f32[12] = iota(0.0, 1.0)\nstorage ix i64[6] = [0, 2, 1, -1, 2, 0]\n"
      "storage io i64[3] = iota(0, 1)\nstorage iz i64[2] = full(1)\nstorage m bool[6] = random(3)\n"
      "storage m2 bool[3] = [1, 0, 1]\nstorage m3 bool[4] = full(0)\n"
      "input x = as_strided(s0, [3, 4], [4, 1], 0)\ninput i = as_strided(ix, [3], [2], 0)\ninput j = io\n"
      "input k = iz\ninput i2 = as_strided(ix, [2, 2], [2, 1], 2)\ninput mk = as_strided(m, [3, 4], [0, 1], 0)\n"
      "input m1 = m2\ninput m0 = m3\n"
      "y = clone(x)\nr = select(x, 1, 0)\nindex_put_(r, i, r, 0)\nv = index_put_(y, k, r, 1)\n"
      "index_add_(x, 0, k, y)\nindex_copy_(y, -1, j, y)\nscatter_(x, 0, i2, y)\nscatter_add_(y, 1, i2, x)\n"
      "masked_fill_(x, mk, 2.5)\nmasked_fill_(r, m1, -1)\nreturn v, x\n";
  auto p = parse(text);
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_EQ(print(*p), text);
  auto q = parse(print(*p));
  ASSERT_TRUE(q);
  EXPECT_TRUE(*p == *q);
  EXPECT_EQ(structural_hash(*p), structural_hash(*q));
  // The dtype is part of the structure.
  std::string as_f32 = text;
  as_f32.replace(as_f32.find("m2 bool"), 7, "m2 f32");
  auto r = parse(as_f32);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_NE(structural_hash(*p), structural_hash(*r));
  // v1 files print as they did: f32 only, no dtype words beyond f32.
  EXPECT_EQ(print(*parse("aliasfuzz 1\nstorage s f32[2] = [1.0, 2.0]\ninput x = s\nreturn x\n")),
            "aliasfuzz 1\nstorage s f32[2] = [1.0, 2.0]\ninput x = s\nreturn x\n");
}

TEST(Text, FormatV12ValidPrograms) {
  const std::string h =
      "aliasfuzz 1\nstorage s0 f32[12] = iota(0, 1)\nstorage ix i64[4] = [2, 0, -1, 1]\n"
      "storage m bool[4] = [1, 0, 0, 1]\ninput x = as_strided(s0, [3, 4], [4, 1], 0)\n"
      "input i = ix\ninput mk = m\n";
  const char* ok[] = {
      "y = full([4, 4], 1.0)\nv = full([4], 2.0)\nindex_put_(y, i, v, 1)\nreturn y\n",  // -1 wraps to 3: unique
      "y = full([4, 4], 1.0)\nv = full([4, 1], 2.0)\nindex_put_(y, i, v, 0)\nreturn y\n",
      "y = full([3, 4], 1.0)\nv = full([3, 4], 2.0)\nindex_copy_(y, 1, i, v)\nreturn y\n",  // invalid: -1
      "masked_fill_(x, mk, 1e38)\nreturn x\n",
  };
  int valid = 0;
  for (const char* c : ok) valid += static_cast<bool>(parse_and_validate(h + c));
  EXPECT_EQ(valid, 3);  // index_copy_ takes no negative index
}

// Format v1.2's rules with their kinds and lines (docs/format.md; each
// checked against PyTorch by tools/probe_format_v12.py).
TEST(Text, FormatV12ErrorKinds) {
  const std::string h =
      "aliasfuzz 1\nstorage s0 f32[12] = iota(0, 1)\nstorage ix i64[4] = [2, 0, 3, 1]\n"
      "storage dup i64[2] = [1, 1]\nstorage neg i64[2] = [0, -1]\nstorage m bool[4] = [1, 0, 0, 1]\n"
      "input x = as_strided(s0, [3, 4], [4, 1], 0)\ninput i = ix\ninput d = dup\ninput n = neg\n"
      "input mk = m\n";  // statements from line 12
  const Bad cases[] = {
      {"y = clone(x)\nindex_put_(y, i, y, 0)\n", ErrorKind::Overlap, 13},  // values alias the target
      {"y = full([3], 1.0)\nindex_put_(y, i, y, 0)\n", ErrorKind::Overlap, 13},
      {"y = full([2, 4], 1.0)\nindex_put_(x, i, y, 0)\n", ErrorKind::Shape, 13},      // 4 indices, 2 rows
      {"y = full([4, 4], 1.0)\nindex_put_(x, i, y, 0)\n", ErrorKind::Arg, 13},        // index 3 of 3 rows
      {"y = full([2, 4], 1.0)\nindex_put_(x, d, y, 0)\n", ErrorKind::Undefined, 13},  // duplicates, no accumulate
      {"y = full([2, 4], 1.0)\nindex_put_(x, d, y, 2)\n", ErrorKind::Arg, 13},
      {"y = full([3, 2], 1.0)\nindex_add_(x, 1, d, y)\ny2 = full([3, 2], 1.0)\nindex_copy_(x, 1, d, y2)\n",
       ErrorKind::Undefined, 15},                                               // index_add_ accumulates
      {"y = full([3, 2], 1.0)\nindex_add_(x, 1, n, y)\n", ErrorKind::Arg, 13},  // no negative index
      {"y = full([3, 3], 1.0)\nindex_add_(x, 1, d, y)\n", ErrorKind::Shape, 13},
      {"y = full([3, 2], 1.0)\nindex_add_(x, 2, d, y)\n", ErrorKind::Arg, 13},
      {"r = select(x, 0, 0)\ne = expand(r, [3, 4])\ny = full([3, 2], 1.0)\nindex_add_(e, 1, d, y)\n",
       ErrorKind::Overlap, 15},
      {"a = slice(x, 0, 0, 2, 1)\nb = slice(x, 0, 1, 3, 1)\nindex_copy_(a, 1, i, b)\n", ErrorKind::Overlap, 14},
      {"j = view(i, [2, 2])\n", ErrorKind::Dtype, 12},
      {"y = full([1, 4], 1.0)\nscatter_(x, 0, i, y)\n", ErrorKind::Shape, 13},  // index rank 1, target 2
      {"y = full([3, 4], 1.0)\nscatter_(x, 0, i, y)\n", ErrorKind::Shape, 13},
      {"masked_fill_(x, mk, 1e39)\n", ErrorKind::Arg, 12},
      {"r = select(x, 1, 0)\nmasked_fill_(r, mk, 1.0)\n", ErrorKind::Shape, 13},
  };
  for (const auto& c : cases) {
    auto p = parse_and_validate(h + c.text);
    ASSERT_FALSE(p) << c.text;
    EXPECT_EQ(kind_name(p.error().kind), std::string(kind_name(c.kind))) << c.text << "\n" << p.error().to_string();
    EXPECT_EQ(p.error().line, c.line) << c.text << "\n" << p.error().to_string();
  }
  // A 0-d source for one index into a target of rank 2: 1.13 raises
  // IndexError (select() of a 0-dim tensor), 2.9 a shape error. The shape
  // rule erased a dim of the 0-d source, and validation crashed.
  auto p = parse_and_validate(
      "aliasfuzz 1\nstorage s0 f32[9] = full(0.0)\nstorage s2 f32[1] = full(1.0)\nstorage one i64[1] = [1]\n"
      "input x = as_strided(s0, [3, 3], [3, 1], 0)\ninput v = as_strided(s2, [], [], 0)\ninput i = one\n"
      "index_add_(x, 0, i, v)\n");
  ASSERT_FALSE(p);
  EXPECT_EQ(kind_name(p.error().kind), std::string(kind_name(ErrorKind::Version))) << p.error().to_string();
  EXPECT_EQ(p.error().line, 8);
}

TEST(Text, HashIgnoresNamesButNotStructure) {
  auto a = parse("aliasfuzz 1\nstorage s f32[4] = full(1)\ninput x = s\ny = exp(x)\nreturn y\n");
  auto b = parse("aliasfuzz 1\nstorage q f32[4] = full(1)\ninput z = q\nw = exp(z)\nreturn w\n");
  auto c = parse("aliasfuzz 1\nstorage s f32[4] = full(1)\ninput x = s\ny = neg(x)\nreturn y\n");
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(structural_hash(*a), structural_hash(*b));
  EXPECT_NE(structural_hash(*a), structural_hash(*c));
}

TEST(Text, EveryErrorKindWithItsLine) {
  const std::string h = "aliasfuzz 1\nstorage s0 f32[12] = iota(0, 1)\ninput x = as_strided(s0, [3, 4], [4, 1], 0)\n";
  const Bad cases[] = {
      {"aliasfuzz 2\n", ErrorKind::Syntax, 1},
      {"storage s0 f32[3] = full(1)\n", ErrorKind::Syntax, 1},
      {"aliasfuzz 1\nstorage s0 f32[3] = full(1\n", ErrorKind::Syntax, 2},
      {"aliasfuzz 1\nstorage s0 f32[2] = [1, 2, 3]\n", ErrorKind::Arg, 2},
      {"aliasfuzz 1\nstorage s0 f32[8388608] = full(0)\n", ErrorKind::Limit, 2},
      {"x = y + 1\n", ErrorKind::Syntax, 4},
      {"y = exp(q)\n", ErrorKind::Name, 4},
      {"y = exp(x)\ny = neg(x)\n", ErrorKind::Name, 5},
      {"y = frobnicate(x)\n", ErrorKind::Name, 4},
      {"a, b = chunk(x, 3, 0)\n", ErrorKind::Name, 4},
      {"y = s0\n", ErrorKind::Syntax, 4},
      {"y = exp(s0)\n", ErrorKind::Name, 4},
      {"setitem_(x, 0, 0, 1, 2.0)\nreturn x\ny = exp(x)\n", ErrorKind::Syntax, 6},
      {"y = exp(x, 1)\n", ErrorKind::Arg, 4},
      {"y = transpose(x, 0, 2)\n", ErrorKind::Arg, 4},
      {"y = select(x, 0, 3)\n", ErrorKind::Arg, 4},
      {"y = sum(x, 0.5, 0)\n", ErrorKind::Arg, 4},
      {"y = add(x, [1, 2])\n", ErrorKind::Arg, 4},
      {"y = view(x, [5, -1])\n", ErrorKind::Shape, 4},
      {"y = t(x)\nz = view(y, [12])\n", ErrorKind::View, 5},
      {"y = as_strided(x, [4, 4], [4, 1], 0)\n", ErrorKind::View, 4},
      {"y = add(x, t(x))\n", ErrorKind::Syntax, 4},
      {"y = t(x)\nz = add(x, y)\n", ErrorKind::Shape, 5},
      {"y = matmul(x, x)\n", ErrorKind::Shape, 4},
      {"y = t(x)\nadd_(x, y)\n", ErrorKind::Overlap, 5},  // PyTorch checks overlap before shapes
      {"y = t(x)\nz = clone(y)\nadd_(x, z)\n", ErrorKind::Shape, 6},
      {"y = expand(select(x, 0, 0), [2, 4])\n", ErrorKind::Syntax, 4},
      {"r = select(x, 0, 0)\ne = expand(r, [2, 4])\nadd_(e, 1.0)\n", ErrorKind::Overlap, 6},
      {"a = slice(x, 1, 0, 3, 1)\nb = slice(x, 1, 1, 4, 1)\ncopy_(a, b)\n", ErrorKind::Undefined, 6},
      {"f = flatten(x)\na = slice(f, 0, 0, 3, 1)\nb = slice(f, 0, 1, 4, 1)\ncopy_(a, b)\n", ErrorKind::Overlap, 7},
      {"a = as_strided(x, [3, 3], [1, 1], 0)\nexp_(a)\n", ErrorKind::Undefined, 5},
      {"u = unsqueeze(x, 9)\n", ErrorKind::Arg, 4},
      {"f = full([2, 2, 2, 2, 2, 2, 2], 1.0)\n", ErrorKind::Limit, 4},
      {"f = full([4096, 4096], 1.0)\n", ErrorKind::Limit, 4},
      // format v1.1
      {"add_out(1.0, x, x)\n", ErrorKind::Arg, 4},  // the out tensor is a tensor
      {"add_out(x, x)\n", ErrorKind::Arg, 4},
      {"addcmul_(x, x, x)\n", ErrorKind::Arg, 4},  // value is not optional
      {"addcmul_(x, x, 1.0, 1.0)\n", ErrorKind::Arg, 4},
      {"y = clone(x)\nr = select(y, 0, 0)\nexp_out(r, x)\n", ErrorKind::Resize, 6},  // PyTorch would resize r
      {"y = clone(x)\nr = select(y, 0, 0)\nc = slice(x, 1, 0, 1, 1)\nadd_out(r, r, c)\n", ErrorKind::Shape, 7},
      {"f = flatten(x)\na = slice(f, 0, 0, 3, 1)\nb = slice(f, 0, 1, 4, 1)\nneg_out(b, a)\n", ErrorKind::Overlap, 7},
      {"a = slice(x, 1, 0, 2, 1)\nb = slice(x, 1, 1, 3, 1)\nneg_out(b, a)\n", ErrorKind::Undefined,
       6},  // too hard for PyTorch
      {"y = t(x)\nexp_out(x, y)\n", ErrorKind::Overlap, 5},
      {"r = select(x, 0, 0)\nlerp_(r, x, 0.5)\n", ErrorKind::Overlap, 5},  // overlap before shape
      {"y = clone(x)\nr = select(y, 0, 0)\nlerp_(r, x, 0.5)\n", ErrorKind::Shape, 6},
      {"y = clone(x)\nlerp_(x, y, 1e39)\n", ErrorKind::Arg, 5},
      {"r = select(x, 0, 0)\ne = expand(r, [3, 4])\nclamp_tensor_(e, x, x)\n", ErrorKind::Overlap, 6},
      {"f = flatten(x)\na = slice(f, 0, 0, 3, 1)\nb = slice(f, 0, 1, 4, 1)\nc = clone(a)\naddcdiv_(a, c, b, 1.0)\n",
       ErrorKind::Overlap, 8},
      // format v1.2
      {"aliasfuzz 1\nstorage i i64[2] = [0, 1.5]\n", ErrorKind::Syntax, 2},  // bad literal: not an integer
      {"aliasfuzz 1\nstorage m bool[2] = [0, 2]\n", ErrorKind::Syntax, 2},   // bad literal: not 0 or 1
      {"aliasfuzz 1\nstorage i i64[2] = random(3)\n", ErrorKind::Syntax, 2},
      {"aliasfuzz 1\nstorage m bool[2] = iota(0, 1)\n", ErrorKind::Syntax, 2},
      {"aliasfuzz 1\nstorage i i64[1] = [16777217]\n", ErrorKind::Limit, 2},
      {"aliasfuzz 1\nstorage i i32[1] = [1]\n", ErrorKind::Syntax, 2},
      {"aliasfuzz 1\nstorage i i64[2] = [0, 1]\ninput j = i\nadd_(j, 1)\n", ErrorKind::Dtype, 4},  // an index written
      {"aliasfuzz 1\nstorage i i64[2] = [0, 1]\ninput j = i\ny = neg(j)\n", ErrorKind::Dtype, 4},  // computed on
      {"aliasfuzz 1\nstorage i i64[2] = [0, 1]\ninput j = i\nv = view(j, [2, 1])\n", ErrorKind::Dtype, 4},
      {"aliasfuzz 1\nstorage i i64[2] = [0, 1]\ninput j = i\nreturn j\n", ErrorKind::Dtype, 4},  // returned
      {"aliasfuzz 1\nstorage m bool[2] = [0, 1]\ninput j = m\ny = cat([j, j], 0)\n", ErrorKind::Dtype, 4},
      {"y = clone(x)\nindex_put_(x, y, x, 0)\n", ErrorKind::Dtype, 5},  // an f32 index
      {"y = clone(x)\nindex_put_(x, 0, y, 0)\n", ErrorKind::Arg, 5},    // an integer is not an index tensor
      {"y = clone(x)\nindex_put_(x, y, y)\n", ErrorKind::Arg, 5},
  };
  for (const auto& c : cases) {
    std::string text = std::string(c.text).rfind("aliasfuzz", 0) == 0 || std::string(c.text).rfind("storage", 0) == 0
                           ? c.text
                           : h + c.text;
    auto p = parse_and_validate(text);
    ASSERT_FALSE(p) << text;
    EXPECT_EQ(kind_name(p.error().kind), std::string(kind_name(c.kind))) << text << "\n" << p.error().to_string();
    EXPECT_EQ(p.error().line, c.line) << text << "\n" << p.error().to_string();
  }
}

TEST(Text, ValidEdgeCases) {
  const char* ok[] = {
      "aliasfuzz 1\nstorage s f32[0] = []\ninput x = s\nreturn x\n",
      "aliasfuzz 1\nstorage s f32[4] = iota(0, 1)\ninput x = s\nadd_(x, x)\nreturn x\n",
      "aliasfuzz 1\nstorage s f32[4] = iota(0, 1)\ninput x = s\ne = expand(x, [3, 4])\nfill_(e, 2)\nreturn e\n",
      "aliasfuzz 1\nstorage s f32[4] = iota(0, 1)\ninput x = s\nu = add_(x, 1.0)\ncopy_(u, x)\nreturn u\n",
      "aliasfuzz 1\nstorage s f32[4] = iota(0, 1)\ninput x = s\ny = slice(x, 0, -3, 100, 2)\nreturn y\n",
      "aliasfuzz 1\nstorage s f32[4] = random(18446744073709551615)\ninput x = s\nreturn\n",
  };
  for (const char* t : ok) {
    auto p = parse_and_validate(t);
    EXPECT_TRUE(p) << t << "\n" << p.error().to_string();
  }
}

// Truncated and corrupted versions of every corpus program: an error or a
// valid program, never a crash.
TEST(Text, TruncatedAndCorruptedNeverCrash) {
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  int errors = 0, total = 0;
  for (const auto& f : corpus_files()) {
    const std::string text = slurp(f);
    for (size_t cut = 0; cut < text.size(); cut += 3) {
      auto p = parse_and_validate(text.substr(0, cut));
      ++total;
      if (!p) {
        ++errors;
        EXPECT_GE(p.error().line, 1);
      }
    }
    for (int k = 0; k < 200; ++k) {
      std::string t = text;
      const int edits = 1 + next() % 3;
      for (int e = 0; e < edits; ++e) {
        const size_t pos = next() % t.size();
        switch (next() % 3) {
          case 0: t[pos] = static_cast<char>(next() % 256); break;
          case 1: t.erase(pos, 1 + next() % 5); break;
          default: t.insert(pos, 1, "[](),=-.0123456789abcxyz_#\n"[next() % 27]); break;
        }
        if (t.empty()) t = "x";
      }
      auto p = parse_and_validate(t);
      ++total;
      if (!p) {
        ++errors;
        EXPECT_GE(p.error().line, 1) << t;
        EXPECT_FALSE(p.error().message.empty());
      }
    }
  }
  EXPECT_GT(errors, total / 2);
}

}  // namespace
// Hostile input: 200,000 nested '[' is a syntax error with its line, not a
// stack overflow.
// Format v1.5's foreach calls: one statement per element, marked; printed
// back as the one call; PyTorch's errors of a call's lists (kind arg).
TEST(Text, ForeachCalls) {
  const std::string head =
      "aliasfuzz 1\nstorage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\na = slice(x, 0, 0, 2, 1)\n"
      "b = slice(x, 0, 2, 4, 1)\n";
  for (const char* call : {"foreach_add_([a, b], [b, a])\n", "foreach_mul_([a, b], 2.0)\n",
                           "foreach_sub_([a, b, a], [1.0, 2.0, 0.5])\n", "foreach_copy_([a], [b])\n"}) {
    auto p = parse(head + call + "return x\n");
    ASSERT_TRUE(p) << call << p.error().to_string();
    EXPECT_EQ(print(*p), head + call + "return x\n");
    EXPECT_EQ(p->stmts[2].foreach, Foreach::Starts);
    EXPECT_EQ(foreach_end(*p, 2), p->stmts.size());
    for (size_t i = 3; i < p->stmts.size(); ++i) EXPECT_EQ(p->stmts[i].foreach, Foreach::Continues);
    EXPECT_EQ(p->stmts.back().line, 6);
  }
  // The same writes as statements of their own are another program.
  auto call = parse(head + "foreach_add_([a, b], [b, a])\nreturn x\n");
  auto own = parse(head + "add_(a, b)\nadd_(b, a)\nreturn x\n");
  ASSERT_TRUE(call && own);
  EXPECT_FALSE(*call == *own);
  EXPECT_NE(structural_hash(*call), structural_hash(*own));
  // An element whose second argument is of another kind ends the call.
  Program split = *call;
  split.stmts[3].args[1] = Arg::number(1.0);
  EXPECT_EQ(foreach_end(split, 2), 3u);
  EXPECT_EQ(print(split), head + "foreach_add_([a], [b])\nforeach_add_([b], 1.0)\nreturn x\n");
  // An element a pass gave another op (or a name) is a statement of its own.
  Program other = *call;
  other.stmts[3].op = OpKind::MulI;
  other.stmts[2].op = OpKind::ReluI;
  other.stmts[2].args.pop_back();
  EXPECT_EQ(foreach_end(other, 2), 2u);
  EXPECT_EQ(print(other), head + "relu_(a)\nforeach_mul_([b], [a])\nreturn x\n");
  struct Case {
    const char* call;
    ErrorKind kind;
  } cases[] = {
      {"foreach_add_([], [])", ErrorKind::Arg},            // at least one tensor
      {"foreach_add_([a, b], [a])", ErrorKind::Arg},       // the lists' lengths differ
      {"foreach_add_([a, b], [1.0])", ErrorKind::Arg},     // so do a list of numbers'
      {"foreach_add_([a, b], [b, 1.0])", ErrorKind::Arg},  // tensors or numbers, not both
      {"foreach_add_(a, [b])", ErrorKind::Arg},            // a list
      {"foreach_add_([a, 2.0], [b, a])", ErrorKind::Arg},  // of tensors
      {"foreach_copy_([a], 1.0)", ErrorKind::Arg},         // copy_ takes a tensor
      {"foreach_clamp_([a], [b])", ErrorKind::Name},       // no such foreach op
      {"foreach_add_([a], [c])", ErrorKind::Name},         // undefined
      {"y = foreach_add_([a], [b])", ErrorKind::Syntax},   // returns None
  };
  for (const auto& c : cases) {
    auto p = parse(head + c.call + "\nreturn x\n");
    ASSERT_FALSE(p) << c.call;
    EXPECT_EQ(kind_name(p.error().kind), std::string(kind_name(c.kind))) << c.call << ": " << p.error().to_string();
    EXPECT_EQ(p.error().line, 6) << c.call;
  }
}

TEST(Text, DeepNestingIsASyntaxError) {
  const std::string text =
      "aliasfuzz 1\nstorage s0 f32[4] = full(1)\ninput x = s0\ny = view(x, " + std::string(200000, '[') + ")\n";
  auto p = parse_and_validate(text);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind, ErrorKind::Syntax);
  EXPECT_EQ(p.error().line, 4);
}

// Error messages quote the input: invalid UTF-8 is shown as \xNN (every
// JSON writer downstream needs valid UTF-8).
TEST(Text, InvalidUtf8InAnErrorMessageIsEscaped) {
  auto p = parse_and_validate("aliasfuzz 1\nstorage s0 f32[4] = full(1)\ninput x = s0\ny = view(x, \xff\xfe)\n");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("\\xFF"), std::string::npos) << p.error().message;
  for (unsigned char c : p.error().message) EXPECT_LT(c, 0x80) << p.error().message;
}

// All storages together are capped (declared ones when parsing, fresh
// results of ops when analyzing): 200 storages of 2^22 elements, or ops
// making 2^22-element tensors past 2^26 in all, are `limit` errors.
TEST(Text, TotalStorageIsCapped) {
  std::string many = "aliasfuzz 1\n";
  for (int k = 0; k < 200; ++k) many += "storage s" + std::to_string(k) + " f32[4194304] = full(1)\n";
  auto a = parse_and_validate(many);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().kind, ErrorKind::Limit);
  // 15 declared storages of 2^22 and one fresh tensor are exactly 2^26; the
  // second fresh tensor passes it (well inside the work limit, 2^25).
  std::string chain = "aliasfuzz 1\n";
  for (int k = 0; k < 15; ++k) chain += "storage s" + std::to_string(k) + " f32[4194304] = full(1)\n";
  chain += "input x = s0\n";
  for (int k = 0; k < 4; ++k) chain += "t" + std::to_string(k) + " = add(x, 1.0)\n";
  auto b = parse_and_validate(chain);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().kind, ErrorKind::Limit);
  EXPECT_EQ(b.error().line, 1 + 15 + 1 + 2) << b.error().to_string();  // the 2nd fresh tensor
  EXPECT_NE(b.error().message.find("elements in all"), std::string::npos) << b.error().message;
}

// The work of a program is capped before it runs (Limits::max_work, 2^25
// element operations): one matmul at the storage limit, or thousands of
// in-place writes over a 4M-element storage, are `limit` errors at the
// statement that crosses the budget (or at the return), not minutes of
// execution; a view costs 1, so long view chains stay valid.
TEST(Analysis, WorkIsCapped) {
  const std::string big = "aliasfuzz 1\nstorage s0 f32[4194304] = full(1)\n";
  auto mm =
      parse_and_validate(big + "input x = as_strided(s0, [2048, 2048], [2048, 1], 0)\ny = matmul(x, x)\nreturn y\n");
  ASSERT_FALSE(mm.ok());
  EXPECT_EQ(mm.error().kind, ErrorKind::Limit);
  EXPECT_EQ(mm.error().line, 4);
  std::string writes = big + "input x = s0\n";
  for (int k = 0; k < 10000 - 1; ++k) writes += "add_(x, 1.0)\n";
  auto w = parse_and_validate(writes + "return x\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().kind, ErrorKind::Limit);
  EXPECT_EQ(w.error().line, 3 + 9);  // 8 writes of 2^22 elements reach 2^25; the 9th passes it
  std::string seven = big + "input x = s0\n";
  for (int k = 0; k < 7; ++k) seven += "add_(x, 1.0)\n";
  auto ok = parse(seven + "return x\n");
  ASSERT_TRUE(ok.ok());
  auto an = analyze(*ok);
  ASSERT_TRUE(an.ok()) << an.error().to_string();
  EXPECT_EQ(an->work, 8 * (int64_t{1} << 22));  // 7 writes and the return
  std::string views = big + "input x = s0\n";
  for (int k = 0; k < 9000; ++k) views += "v" + std::to_string(k) + " = view(x, [2048, 2048])\n";
  EXPECT_TRUE(parse_and_validate(views + "return x\n").ok());
  // matmul counts m*k*n: [256, 256] x [256, 256] is 2^24, twice is 2^25 plus the return.
  auto two = parse_and_validate(
      "aliasfuzz 1\nstorage s0 f32[65536] = full(1)\ninput x = as_strided(s0, [256, 256], [256, 1], 0)\n"
      "y = matmul(x, x)\nz = matmul(y, x)\nreturn z\n");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().line, 6);
}

// Equal programs hash the same: a field the storage's init does not use
// (an iota start left under a `list` init) is not part of the program.
TEST(StructuralHash, IgnoresFieldsTheInitDoesNotUse) {
  auto p = parse(
      "aliasfuzz 1\nstorage s f32[2] = [1.0, 2.0]\nstorage r f32[3] = random(7)\ninput x = s\ninput y = r\nreturn x, "
      "y\n");
  ASSERT_TRUE(p) << p.error().to_string();
  Program q = *p;
  q.storages[0].a = 1.5;  // list: a, b and seed unused
  q.storages[0].b = 2.0;
  q.storages[0].seed = 9;
  q.storages[1].a = 3.0;  // random: only the seed counts
  ASSERT_TRUE(q == *p);
  EXPECT_EQ(structural_hash(q), structural_hash(*p));
  q.storages[1].seed = 8;  // a used field still counts
  EXPECT_NE(structural_hash(q), structural_hash(*p));
}

}  // namespace af::ir
