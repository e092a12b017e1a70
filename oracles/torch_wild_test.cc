// Wild programs: random statements over the whole op vocabulary with
// arguments that are often, but not always, valid (dims, indices, sizes,
// strides, overlapping inputs and views). Unlike the generator's programs
// they end at their first error, so the oracle's error kinds and lines are
// compared with PyTorch's as much as its values. Fixed seed; the count can
// be raised with AF_TORCH_WILD_N.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"
#include "oracles/torch_bridge.h"
#include "oracles/torch_test_util.h"

namespace af::oracles {
namespace {

class Wild {
 public:
  explicit Wild(uint64_t seed) : rng_(seed) {}

  std::string program() {
    text_ = "aliasfuzz 1\n";
    names_.clear();
    layouts_.clear();
    const int ns = 1 + below(2);
    for (int s = 0; s < ns; ++s) {
      const int n = 1 + below(48);
      text_ += "storage s" + std::to_string(s) + " f32[" + std::to_string(n) + "] = " +
               (chance(0.7) ? "random(" + std::to_string(below(1000)) + ")"
                            : "iota(" + std::to_string(below(5) - 2) + ", 0.5)") +
               "\n";
      numel_.push_back(n);
    }
    const int ni = 1 + below(3);
    for (int i = 0; i < ni; ++i) {
      const int s = below(ns);
      const std::string name = "in" + std::to_string(i);
      std::string line;
      if (chance(0.3)) {
        line = "input " + name + " = s" + std::to_string(s);
      } else {
        const int rank = chance(0.05) ? 5 + below(2) : below(5);
        std::vector<int64_t> sz, st;
        for (int d = 0; d < rank; ++d) sz.push_back(chance(0.03) ? 0 : 1 + below(rank > 2 ? 3 : 4));
        int64_t stride = 1;
        for (int d = rank - 1; d >= 0; --d) {
          st.insert(st.begin(), chance(0.1) ? below(3) : stride);
          stride *= sz[d];
        }
        if (chance(0.3) && rank >= 2) std::swap(st[0], st[1]);
        line = "input " + name + " = as_strided(s" + std::to_string(s) + ", " + list(sz) + ", " + list(st) + ", " +
               std::to_string(below(4)) + ")";
      }
      if (!try_line(line)) {
        if (chance(0.95)) continue;  // usually keep only valid inputs
        text_ += line + "\n";
        return text_;
      }
      text_ += line + "\n";
      names_.push_back(name);
    }
    if (names_.empty()) {
      text_ += "input in9 = s0\n";
      names_.push_back("in9");
    }
    const int nst = 3 + below(8);
    for (int k = 0; k < nst; ++k) {
      std::string line = statement(k);
      if (line.empty()) continue;
      text_ += line + "\n";
      auto p = ir::parse(text_);
      if (!p || !ir::analyze(*p)) return text_;  // the program ends at its first error
      // Reveal the memory layout of a fresh result: its storage in memory order.
      auto an = ir::analyze(*p);
      const ir::Stmt& st = p->stmts.back();
      if (st.outs.size() == 1 && an->fresh_storage.back() >= 0 && chance(0.5)) {
        const std::string out = p->value_names[st.outs[0]];
        const std::string lay = "lay" + std::to_string(fresh_++);
        text_ += lay + " = as_strided(" + out + ", [" + std::to_string(an->storage_numel[an->fresh_storage.back()]) +
                 "], [1], 0)\n";
        names_.push_back(lay);
        layouts_.push_back(lay);
      }
    }
    text_ += "return " + names_[below(names_.size())];
    if (names_.size() > 1 && chance(0.5)) text_ += ", " + names_[below(names_.size())];
    for (const auto& l : layouts_) text_ += ", " + l;
    return text_ + "\n";
  }

 private:
  std::mt19937_64 rng_;
  std::string text_;
  std::vector<std::string> names_;
  std::vector<int64_t> numel_;
  std::vector<std::string> layouts_;
  int fresh_ = 0;

  int below(size_t n) { return static_cast<int>(rng_() % n); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  static std::string list(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  }
  bool try_line(const std::string& line) {
    auto p = ir::parse(text_ + line + "\n");
    return p && ir::analyze(*p);
  }
  // The geometry of a defined name (the program so far is valid).
  ir::Geometry geo(const std::string& n) {
    auto p = ir::parse(text_);
    auto an = ir::analyze(*p);
    for (int v = 0; v < p->num_values(); ++v)
      if (p->value_names[v] == n) return an->values[v].g;
    return {};
  }
  int64_t dim(int rank) {
    if (chance(0.08)) return chance(0.5) ? rank : -rank - 1;  // out of range
    const int r = std::max(rank, 1);
    return below(r) - (chance(0.3) ? r : 0);
  }
  int64_t index(int64_t n) {
    if (chance(0.1)) return n + below(2);
    return below(std::max<int64_t>(n, 1)) - (chance(0.2) ? n : 0);
  }
  std::string number() {
    static const char* odd[] = {"1e39", "-3.5e38", "nan", "inf", "-inf", "1e-50"};
    if (chance(0.04)) return odd[below(6)];
    static const char* v[] = {"0.5", "-1.5", "2.0", "0.0", "3", "-0.25"};
    return v[below(6)];
  }
  std::string new_name() { return "t" + std::to_string(fresh_++); }

  std::vector<int64_t> factor_sizes(int64_t numel) {
    std::vector<int64_t> r;
    const int rank = 1 + below(3);
    int64_t left = numel;
    for (int d = 0; d < rank - 1; ++d) {
      std::vector<int64_t> divs;
      for (int64_t q = 1; q <= left; ++q)
        if (left % q == 0) divs.push_back(q);
      const int64_t q = divs.empty() ? 1 : divs[below(divs.size())];
      r.push_back(q);
      left = q ? left / q : 0;
    }
    r.push_back(left);
    if (chance(0.3)) r[below(r.size())] = -1;
    if (chance(0.05)) r[0] += 1;
    return r;
  }

  std::string statement(int k) {
    static const std::vector<std::string> ops = {"view",
                                                 "reshape",
                                                 "flatten",
                                                 "contiguous",
                                                 "t",
                                                 "transpose",
                                                 "permute",
                                                 "slice",
                                                 "narrow",
                                                 "select",
                                                 "unsqueeze",
                                                 "squeeze",
                                                 "expand",
                                                 "diagonal",
                                                 "as_strided",
                                                 "chunk",
                                                 "split",
                                                 "unbind",
                                                 "alias",
                                                 "add_",
                                                 "sub_",
                                                 "mul_",
                                                 "div_",
                                                 "exp_",
                                                 "neg_",
                                                 "abs_",
                                                 "relu_",
                                                 "tanh_",
                                                 "sigmoid_",
                                                 "clamp_",
                                                 "fill_",
                                                 "zero_",
                                                 "copy_",
                                                 "setitem_",
                                                 "add",
                                                 "sub",
                                                 "mul",
                                                 "div",
                                                 "exp",
                                                 "neg",
                                                 "abs",
                                                 "relu",
                                                 "tanh",
                                                 "sigmoid",
                                                 "clone",
                                                 "sum",
                                                 "amax",
                                                 "softmax",
                                                 "matmul",
                                                 "cat",
                                                 "full",
                                                 "slice_scatter",
                                                 "select_scatter",
                                                 "diagonal_scatter",
                                                 "as_strided_scatter",
                                                 "update_aliases"};
    const std::string op = ops[below(ops.size())];
    const std::string x = names_[below(names_.size())];
    const ir::Geometry g = geo(x);
    const int r = g.rank();
    auto size_at = [&](int64_t d) -> int64_t {
      auto w = ir::wrap_dim(d, r);
      return (w && r > 0) ? g.sizes[*w] : 1;
    };
    auto other = [&]() {
      // A tensor operand: usually one that broadcasts to x, sometimes any.
      if (chance(0.5)) return names_[below(names_.size())];
      return x;
    };
    std::string args;
    int nout = 1;
    bool inplace = op.back() == '_';
    if (op == "view" || op == "reshape")
      args = x + ", " + list(factor_sizes(g.numel()));
    else if (op == "flatten" || op == "contiguous" || op == "t" || op == "alias" || op == "exp_" || op == "neg_" ||
             op == "abs_" || op == "relu_" || op == "tanh_" || op == "sigmoid_" || op == "zero_" || op == "exp" ||
             op == "neg" || op == "abs" || op == "relu" || op == "tanh" || op == "sigmoid" || op == "clone")
      args = x;
    else if (op == "transpose")
      args = x + ", " + std::to_string(dim(r)) + ", " + std::to_string(dim(r));
    else if (op == "permute") {
      std::vector<int64_t> p(r);
      for (int i = 0; i < r; ++i) p[i] = i;
      std::shuffle(p.begin(), p.end(), rng_);
      if (chance(0.1) && r > 0) p[0] = p.back();
      if (chance(0.2) && r > 0) p[0] -= r;
      args = x + ", " + list(p);
    } else if (op == "slice") {
      const int64_t d = dim(r), n = size_at(d);
      args = x + ", " + std::to_string(d) + ", " + std::to_string(index(n)) + ", " + std::to_string(index(n + 1) + 1) +
             ", " + std::to_string(chance(0.05) ? 0 : 1 + below(3));
    } else if (op == "narrow") {
      const int64_t d = dim(r), n = size_at(d), s = index(n);
      args = x + ", " + std::to_string(d) + ", " + std::to_string(s) + ", " +
             std::to_string(below(n + 1) - (chance(0.05) ? 2 : 0));
    } else if (op == "select") {
      const int64_t d = dim(r);
      args = x + ", " + std::to_string(d) + ", " + std::to_string(index(size_at(d)));
    } else if (op == "unsqueeze")
      args = x + ", " + std::to_string(dim(r + 1));
    else if (op == "squeeze")
      args = x + ", " + std::to_string(dim(r));
    else if (op == "expand") {
      std::vector<int64_t> s = g.sizes;
      for (auto& e : s) {
        if (e == 1 && chance(0.6))
          e = 1 + below(3);
        else if (chance(0.2))
          e = -1;
        else if (chance(0.03))
          e += 1;
      }
      if (chance(0.4)) s.insert(s.begin(), 1 + below(3));
      if (chance(0.05) && !s.empty()) s.erase(s.begin());
      args = x + ", " + list(s);
    } else if (op == "diagonal") {
      args = x + ", " + std::to_string(below(5) - 2) + ", " + std::to_string(dim(r)) + ", " + std::to_string(dim(r));
    } else if (op == "as_strided") {
      std::vector<int64_t> sz, st;
      const int rank = below(3);
      for (int d = 0; d < rank; ++d) {
        sz.push_back(chance(0.05) ? 0 : 1 + below(3));
        st.push_back(below(4));
      }
      args = x + ", " + list(sz) + ", " + list(st) + ", " + std::to_string(below(5));
    } else if (op == "chunk" || op == "split" || op == "unbind") {
      const int64_t d = dim(r);
      if (op == "unbind") {
        args = x + ", " + std::to_string(d);
        nout = static_cast<int>(size_at(d));
      } else {
        const int64_t c = 1 + below(3) - (chance(0.05) ? 1 : 0);
        args = x + ", " + std::to_string(c) + ", " + std::to_string(d);
        const int64_t n = size_at(d);
        const int64_t piece = op == "chunk" ? (c > 0 ? (n + c - 1) / c : 1) : c;
        nout = piece > 0 ? static_cast<int>(std::max<int64_t>((n + piece - 1) / piece, 1)) : 1;
      }
      if (chance(0.05)) nout += 1;
      if (nout > 6 || nout < 1) nout = 1;
    } else if (op == "add_" || op == "sub_" || op == "mul_" || op == "div_" || op == "copy_") {
      args = x + ", " + (op != "copy_" && chance(0.4) ? number() : other());
    } else if (op == "clamp_")
      args = x + ", " + number() + ", " + number();
    else if (op == "fill_")
      args = x + ", " + number();
    else if (op == "setitem_") {
      const int64_t d = dim(r), n = size_at(d);
      args = x + ", " + std::to_string(d) + ", " + std::to_string(index(n)) + ", " + std::to_string(index(n + 1) + 1) +
             ", " + (chance(0.4) ? number() : other());
      nout = 0;
    } else if (op == "add" || op == "sub" || op == "mul" || op == "div") {
      args = x + ", " + (chance(0.3) ? number() : other());
    } else if (op == "sum" || op == "amax")
      args = x + ", " + std::to_string(dim(r)) + ", " + std::to_string(below(2));
    else if (op == "softmax")
      args = x + ", " + std::to_string(dim(r));
    else if (op == "matmul")
      args = x + ", " + other();
    else if (op == "cat")
      args = "[" + x + ", " + other() + "], " + std::to_string(dim(r));
    else if (op == "full") {
      std::vector<int64_t> s;
      for (int d = below(3); d > 0; --d) s.push_back(below(4));
      args = list(s) + ", " + number();
    } else if (op == "slice_scatter") {
      const int64_t d = dim(r), n = size_at(d);
      const int64_t a = index(n), b = index(n + 1) + 1, step = 1 + below(2);
      // src: a fresh tensor of the slot's shape (usually)
      std::string src = "src" + std::to_string(fresh_++);
      std::string s1 = src + "v = slice(" + x + ", " + std::to_string(d) + ", " + std::to_string(a) + ", " +
                       std::to_string(b) + ", " + std::to_string(step) + ")";
      if (!try_line(s1)) return "";
      text_ += s1 + "\n" + src + " = mul(" + src + "v, 2.0)\n";
      args = x + ", " + src + ", " + std::to_string(d) + ", " + std::to_string(a) + ", " + std::to_string(b) + ", " +
             std::to_string(step);
    } else if (op == "select_scatter") {
      const int64_t d = dim(r), i = index(size_at(d));
      std::string src = "src" + std::to_string(fresh_++);
      std::string s1 = src + "v = select(" + x + ", " + std::to_string(d) + ", " + std::to_string(i) + ")";
      if (!try_line(s1)) return "";
      text_ += s1 + "\n" + src + " = neg(" + src + "v)\n";
      args = x + ", " + src + ", " + std::to_string(d) + ", " + std::to_string(i);
    } else if (op == "diagonal_scatter") {
      const std::string o = std::to_string(below(3) - 1), d0 = std::to_string(dim(r)), d1 = std::to_string(dim(r));
      std::string src = "src" + std::to_string(fresh_++);
      std::string s1 = src + "v = diagonal(" + x + ", " + o + ", " + d0 + ", " + d1 + ")";
      if (!try_line(s1)) return "";
      text_ += s1 + "\n" + src + " = exp(" + src + "v)\n";
      args = x + ", " + src + ", " + o + ", " + d0 + ", " + d1;
    } else if (op == "as_strided_scatter") {
      std::vector<int64_t> sz, st;
      for (int d = below(3); d > 0; --d) {
        sz.push_back(1 + below(3));
        st.push_back(below(4));
      }
      const std::string off = std::to_string(below(3));
      std::string src = "src" + std::to_string(fresh_++);
      text_ += src + " = full(" + list(sz) + ", 7.0)\n";
      names_.push_back(src);
      args = x + ", " + src + ", " + list(sz) + ", " + list(st) + ", " + off;
    } else if (op == "update_aliases") {
      // Distinct tensors, as a strategy threads them.
      std::string a = x, b = names_[below(names_.size())];
      if (a == b) return "";
      args = "[" + a + ", " + b + "]";
      nout = 2;
    }
    std::string lhs;
    if (inplace) {
      if (op != "setitem_" && chance(0.3))
        nout = 1;
      else
        nout = op == "setitem_" && chance(0.03) ? 1 : 0;
      if (chance(0.02)) nout = 2;
    } else if (chance(0.02)) {
      nout += 1;
    }
    std::vector<std::string> outs;
    for (int i = 0; i < nout; ++i) outs.push_back(new_name());
    for (size_t i = 0; i < outs.size(); ++i) lhs += (i ? ", " : "") + outs[i];
    if (op == "update_aliases" && outs.size() == 2) {
      // As strategies use it: later statements see only the new names.
      const std::string a = args.substr(1, args.find(',') - 1);
      const std::string b = args.substr(args.find(", ") + 2, args.size() - args.find(", ") - 3);
      names_.erase(std::remove_if(names_.begin(), names_.end(), [&](const std::string& n) { return n == a || n == b; }),
                   names_.end());
    }
    for (const auto& o : outs) names_.push_back(o);
    (void)k;
    return (lhs.empty() ? "" : lhs + " = ") + op + "(" + args + ")";
  }
};

TEST(TorchWild, OracleAgreesWithPyTorch) {
  const char* e = std::getenv("AF_TORCH_WILD_N");
  const int n = e ? std::atoi(e) : 1500;
  const uint64_t seed = e && std::getenv("AF_TORCH_WILD_SEED") ? std::stoull(std::getenv("AF_TORCH_WILD_SEED")) : 7;
  int failures = 0, valid = 0, invalid = 0;
  std::map<std::string, int> kinds;
  const int from = std::getenv("AF_TORCH_WILD_FROM") ? std::atoi(std::getenv("AF_TORCH_WILD_FROM")) : 0;
  for (int k = from; k < n; ++k) {
    if (std::getenv("AF_WILD_TRACE"))
      std::cerr << "program " << k << "\n" << Wild(seed * 1000003 + k).program() << "\n";
    Wild w(seed * 1000003 + k);
    const std::string text = w.program();
    auto p = ir::parse(text);
    if (!p) {
      if (std::getenv("AF_WILD_DEBUG")) std::cerr << p.error().to_string() << "\n" << text << "\n";
      continue;
    }
    auto an = ir::analyze(*p);
    if (an)
      ++valid;
    else {
      ++invalid;
      kinds[ir::kind_name(an.error().kind)]++;
    }
    TorchResult t = test_runner().run(*p);
    std::string d = disagreement(*p, t);
    if (!d.empty()) {
      ++failures;
      if (failures <= (std::getenv("AF_WILD_ALL") ? 100000 : 15))
        ADD_FAILURE() << "wild program " << k << ": " << d << "\n" << text;
    }
  }
  std::cout << "wild: " << valid << " valid, " << invalid << " invalid (";
  for (auto& [k, c] : kinds) std::cout << k << " " << c << " ";
  std::cout << "), " << failures << " disagree\n";
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace af::oracles
