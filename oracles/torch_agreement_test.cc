// The eager oracle agrees with PyTorch 1.13 eager (through the bridge) on
// every corpus program, on the hand-written error programs (corpus/errors/,
// `# expect: KIND LINE`) and on generated programs from a fixed seed:
// values within docs/design.md's tolerance and error kinds alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "generate/generator.h"
#include "generate/invalid.h"
#include "generate/noise_model.h"
#include "ir/analysis.h"
#include "ir/relayout.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/torch_bridge.h"
#include "oracles/torch_test_util.h"

namespace af::oracles {
namespace {

TEST(TorchAgreement, RunnerStarts) {
  std::string err;
  ASSERT_TRUE(test_runner().start(&err)) << err;
  EXPECT_EQ(test_runner().torch_version().substr(0, 4), "1.13");
}

TEST(TorchAgreement, Corpus) {
  auto files = af_files("corpus");
  ASSERT_GE(files.size(), 6u);
  int valid = 0, invalid = 0, needs_torch2 = 0;
  for (const auto& f : files) {
    auto p = ir::parse(slurp(f));
    if (!p) continue;  // syntax and name errors: see ErrorPrograms
    // Format v1.4's custom ops need torch >= 2.4 (torch.library.custom_op):
    // compared there when one is installed, counted (and printed) otherwise.
    TorchRunner* runner = &test_runner();
    if (ir::has_custom_ops(*p)) {
      runner = torch2_runner();
      if (!runner) {
        ++needs_torch2;
        continue;
      }
    }
    TorchResult t = runner->run(*p);
    std::string d = disagreement(*p, t);
    EXPECT_EQ(d, "") << f << "\n" << ir::print(*p);
    (ir::analyze(*p) ? valid : invalid)++;
  }
  EXPECT_GT(valid, 0);
  std::cout << "corpus: " << valid << " valid, " << invalid << " invalid programs compared; " << needs_torch2
            << " with a custom op not compared (no torch >= 2.4 installed)\n";
}

// corpus/errors/KIND_*.af: `# expect: KIND LINE`. syntax/name/limit are
// checked against the expectation only, arg/shape/view/overlap also against
// PyTorch raising the same kind, undefined and resize against PyTorch running it.
// version (1.13 and 2.x differ) against the expectation only: which version
// runs it differs from case to case (the file's comment says).
TEST(TorchAgreement, ErrorPrograms) {
  auto files = af_files("corpus/errors");
  std::set<std::string> kinds;
  const std::regex expect_re(R"(#\s*expect:\s*([a-z]+)\s+(\d+))");
  for (const auto& f : files) {
    const std::string text = slurp(f);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, expect_re)) << f << ": no '# expect: KIND LINE' comment";
    const std::string kind = m[1];
    const int line = std::stoi(m[2]);
    kinds.insert(kind);
    const std::string base = std::filesystem::path(f).filename().string();
    EXPECT_EQ(base.substr(0, kind.size()), kind) << f << ": name the file by its kind";
    auto p = ir::parse(text);
    ir::Result<ir::Analysis> an = p ? ir::analyze(*p) : ir::Result<ir::Analysis>(p.error());
    ASSERT_FALSE(an.ok()) << f << ": the oracle accepts it";
    EXPECT_EQ(ir::kind_name(an.error().kind), kind) << f << ": " << an.error().to_string();
    EXPECT_EQ(an.error().line, line) << f << ": " << an.error().to_string();
    if (!p || kind == "syntax" || kind == "name" || kind == "limit" || kind == "version") continue;
    TorchResult t = test_runner().run(*p);
    if (kind == "undefined" || kind == "resize") {
      EXPECT_TRUE(t.ok) << f << ": " << describe(t);
    } else {
      EXPECT_FALSE(t.ok) << f << ": PyTorch ran it";
      EXPECT_EQ(t.kind, kind) << f << ": " << describe(t);
      EXPECT_EQ(t.line, line) << f << ": " << describe(t);
    }
  }
  for (const char* k : {"syntax", "name", "arg", "shape", "view", "overlap", "undefined", "limit", "resize"})
    EXPECT_TRUE(kinds.count(k)) << "no error program of kind " << k << " in corpus/errors";
}

int generated_count() {
  if (const char* e = std::getenv("AF_TORCH_AGREEMENT_N")) return std::atoi(e);
  return 300;
}

TEST(TorchAgreement, GeneratedPrograms) {
  const int n = generated_count();
  const uint64_t seed = std::getenv("AF_TORCH_GEN_SEED") ? std::stoull(std::getenv("AF_TORCH_GEN_SEED")) : 20261129;
  fuzz::GenOptions options;  // the defaults; larger programs on request
  if (const char* e = std::getenv("AF_TORCH_GEN_SIZE")) options.size = std::atoi(e);
  if (const char* e = std::getenv("AF_TORCH_GEN_RANK")) options.max_rank = std::atoi(e);
  if (const char* e = std::getenv("AF_TORCH_GEN_NUMEL")) options.max_numel = std::atoll(e);
  int failures = 0, compared = 0;
  for (int k = 0; k < n; ++k) {
    ir::Program p = fuzz::generate(seed, k, options);
    ASSERT_TRUE(ir::analyze(p).ok()) << "generator emitted an invalid program " << k;
    TorchResult t = test_runner().run(p);
    std::string d = disagreement(p, t);
    ++compared;
    if (!d.empty()) {
      ++failures;
      if (failures <= 10) ADD_FAILURE() << "program " << k << " of seed " << seed << ": " << d << "\n" << ir::print(p);
    }
  }
  EXPECT_EQ(failures, 0) << failures << " of " << compared << " generated programs disagree";
  std::cout << "generated: " << compared << " programs compared, " << failures << " disagree\n";
}

// Format v1.4's --recall: the recall layouts of generated programs (the
// same statements, the inputs moved apart or together) through PyTorch:
// the oracle agrees on values and on which layouts are errors; at least 5%
// of the programs have a second call, and PyTorch accepts at least 80% of
// those layouts (issue #37's shares). Environment: AF_TORCH_RECALL_N
// programs (default 300), AF_TORCH_RECALL_SEED.
TEST(TorchAgreement, RecallLayouts) {
  const int n = std::getenv("AF_TORCH_RECALL_N") ? std::atoi(std::getenv("AF_TORCH_RECALL_N")) : 300;
  const uint64_t seed =
      std::getenv("AF_TORCH_RECALL_SEED") ? std::stoull(std::getenv("AF_TORCH_RECALL_SEED")) : 20261204;
  int with_layout = 0, accepted = 0, failures = 0, apart = 0;
  for (int k = 0; k < n; ++k) {
    const ir::Program p = fuzz::generate(seed, k, fuzz::GenOptions());
    const auto q = ir::recall_layout(p);
    if (!q) continue;
    ++with_layout;
    apart += ir::recall_direction(p) == "apart";
    const TorchResult t = test_runner().run(*q);
    accepted += t.ok;
    if (const std::string d = disagreement(*q, t); !d.empty() && ++failures <= 10)
      ADD_FAILURE() << "recall layout of program " << k << " of seed " << seed << ": " << d << "\n" << ir::print(*q);
  }
  EXPECT_EQ(failures, 0) << failures << " of " << with_layout << " recall layouts disagree";
  EXPECT_GE(with_layout * 20, n) << "fewer than 5% of the programs have a second call";
  EXPECT_GE(accepted * 5, with_layout * 4) << "PyTorch rejects more than 20% of the recall layouts";
  std::cout << "recall: " << with_layout << " of " << n << " programs have a recall layout (" << apart
            << " apart), PyTorch accepts " << accepted << ", " << failures << " disagree\n";
}

// The ops a format version added (docs/format.md), through PyTorch:
// programs whose generator weights favour them (values), then each once
// more, unchecked, with one statement at or just after such a statement
// changed as fuzz::variant changes it (a tensor argument replaced by an
// earlier value, a retired name among them; an integer moved; an index
// value moved out of range or onto another; up to `later` statements
// after it, where a retired name can be used), so that the version's rules
// (overlap, shape, out= resize, dtype, index, retired names) meet
// PyTorch's own checks: error kinds and lines alike (`undefined` must run
// in PyTorch; after a `resize`, `version` or `retired` statement PyTorch's
// shapes are no longer the format's). Environment: AF_TORCH_<V>_N programs
// (default 300), AF_TORCH_<V>_SEED. The comparison includes each input's
// final geometry (format v1.3's metadata ops change it): `reshapes_inputs`
// requires programs where some input ends with another geometry.
void agree_over_added_ops(const std::string& version, bool (*added)(ir::OpKind), size_t later,
                          const std::vector<const char*>& kinds_reached, bool reshapes_inputs = false,
                          TorchRunner& runner = test_runner()) {
  std::string env = "AF_TORCH_" + version + "_N";
  const int n = std::getenv(env.c_str()) ? std::atoi(std::getenv(env.c_str())) : 300;
  env = "AF_TORCH_" + version + "_SEED";
  const uint64_t seed = std::getenv(env.c_str()) ? std::stoull(std::getenv(env.c_str())) : 20261201;
  fuzz::GenOptions options;
  for (ir::OpKind op : ir::all_ops())
    if (added(op)) options.op_weights[ir::op_name(op)] = 5;  // about half of the statements
  std::map<std::string, int> kinds;                          // of the variants: "valid" or the oracle's error kind
  std::map<std::string, int> uses;                           // statements per added op in the programs
  int with_new = 0, failures = 0, variants = 0, reshaped = 0;
  for (uint64_t k = 0; with_new < n && k < static_cast<uint64_t>(4 * n); ++k) {
    ir::Program p = fuzz::generate(seed, k, options);
    std::vector<size_t> sites;
    for (size_t i = 0; i < p.stmts.size(); ++i)
      if (added(p.stmts[i].op)) {
        sites.push_back(i);
        uses[ir::op_name(p.stmts[i].op)]++;
      }
    if (sites.empty()) continue;
    ++with_new;
    if (auto an0 = ir::analyze(p)) {
      const auto g = input_geometries(p, *an0);
      for (size_t i = 0; i < g.size(); ++i)
        if (g[i] != an0->values[i].g) {
          ++reshaped;
          break;
        }
    }
    std::string d = disagreement(p, runner.run(p));
    if (!d.empty() && ++failures <= 10) ADD_FAILURE() << "program " << k << ": " << d << "\n" << ir::print(p);
    const uint64_t h = (k + 1) * 0x9E3779B97F4A7C15ULL;
    const size_t si = sites[k % sites.size()];
    const size_t at = si + (h >> 12) % std::min<size_t>(later + 1, p.stmts.size() - si);
    p = fuzz::variant(p, at, h);
    auto an = ir::analyze(p);
    // Format v1.5: a variant may view a rounded value as i32, whose bits
    // no two implementations share (generate/noise_model.h): counted apart.
    if (an && !fuzz::bit_exact_returns(p, *an)) {
      kinds["inexact i32"]++;
      continue;
    }
    kinds[an ? "valid" : ir::kind_name(an.error().kind)]++;
    ++variants;
    d = disagreement(p, runner.run(p));
    if (!d.empty() && ++failures <= 10)
      ADD_FAILURE() << "variant of program " << k << ": " << d << "\n" << ir::print(p);
  }
  EXPECT_GE(with_new, n) << "too few generated programs use an op of " << version;
  EXPECT_EQ(failures, 0);
  std::cout << "format " << version << ": " << with_new << " programs and " << variants << " variants compared, "
            << failures << " disagree (" << reshaped << " programs re-shape an input); statements:";
  for (const auto& [op, c] : uses) std::cout << " " << op << " " << c;
  std::cout << "; variants:";
  for (const auto& [kind, c] : kinds) std::cout << " " << kind << " " << c;
  std::cout << "\n";
  for (ir::OpKind op : ir::all_ops()) {
    if (added(op)) {
      EXPECT_GT(uses[ir::op_name(op)], 0) << ir::op_name(op);
    }
  }
  // The variants reach the rules PyTorch enforces, not only valid programs.
  for (const char* kind : kinds_reached) EXPECT_GT(kinds[kind], 0) << kind;
  if (reshapes_inputs) {
    EXPECT_GT(reshaped, 0) << "no program re-shapes an input: the input geometry is not exercised";
  }
}

// Format v1.1: out= variants and the multi-operand in-place ops.
TEST(TorchAgreement, FormatV11Ops) {
  agree_over_added_ops("V11", ir::added_in_v11, 0, {"valid", "overlap", "shape", "resize"});
}

// Format v1.2: indexed and masked writes.
TEST(TorchAgreement, FormatV12Ops) {
  agree_over_added_ops("V12", ir::added_in_v12, 0, {"valid", "overlap", "shape", "arg", "undefined", "dtype"});
}

// Format v1.3: the metadata ops (transpose_, t_, squeeze_, unsqueeze_,
// swapdims_, as_strided_) and unfold.
TEST(TorchAgreement, FormatV13Ops) {
  agree_over_added_ops("V13", ir::added_in_v13, 2, {"valid", "arg", "retired"}, /*reshapes_inputs=*/true);
}

// Format v1.4's mutable custom ops (custom_scale_, custom_copy_): they need
// torch.library.custom_op (torch >= 2.4), so they run under a venv's torch
// (2.9.1 or 2.15.0), not Debian's 1.13, and are skipped without one.
TEST(TorchAgreement, FormatV14Ops) {
  TorchRunner* r = torch2_runner();
  if (!r) GTEST_SKIP() << "skipped: no torch >= 2.4 (AF_TORCH_VENVS or AF_THUNDER_PYTHON)";
  agree_over_added_ops("V14", ir::added_in_v14, 0, {"valid", "overlap"}, false, *r);
  // A custom op returns None: a name bound to it is `name` in both (the
  // generator never binds one), and an expanded target is `overlap`.
  for (const char* text : {"aliasfuzz 1\nstorage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\ny = custom_scale_(x, 2.0)\n"
                           "return x\n",
                           "aliasfuzz 1\nstorage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\nt = slice(x, 0, 0, 2, 1)\n"
                           "y = custom_copy_(t, t)\nreturn y\n",
                           "aliasfuzz 1\nstorage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\nt = slice(x, 0, 0, 1, 1)\n"
                           "e = expand(t, [3])\ncustom_scale_(e, 2.0)\nreturn x\n",
                           "aliasfuzz 1\nstorage s0 f32[4] = iota(0.0, 1.0)\ninput x = s0\ny = graph_break()\n"
                           "return x\n"}) {
    auto p = ir::parse(text);
    ASSERT_TRUE(p.ok()) << text;
    auto an = ir::analyze(*p);
    ASSERT_FALSE(an.ok()) << text;
    EXPECT_TRUE(an.error().kind == ir::ErrorKind::Name || an.error().kind == ir::ErrorKind::Overlap) << text;
    EXPECT_EQ(disagreement(*p, r->run(*p)), "") << text;
  }
}

// Format v1.5: view(x, i32) of exact f32 values, the i32 arithmetic on
// what it views (add, sub, mul by an integer, neg, abs, clone, fill,
// zero, in place and out of place) and views back to f32, bit for bit (i32
// returns compare exactly). 2,000 programs by default (issue #58); the
// variants reach the mixes the format keeps out (`dtype`).
TEST(TorchAgreement, FormatV15Ops) {
  if (!std::getenv("AF_TORCH_V15_N")) setenv("AF_TORCH_V15_N", "2000", 0);
  agree_over_added_ops("V15", ir::added_in_v15, 2, {"valid", "dtype"});
}

// Format v1.5's i64 and f64 data: view(x, i64|f64) of f32 and i32 values
// (two 32-bit elements of the last dim joined into one), i64 <-> f64 (the
// same bits, another type), the exact arithmetic on both and their views
// back as i32 or f32 (each element split along the last dim), bit for bit
// (f64: IEEE double's add, sub, mul, neg, abs; Python floats as doubles).
// 3,000 programs holding such a view by default (issue #58), and a variant
// of each at or after one: the element-size rules (kind `view`, PyTorch's
// order of checks) and the mixes the format keeps out (`dtype`).
void agree_over_wide_dtype_views(TorchRunner& runner, int n) {
  fuzz::GenOptions options;  // (not all of --format 1.5: torch 1.13 has no custom ops)
  options.op_weights["view_dtype"] = 8;
  std::map<std::string, int> kinds, views, f64_ops;  // variants by kind; wide views by direction; f64 statements
  int with_wide = 0, failures = 0;
  for (uint64_t k = 0; with_wide < n && k < static_cast<uint64_t>(8 * n); ++k) {
    ir::Program p = fuzz::generate(20261208, k, options);
    auto an0 = ir::analyze(p);
    if (!an0) continue;
    std::vector<size_t> sites;
    for (size_t i = 0; i < p.stmts.size(); ++i) {
      const ir::Stmt& st = p.stmts[i];
      if (st.op != ir::OpKind::ViewDtype) {
        if (!st.outs.empty() && an0->values[st.outs[0]].dtype == ir::Dtype::F64) f64_ops[ir::op_name(st.op)]++;
        continue;
      }
      const ir::TensorMeta &to = an0->values[st.outs[0]], &from = an0->values[st.args[0].i];
      if (!to.wide && !from.wide) continue;
      sites.push_back(i);
      views[to.wide && from.wide ? std::string(ir::dtype_name(from.dtype)) + " to " + ir::dtype_name(to.dtype)
            : to.wide            ? std::string("to ") + ir::dtype_name(to.dtype)
                                 : std::string("from ") + ir::dtype_name(from.dtype)]++;
    }
    if (sites.empty()) continue;
    ++with_wide;
    std::string d = disagreement(p, runner.run(p));
    if (!d.empty() && ++failures <= 10) ADD_FAILURE() << "program " << k << ": " << d << "\n" << ir::print(p);
    const uint64_t h = (k + 1) * 0x9E3779B97F4A7C15ULL;
    const size_t at = std::min(sites[k % sites.size()] + (h >> 12) % 3, p.stmts.size() - 1);
    p = fuzz::variant(p, at, h);
    auto an = ir::analyze(p);
    if (an && !fuzz::bit_exact_returns(p, *an)) {  // a rounded value viewed as integers: counted apart
      kinds["inexact"]++;
      continue;
    }
    kinds[an ? "valid" : ir::kind_name(an.error().kind)]++;
    d = disagreement(p, runner.run(p));
    if (!d.empty() && ++failures <= 10)
      ADD_FAILURE() << "variant of program " << k << ": " << d << "\n" << ir::print(p);
  }
  EXPECT_GE(with_wide, n) << "too few generated programs hold an i64 or f64 view";
  EXPECT_EQ(failures, 0);
  std::cout << "i64 and f64 data: " << with_wide << " programs and their variants compared, " << failures
            << " disagree; wide views:";
  for (const auto& [dir, c] : views) std::cout << " " << dir << " " << c;
  std::cout << "; f64 statements:";
  for (const auto& [op, c] : f64_ops) std::cout << " " << op << " " << c;
  std::cout << "; variants:";
  for (const auto& [kind, c] : kinds) std::cout << " " << kind << " " << c;
  std::cout << "\n";
  for (const char* dir : {"to i64", "from i64", "to f64", "from f64", "i64 to f64", "f64 to i64"})
    EXPECT_GT(views[dir], 0) << dir;
  for (const char* op : {"add", "mul_", "fill_"}) EXPECT_GT(f64_ops[op], 0) << "no f64 " << op;
  for (const char* kind : {"valid", "view", "dtype"}) EXPECT_GT(kinds[kind], 0) << kind;
}

TEST(TorchAgreement, FormatV15WideDtypeViews) {
  agree_over_wide_dtype_views(test_runner(),
                              std::getenv("AF_TORCH_WIDE_N") ? std::atoi(std::getenv("AF_TORCH_WIDE_N")) : 3000);
}

// The same under torch 2.x's eager (its view_dtype and float64 kernels).
TEST(TorchAgreement, FormatV15WideDtypeViewsOnTorch2) {
  TorchRunner* r = torch2_runner();
  if (!r) GTEST_SKIP() << "skipped: no torch 2.x venv (AF_TORCH_VENVS or AF_THUNDER_PYTHON)";
  agree_over_wide_dtype_views(*r, 500);
}

// Format v1.5's matmul_nd (torch.matmul): the four paths PyTorch takes
// (a dot product, mv and mm of a folded batch, a bmm of broadcast batch
// dims), on expanded and transposed views of inputs, and a variant of each
// program at or after the product (the `shape` errors of each path, the
// `arg` error of a 0-d operand). 1,000 programs with a matmul_nd by default.
void agree_over_broadcast_matmul(TorchRunner& runner, int n) {
  fuzz::GenOptions options;
  options.op_weights["matmul_nd"] = 8;
  std::map<std::string, int> kinds, paths;  // variants by kind; products by torch.matmul's path
  int with_product = 0, failures = 0;
  for (uint64_t k = 0; with_product < n && k < static_cast<uint64_t>(8 * n); ++k) {
    ir::Program p = fuzz::generate(20261209, k, options);
    auto an0 = ir::analyze(p);
    if (!an0) continue;
    std::vector<size_t> sites;
    for (size_t i = 0; i < p.stmts.size(); ++i) {
      const ir::Stmt& st = p.stmts[i];
      if (st.op != ir::OpKind::MatmulNd) continue;
      sites.push_back(i);
      const size_t ra = an0->values[st.args[0].i].g.rank(), rb = an0->values[st.args[1].i].g.rank();
      paths[ra == 1 && rb == 1 ? "dot" : rb == 1 ? "mv" : rb == 2 ? "mm" : "bmm"]++;
    }
    if (sites.empty()) continue;
    ++with_product;
    std::string d = disagreement(p, runner.run(p));
    if (!d.empty() && ++failures <= 10) ADD_FAILURE() << "program " << k << ": " << d << "\n" << ir::print(p);
    const uint64_t h = (k + 1) * 0x9E3779B97F4A7C15ULL;
    const size_t at = std::min(sites[k % sites.size()] + (h >> 12) % 2, p.stmts.size() - 1);
    p = fuzz::variant(p, at, h);
    auto an = ir::analyze(p);
    kinds[an ? "valid" : ir::kind_name(an.error().kind)]++;
    d = disagreement(p, runner.run(p));
    if (!d.empty() && ++failures <= 10)
      ADD_FAILURE() << "variant of program " << k << ": " << d << "\n" << ir::print(p);
  }
  EXPECT_GE(with_product, n) << "too few generated programs hold a matmul_nd";
  EXPECT_EQ(failures, 0);
  std::cout << "matmul_nd: " << with_product << " programs and their variants compared, " << failures
            << " disagree; products by path:";
  for (const auto& [path, c] : paths) std::cout << " " << path << " " << c;
  std::cout << "; variants:";
  for (const auto& [kind, c] : kinds) std::cout << " " << kind << " " << c;
  std::cout << "\n";
  for (const char* path : {"dot", "mv", "mm", "bmm"}) EXPECT_GT(paths[path], 0) << path;
  for (const char* kind : {"valid", "shape"}) EXPECT_GT(kinds[kind], 0) << kind;
}

TEST(TorchAgreement, FormatV15BroadcastMatmul) {
  agree_over_broadcast_matmul(test_runner(),
                              std::getenv("AF_TORCH_MATMUL_N") ? std::atoi(std::getenv("AF_TORCH_MATMUL_N")) : 1000);
}

// The same under torch 2.x's eager, whose torch.matmul takes other paths
// than 1.13's (a matrix by a batch: a bmm, where 1.13 folds it into an mm).
TEST(TorchAgreement, FormatV15BroadcastMatmulOnTorch2) {
  TorchRunner* r = torch2_runner();
  if (!r) GTEST_SKIP() << "skipped: no torch 2.x venv (AF_TORCH_VENVS or AF_THUNDER_PYTHON)";
  agree_over_broadcast_matmul(*r, 300);
}

// Format v1.5's foreach calls (torch._foreach_add_ .. _foreach_copy_):
// eager runs their elements one by one in list order, which is what the
// format says; the generator's lists alias each other (the swap, a flip of
// the target, views of one storage). 1,000 programs with a call by default,
// and a variant of each (an argument changed at or after the call: the
// errors a call meets, which PyTorch raises at the call's line).
void agree_over_foreach_calls(TorchRunner& runner, int n) {
  fuzz::GenOptions options;                      // (not all of --format 1.5: torch 1.13 has no custom ops)
  options.op_weights[fuzz::kForeachWeight] = 4;  // every add_ .. copy_ drawn
  options.op_weights["flip"] = fuzz::kFormatV15Weight;
  std::map<std::string, int> kinds, elements;  // variants by kind; calls by their length
  int with_call = 0, failures = 0;
  for (uint64_t k = 0; with_call < n && k < static_cast<uint64_t>(4 * n); ++k) {
    ir::Program p = fuzz::generate(20261207, k, options);
    std::vector<size_t> calls;
    for (size_t i = 0; i < p.stmts.size(); ++i)
      if (ir::foreach_end(p, i) > i) {
        calls.push_back(i);
        elements[std::to_string(ir::foreach_end(p, i) - i)]++;
        i = ir::foreach_end(p, i) - 1;
      }
    if (calls.empty()) continue;
    ++with_call;
    std::string d = disagreement(p, runner.run(p));
    if (!d.empty() && ++failures <= 10) ADD_FAILURE() << "program " << k << ": " << d << "\n" << ir::print(p);
    const uint64_t h = (k + 1) * 0x9E3779B97F4A7C15ULL;
    const size_t at = calls[k % calls.size()] + (h >> 12) % 2;
    p = fuzz::variant(p, std::min(at, p.stmts.size() - 1), h);
    auto an = ir::analyze(p);
    kinds[an ? "valid" : ir::kind_name(an.error().kind)]++;
    d = disagreement(p, runner.run(p));
    if (!d.empty() && ++failures <= 10)
      ADD_FAILURE() << "variant of program " << k << ": " << d << "\n" << ir::print(p);
  }
  EXPECT_GE(with_call, n) << "too few generated programs hold a foreach call";
  EXPECT_EQ(failures, 0);
  std::cout << "foreach: " << with_call << " programs and their variants compared, " << failures
            << " disagree; calls by length:";
  for (const auto& [len, c] : elements) std::cout << " " << len << ": " << c;
  std::cout << "; variants:";
  for (const auto& [kind, c] : kinds) std::cout << " " << kind << " " << c;
  std::cout << "\n";
  EXPECT_GT(elements.size(), 1u) << "every call has one length";
}

TEST(TorchAgreement, FormatV15ForeachCalls) {
  agree_over_foreach_calls(test_runner(),
                           std::getenv("AF_TORCH_FOREACH_N") ? std::atoi(std::getenv("AF_TORCH_FOREACH_N")) : 1000);
}

// The same under a torch 2.x venv's eager: its own torch._foreach_copy_
// (torch 1.13 has none; the bridge runs copy_ element by element there).
TEST(TorchAgreement, FormatV15ForeachCallsOnTorch2) {
  TorchRunner* r = torch2_runner();
  if (!r) GTEST_SKIP() << "skipped: no torch >= 2.4 (AF_TORCH_VENVS or AF_THUNDER_PYTHON)";
  agree_over_foreach_calls(*r, 300);
}

// The unary ops (exp_ .. sin_, exp .. sin, the unary out= ops), sin and
// sin_ among them though the generator leaves them out by default (table
// weight 0), weighted up as a format version's ops are, with their
// variants: a new unary op is covered by its row alone.
TEST(TorchAgreement, UnaryOps) {
  agree_over_added_ops("UNARY", [](ir::OpKind op) { return ir::math_arity(ir::math_of(op)) == ir::MathArity::Unary; },
                       0, {"valid", "overlap", "resize"});
}

// Every op of the table (ir/ops.h), one by one: programs whose generator
// weights favour that op, through PyTorch. A new op is covered as soon as
// it has a row and a generator recipe; an op without a recipe must be one
// a strategy introduces (TorchStrategies covers those).
TEST(TorchAgreement, EveryOpOfTheTable) {
  int compared = 0;
  for (ir::OpKind op : ir::all_ops()) {
    const ir::OpInfo& info = ir::op_info(op);
    if (ir::is_custom_op(op)) continue;  // torch >= 2.4 only: FormatV14Ops
    if (info.recipe == ir::GenRecipe::NotGenerated) {
      EXPECT_TRUE(info.family == ir::Family::Scatter || info.family == ir::Family::Meta)
          << info.name << " has no generator recipe, so no agreement test reaches it";
      continue;
    }
    fuzz::GenOptions options;
    options.op_weights[info.name] = 30;  // about a third of the statements
    int uses = 0;
    for (int k = 0; k < 6 && uses < 6; ++k) {
      ir::Program p = fuzz::generate(20261201, k, options);
      for (const auto& st : p.stmts) uses += st.op == op;
      TorchResult t = test_runner().run(p);
      std::string d = disagreement(p, t);
      EXPECT_EQ(d, "") << info.name << ", program " << k << "\n" << ir::print(p);
      ++compared;
    }
    EXPECT_GT(uses, 0) << "no generated program uses " << info.name;
  }
  std::cout << "every op: " << compared << " programs compared\n";
}

}  // namespace
}  // namespace af::oracles
