#include "ir/text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <sstream>

namespace af::ir {

namespace {

// A cursor over one line.
class Lexer {
 public:
  Lexer(const std::string& s, int line) : s_(s), line_(line) {}
  void skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\r')) ++p_;
  }
  bool at_end() {
    skip();
    return p_ >= s_.size();
  }
  bool accept(char c) {
    skip();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skip();
    return p_ < s_.size() && s_[p_] == c;
  }
  bool peek_name() {
    skip();
    return p_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_');
  }
  std::string name() {
    skip();
    size_t b = p_;
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')) ++p_;
    return s_.substr(b, p_ - b);
  }
  // A number token: returns false if none. is_int when it has no '.', 'e', inf or nan.
  bool number(double* v, int64_t* iv, bool* is_int) {
    skip();
    size_t b = p_;
    if (p_ < s_.size() && (s_[p_] == '-' || s_[p_] == '+')) ++p_;
    if (s_.compare(p_, 3, "inf") == 0 || s_.compare(p_, 3, "nan") == 0) {
      p_ += 3;
      if (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')) {
        p_ = b;
        return false;
      }
      *is_int = false;
      const bool neg = s_[b] == '-';
      *v = s_[p_ - 3] == 'i' ? (neg ? -INFINITY : INFINITY) : NAN;
      return true;
    }
    size_t digits = p_;
    while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) ++p_;
    bool frac = false;
    if (p_ < s_.size() && s_[p_] == '.') {
      frac = true;
      ++p_;
      while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) ++p_;
    }
    if (p_ == digits || (frac && p_ == digits + 1 &&
                         (digits == 0 || !std::isdigit(static_cast<unsigned char>(s_[digits - 1]))) && false)) {
      p_ = b;
      return false;
    }
    if (p_ - digits == 1 && frac) {
      p_ = b;
      return false;
    }  // a lone "."
    if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
      size_t e = p_++;
      if (p_ < s_.size() && (s_[p_] == '-' || s_[p_] == '+')) ++p_;
      size_t ed = p_;
      while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) ++p_;
      if (p_ == ed) {
        p_ = e;
      } else {
        frac = true;
      }
    }
    if (p_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')) {
      p_ = b;
      return false;
    }
    std::string tok = s_.substr(b, p_ - b);
    *is_int = !frac;
    if (*is_int) {
      errno = 0;
      char* end = nullptr;
      long long x = std::strtoll(tok.c_str(), &end, 10);
      if (errno == ERANGE) {
        p_ = b;
        return false;
      }
      *iv = x;
      *v = static_cast<double>(x);
    } else {
      *v = std::strtod(tok.c_str(), nullptr);
    }
    return true;
  }
  size_t pos() const { return p_; }
  std::string rest() {
    skip();
    return s_.substr(p_);
  }

 private:
  const std::string& s_;
  size_t p_ = 0;
  int line_;
};

struct RawArg {
  enum Kind { Name, Int, Float, List } kind;
  std::string name;
  int64_t i = 0;
  double f = 0;
  std::vector<RawArg> items;
};

class Parser {
 public:
  Parser(const Limits& l) : limits_(l) {}

  Result<Program> run(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    int line = 0;
    bool header = false;
    while (std::getline(in, raw)) {
      ++line;
      for (char c : raw)
        if (c == '\0' || (static_cast<unsigned char>(c) < 32 && c != '\t' && c != '\r'))
          return Error{ErrorKind::Syntax, line, "control character in the text"};
      std::string s = raw.substr(0, raw.find('#'));
      Lexer lx(s, line);
      if (lx.at_end()) continue;
      if (!header) {
        std::string w = lx.name();
        double v;
        int64_t iv;
        bool is_int;
        if (w != "aliasfuzz" || !lx.number(&v, &iv, &is_int) || !is_int || !lx.at_end())
          return Error{ErrorKind::Syntax, line, "expected the header 'aliasfuzz 1'"};
        if (iv != 1) return Error{ErrorKind::Syntax, line, "unsupported format version " + std::to_string(iv)};
        header = true;
        continue;
      }
      if (p_.has_return) {  // only format v1.4's backward(SEED) may follow the return, once
        if (p_.backward || !lx.peek_name() || lx.name() != "backward")
          return Error{ErrorKind::Syntax, line,
                       "'return' must be the last statement (only a training program's backward(SEED) follows it)"};
        if (auto e = backward(lx, line)) return *e;
        continue;
      }
      if (auto e = statement(lx, line)) return *e;
    }
    if (!header)
      return Error{ErrorKind::Syntax, line == 0 ? 1 : line, "empty program: expected the header 'aliasfuzz 1'"};
    return std::move(p_);
  }

 private:
  Limits limits_;
  Program p_;
  std::map<std::string, int> values_, storages_;
  int ops_ = 0;
  int64_t total_numel_ = 0;

  Error syntax(int line, const std::string& m) { return Error{ErrorKind::Syntax, line, m}; }

  // A value of an i64 storage is an integer of at most kMaxIndexValue in
  // magnitude (memory holds it as an exact float); of a bool storage, 0 or 1.
  std::optional<Error> index_value(Dtype dt, double v, bool is_int, int line) {
    if (dt == Dtype::F32) return std::nullopt;
    if (dt == Dtype::Bool) {
      if (!is_int || (v != 0 && v != 1)) return syntax(line, "a bool storage's values are 0 and 1");
      return std::nullopt;
    }
    if (!is_int) return syntax(line, "an i64 storage's values are integers");
    if (std::fabs(v) > static_cast<double>(kMaxIndexValue))
      return Error{ErrorKind::Limit, line,
                   "i64 value " + format_number(v) + " exceeds the limit of " + std::to_string(kMaxIndexValue)};
    return std::nullopt;
  }

  std::optional<Error> define(const std::string& n, int line) {
    if (values_.count(n) || storages_.count(n))
      return Error{ErrorKind::Name, line, "name '" + n + "' is already defined"};
    return std::nullopt;
  }

  std::optional<Error> statement(Lexer& lx, int line) {
    // Remember where we are: names followed by '=' form a binding.
    std::string first = lx.peek_name() ? lx.name() : "";
    if (first.empty()) return syntax(line, "expected a statement, got '" + lx.rest() + "'");
    if (first == "storage" && lx.peek_name()) return storage(lx, line);
    if (first == "input" && lx.peek_name()) return input(lx, line);
    if (first == "return") return ret(lx, line);
    std::vector<std::string> outs;
    std::string opname;
    if (lx.peek('(')) {
      opname = first;
    } else {
      outs.push_back(first);
      while (lx.accept(',')) {
        if (!lx.peek_name()) return syntax(line, "expected a name after ','");
        outs.push_back(lx.name());
      }
      if (!lx.accept('=')) return syntax(line, "expected '=' or '(' after '" + first + "'");
      if (!lx.peek_name()) return syntax(line, "expected an op name after '='");
      opname = lx.name();
    }
    if (!lx.accept('(')) return syntax(line, "expected '(' after '" + opname + "'");
    std::vector<RawArg> args;
    if (!lx.accept(')')) {
      for (;;) {
        RawArg a;
        if (auto e = arg(lx, line, &a)) return e;
        args.push_back(std::move(a));
        if (lx.accept(')')) break;
        if (!lx.accept(',')) return syntax(line, "expected ',' or ')' in the arguments of '" + opname + "'");
      }
    }
    if (!lx.at_end()) return syntax(line, "unexpected text after the statement: '" + lx.rest() + "'");
    if (opname.rfind("foreach_", 0) == 0) return foreach_call(opname, outs, args, line);
    auto op = op_from_name(opname);
    if (!op) return Error{ErrorKind::Name, line, "unknown op '" + opname + "'"};
    // Format v1.5: view(x, i32) is the dtype view (view(x, [sizes]) the shape
    // one); with a dtype's name second, of any arity (view(x, i32, 3) is
    // then an argument error, not an undefined name).
    if (*op == OpKind::View && args.size() >= 2 && args[1].kind == RawArg::Name &&
        (args.size() == 2 || dtype_from_name(args[1].name)))
      op = OpKind::ViewDtype;
    if (++ops_ > limits_.max_ops)
      return Error{ErrorKind::Limit, line, "more than " + std::to_string(limits_.max_ops) + " ops"};
    Stmt st;
    st.op = *op;
    st.line = line;
    if (auto e = typed_args(*op, args, line, &st.args)) return e;
    for (const auto& o : outs) {
      if (auto e = define(o, line)) return e;
      int id = p_.new_value(o);
      values_[o] = id;
      st.outs.push_back(id);
    }
    p_.stmts.push_back(std::move(st));
    return std::nullopt;
  }

  // Format v1.5: `foreach_OP([targets], [others] | number | [numbers])`,
  // one OP statement per element (ir::Foreach). Its errors are PyTorch's:
  // lists of one length, at least one tensor (kind arg), no names bound
  // (torch._foreach_OP returns None).
  std::optional<Error> foreach_call(const std::string& name, const std::vector<std::string>& outs,
                                    const std::vector<RawArg>& raw, int line) {
    const auto op = op_from_name(name.substr(std::strlen("foreach_")));
    if (!op || !foreach_op(*op)) return Error{ErrorKind::Name, line, "unknown op '" + name + "'"};
    if (!outs.empty()) return syntax(line, name + " returns nothing: it binds no names");
    if (raw.size() != 2) return Error{ErrorKind::Arg, line, name + " takes 2 arguments, got " + std::to_string(raw.size())};
    if (raw[0].kind != RawArg::List) return Error{ErrorKind::Arg, line, name + ": argument 1 must be a list of tensors"};
    const size_t n = raw[0].items.size();
    if (n == 0) return Error{ErrorKind::Arg, line, name + ": a tensor list must have at least one tensor"};
    if (raw[1].kind == RawArg::List && raw[1].items.size() != n)
      return Error{ErrorKind::Arg, line,
                   name + ": tensor lists must have the same number of tensors, got " + std::to_string(n) + " and " +
                       std::to_string(raw[1].items.size())};
    for (size_t i = 0; i < n; ++i) {
      if (raw[0].items[i].kind != RawArg::Name)
        return Error{ErrorKind::Arg, line, name + ": argument 1 must be a list of tensors"};
      if (++ops_ > limits_.max_ops)
        return Error{ErrorKind::Limit, line, "more than " + std::to_string(limits_.max_ops) + " ops"};
      Stmt st;
      st.op = *op;
      st.line = line;
      st.foreach = i == 0 ? Foreach::Starts : Foreach::Continues;
      const std::vector<RawArg> one{raw[0].items[i], raw[1].kind == RawArg::List ? raw[1].items[i] : raw[1]};
      if (auto e = typed_args(*op, one, line, &st.args)) return e;
      if (i > 0 && (st.args[1].kind == Arg::Tensor) != (p_.stmts.back().args[1].kind == Arg::Tensor))
        return Error{ErrorKind::Arg, line, name + ": argument 2 must be a list of tensors or of numbers"};
      p_.stmts.push_back(std::move(st));
    }
    return std::nullopt;
  }

  std::optional<Error> arg(Lexer& lx, int line, RawArg* a) {
    if (lx.accept('[')) {
      a->kind = RawArg::List;
      if (lx.accept(']')) return std::nullopt;
      for (;;) {
        RawArg item;
        // Checked before recursing: `[[[[...` must not grow the stack.
        if (lx.accept('[')) return syntax(line, "nested lists are not allowed");
        if (auto e = arg(lx, line, &item)) return e;
        a->items.push_back(std::move(item));
        if (lx.accept(']')) return std::nullopt;
        if (!lx.accept(',')) return syntax(line, "expected ',' or ']' in a list");
      }
    }
    if (lx.peek_name()) {
      size_t before = lx.pos();
      double v;
      int64_t iv;
      bool is_int;
      if (lx.number(&v, &iv, &is_int)) {
        a->kind = RawArg::Float;
        a->f = v;
        return std::nullopt;
      }
      (void)before;
      a->kind = RawArg::Name;
      a->name = lx.name();
      return std::nullopt;
    }
    double v;
    int64_t iv;
    bool is_int;
    if (!lx.number(&v, &iv, &is_int)) return syntax(line, "expected an argument, got '" + lx.rest() + "'");
    if (is_int) {
      a->kind = RawArg::Int;
      a->i = iv;
    } else {
      a->kind = RawArg::Float;
      a->f = v;
    }
    return std::nullopt;
  }

  std::optional<Error> tensor_ref(const RawArg& r, int line, int* id) {
    if (r.kind != RawArg::Name) return Error{ErrorKind::Arg, line, "expected a tensor name"};
    auto it = values_.find(r.name);
    if (it == values_.end()) {
      if (storages_.count(r.name)) return Error{ErrorKind::Name, line, "'" + r.name + "' is a storage, not a tensor"};
      return Error{ErrorKind::Name, line, "undefined name '" + r.name + "'"};
    }
    *id = it->second;
    return std::nullopt;
  }

  std::optional<Error> typed_args(OpKind op, const std::vector<RawArg>& raw, int line, std::vector<Arg>* out) {
    const std::string sig = op_info(op).sig;
    const std::string nm = op_spelling(op);
    // Resolve every name first so that an undefined name is a name error.
    for (size_t k = 0; k < raw.size(); ++k) {
      const RawArg& r = raw[k];
      int id;
      if (r.kind == RawArg::Name && !(k < sig.size() && sig[k] == 'D'))
        if (auto e = tensor_ref(r, line, &id)) return e;
      for (const auto& it : r.items)
        if (it.kind == RawArg::Name)
          if (auto e = tensor_ref(it, line, &id)) return e;
    }
    if (raw.size() != sig.size())
      return Error{ErrorKind::Arg, line,
                   nm + " takes " + std::to_string(sig.size()) + " arguments, got " + std::to_string(raw.size())};
    for (size_t k = 0; k < sig.size(); ++k) {
      const RawArg& r = raw[k];
      const std::string where = nm + ": argument " + std::to_string(k + 1);
      switch (sig[k]) {
        case 'T':
        case 'X':
        case 'O':
        case 'J':
        case 'M': {
          if (r.kind == RawArg::Name) {
            int id;
            tensor_ref(r, line, &id);
            out->push_back(Arg::tensor(id));
          } else if (sig[k] == 'X' && r.kind == RawArg::Int) {
            out->push_back(Arg::integer(r.i));
          } else if (sig[k] == 'X' && r.kind == RawArg::Float) {
            out->push_back(Arg::number(r.f));
          } else {
            return Error{ErrorKind::Arg, line, where + " must be a tensor" + (sig[k] == 'X' ? " or a number" : "")};
          }
          break;
        }
        case 'N':
          if (r.kind == RawArg::Int)
            out->push_back(Arg::integer(r.i));
          else if (r.kind == RawArg::Float)
            out->push_back(Arg::number(r.f));
          else
            return Error{ErrorKind::Arg, line, where + " must be a number"};
          break;
        case 'I':
          if (r.kind != RawArg::Int) return Error{ErrorKind::Arg, line, where + " must be an integer"};
          out->push_back(Arg::integer(r.i));
          break;
        case 'D': {
          const std::optional<Dtype> d = r.kind == RawArg::Name ? dtype_from_name(r.name) : std::nullopt;
          if (!d) return Error{ErrorKind::Arg, line, where + " must be a dtype (f32, i32, i64, f64, bool)"};
          out->push_back(Arg::integer(static_cast<int64_t>(*d)));
          break;
        }
        case 'L': {
          if (r.kind != RawArg::List) return Error{ErrorKind::Arg, line, where + " must be a list of integers"};
          std::vector<int64_t> v;
          for (const auto& it : r.items) {
            if (it.kind != RawArg::Int) return Error{ErrorKind::Arg, line, where + " must be a list of integers"};
            v.push_back(it.i);
          }
          out->push_back(Arg::ints(std::move(v)));
          break;
        }
        case 'S': {
          if (r.kind != RawArg::List) return Error{ErrorKind::Arg, line, where + " must be a list of tensors"};
          std::vector<int64_t> v;
          for (const auto& it : r.items) {
            if (it.kind != RawArg::Name) return Error{ErrorKind::Arg, line, where + " must be a list of tensors"};
            int id;
            tensor_ref(it, line, &id);
            v.push_back(id);
          }
          out->push_back(Arg::tensors(std::move(v)));
          break;
        }
      }
    }
    return std::nullopt;
  }

  std::optional<Error> storage(Lexer& lx, int line) {
    StorageDecl s;
    s.line = line;
    s.name = lx.name();
    const std::string dt = lx.name();
    if (dt == "i64")
      s.dtype = Dtype::I64;
    else if (dt == "bool")
      s.dtype = Dtype::Bool;
    else if (dt != "f32")
      return syntax(line, "expected 'f32[N]', 'i64[N]' or 'bool[N]' after the storage name");
    if (!lx.accept('[')) return syntax(line, "expected '[' after the storage's dtype");
    double v;
    int64_t n;
    bool is_int;
    if (!lx.number(&v, &n, &is_int) || !is_int || n < 0)
      return syntax(line, "expected a non-negative element count in " + dt + "[N]");
    if (!lx.accept(']') || !lx.accept('=')) return syntax(line, "expected '] = INIT' in the storage declaration");
    if (n > limits_.max_numel)
      return Error{
          ErrorKind::Limit, line,
          "storage of " + std::to_string(n) + " elements exceeds the limit of " + std::to_string(limits_.max_numel)};
    s.numel = n;
    total_numel_ += n;
    if (total_numel_ > limits_.max_total_numel)
      return Error{ErrorKind::Limit, line,
                   "storages of more than " + std::to_string(limits_.max_total_numel) + " elements in all"};
    if (lx.accept('[')) {
      s.init = InitKind::List;
      if (!lx.accept(']')) {
        for (;;) {
          if (!lx.number(&v, &n, &is_int)) return syntax(line, "expected a number in the initial values");
          if (auto e = index_value(s.dtype, v, is_int, line)) return e;
          s.values.push_back(static_cast<float>(v));
          if (lx.accept(']')) break;
          if (!lx.accept(',')) return syntax(line, "expected ',' or ']' in the initial values");
        }
      }
      if (static_cast<int64_t>(s.values.size()) != s.numel)
        return Error{ErrorKind::Arg, line,
                     "storage '" + s.name + "' declares " + std::to_string(s.numel) + " elements but lists " +
                         std::to_string(s.values.size())};
    } else {
      std::string f = lx.name();
      if (!lx.accept('(')) return syntax(line, "expected iota(...), full(...), random(...) or [...]");
      if (f == "iota") {
        bool i1, i2;
        int64_t x;
        if (!lx.number(&s.a, &x, &i1) || !lx.accept(',') || !lx.number(&s.b, &x, &i2))
          return syntax(line, "expected iota(START, STEP)");
        if (s.dtype == Dtype::Bool) return syntax(line, "iota(...) is not an initializer of bool storages");
        if (auto e = index_value(s.dtype, s.a, i1, line)) return e;
        if (auto e = index_value(s.dtype, s.b, i2, line)) return e;
        if (auto e =
                index_value(s.dtype, s.a + s.b * static_cast<double>(std::max<int64_t>(s.numel - 1, 0)), true, line))
          return e;
        s.init = InitKind::Iota;
      } else if (f == "full") {
        bool i1;
        int64_t x;
        if (!lx.number(&s.a, &x, &i1)) return syntax(line, "expected full(V)");
        if (auto e = index_value(s.dtype, s.a, i1, line)) return e;
        s.init = InitKind::Full;
      } else if (f == "random") {
        if (s.dtype == Dtype::I64) return syntax(line, "random(...) is not an initializer of i64 storages");
        lx.skip();
        std::string rest = lx.rest();
        size_t k = 0;
        while (k < rest.size() && std::isdigit(static_cast<unsigned char>(rest[k]))) ++k;
        if (k == 0 || k > 20) return syntax(line, "expected random(SEED) with a non-negative integer seed");
        errno = 0;
        s.seed = std::strtoull(rest.substr(0, k).c_str(), nullptr, 10);
        if (errno == ERANGE) return syntax(line, "random seed out of range");
        for (size_t j = 0; j < k; ++j) lx.accept(rest[j]);
        s.init = InitKind::Random;
      } else {
        return syntax(line, "unknown initializer '" + f + "'");
      }
      if (!lx.accept(')')) return syntax(line, "expected ')' after the initializer");
    }
    if (!lx.at_end()) return syntax(line, "unexpected text after the storage declaration");
    if (auto e = define(s.name, line)) return e;
    storages_[s.name] = static_cast<int>(p_.storages.size());
    p_.storages.push_back(std::move(s));
    return std::nullopt;
  }

  std::optional<Error> input(Lexer& lx, int line) {
    if (!p_.stmts.empty()) return syntax(line, "inputs must be declared before the first statement");
    InputDecl in;
    in.line = line;
    in.name = lx.name();
    if (!lx.accept('=') || !lx.peek_name())
      return syntax(line, "expected 'input NAME = STORAGE' or '= as_strided(STORAGE, ...)'");
    std::string w = lx.name();
    std::string sname = w;
    if (w == "as_strided" && lx.accept('(')) {
      in.whole = false;
      if (!lx.peek_name()) return syntax(line, "expected a storage name in as_strided(...)");
      sname = lx.name();
      RawArg sz, st;
      double v;
      bool is_int;
      if (!lx.accept(',') || arg(lx, line, &sz) || !lx.accept(',') || arg(lx, line, &st) || !lx.accept(',') ||
          !lx.number(&v, &in.offset, &is_int) || !is_int || !lx.accept(')'))
        return syntax(line, "expected as_strided(STORAGE, [sizes], [strides], offset)");
      for (auto* l : {&sz, &st}) {
        if (l->kind != RawArg::List) return syntax(line, "expected integer lists in as_strided(...)");
        for (const auto& it : l->items) {
          if (it.kind != RawArg::Int) return syntax(line, "expected integer lists in as_strided(...)");
          (l == &sz ? in.sizes : in.strides).push_back(it.i);
        }
      }
    }
    if (lx.peek_name()) {  // format v1.4 training
      if (lx.name() != "requires_grad") return syntax(line, "unexpected text after the input declaration");
      in.requires_grad = true;
    }
    if (!lx.at_end()) return syntax(line, "unexpected text after the input declaration");
    auto it = storages_.find(sname);
    if (it == storages_.end()) return Error{ErrorKind::Name, line, "undefined storage '" + sname + "'"};
    in.storage = it->second;
    // PyTorch: "only Tensors of floating point dtype can require gradients".
    if (in.requires_grad && p_.storages[in.storage].dtype != Dtype::F32)
      return Error{ErrorKind::Dtype, line, "only an input of an f32 storage can require grad"};
    if (auto e = define(in.name, line)) return e;
    values_[in.name] = p_.new_value(in.name);
    p_.inputs.push_back(std::move(in));
    return std::nullopt;
  }

  std::optional<Error> backward(Lexer& lx, int line) {
    double v;
    int64_t seed;
    bool is_int;
    if (!lx.accept('(') || !lx.number(&v, &seed, &is_int) || !is_int || seed < 0 || !lx.accept(')') || !lx.at_end())
      return syntax(line, "expected backward(SEED) with SEED an integer >= 0");
    p_.backward = static_cast<uint64_t>(seed);
    p_.backward_line = line;
    return std::nullopt;
  }

  std::optional<Error> ret(Lexer& lx, int line) {
    p_.has_return = true;
    p_.return_line = line;
    if (lx.at_end()) return std::nullopt;
    for (;;) {
      if (!lx.peek_name()) return syntax(line, "expected a tensor name in 'return'");
      RawArg r{RawArg::Name, lx.name()};
      int id;
      if (auto e = tensor_ref(r, line, &id)) return e;
      p_.returns.push_back(id);
      if (lx.at_end()) return std::nullopt;
      if (!lx.accept(',')) return syntax(line, "expected ',' between returned names");
    }
  }
};

std::string join_ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string format_float32(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

namespace {
// The length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0. nlohmann::json's
// writer refuses exactly what this refuses.
size_t utf8_length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  if (n == 0 || i + n > s.size() || b(1) < lo || b(1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if ((b(k) >> 6) != 2) return 0;
  return n;
}
}  // namespace

// Error messages quote the input; invalid UTF-8 in them would break every
// JSON writer downstream, so such bytes are shown as \xNN.
std::string printable_utf8(const std::string& s, bool escape_controls) {
  std::string o;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = utf8_length(s, i);
    if (n > 0 && !(escape_controls && n == 1 && c < 0x20 && c != '\t')) {
      o.append(s, i, n);
      i += n;
    } else {
      o += fmt::format("\\x{:02X}", c);
      ++i;
    }
  }
  return o;
}

Result<Program> parse(const std::string& text, const Limits& limits) {
  Parser p(limits);
  auto r = p.run(text);
  if (!r) return Error{r.error().kind, r.error().line, printable_utf8(r.error().message)};
  return r;
}

const char* op_spelling(OpKind k) { return k == OpKind::ViewDtype ? "view" : op_name(k); }

// A foreach call's line (ir::foreach_end's statements [si, end)).
static std::string foreach_text(const Program& p, size_t si, size_t end) {
  return foreach_call_text(p, si, end, "foreach_", [&](const Arg& a) {
    return a.kind == Arg::Tensor ? p.value_names[a.i] : a.kind == Arg::Int ? std::to_string(a.i) : format_number(a.f);
  });
}

std::string print(const Program& p) {
  std::string o = "aliasfuzz 1\n";
  for (const auto& s : p.storages) {
    o += "storage " + s.name + " " + dtype_name(s.dtype) + "[" + std::to_string(s.numel) + "] = ";
    // i64 and bool values print as integers.
    const bool ints = s.dtype != Dtype::F32;
    auto num = [&](double v) { return ints ? std::to_string(static_cast<int64_t>(v)) : format_number(v); };
    switch (s.init) {
      case InitKind::Iota: o += "iota(" + num(s.a) + ", " + num(s.b) + ")"; break;
      case InitKind::Full: o += "full(" + num(s.a) + ")"; break;
      case InitKind::Random: o += "random(" + std::to_string(s.seed) + ")"; break;
      case InitKind::List: {
        o += "[";
        for (size_t i = 0; i < s.values.size(); ++i)
          o += (i ? ", " : "") +
               (ints ? std::to_string(static_cast<int64_t>(s.values[i])) : format_float32(s.values[i]));
        o += "]";
        break;
      }
    }
    o += "\n";
  }
  for (const auto& in : p.inputs) {
    o += "input " + in.name + " = ";
    const std::string& sn = p.storages[in.storage].name;
    if (in.whole)
      o += sn;
    else
      o += "as_strided(" + sn + ", " + join_ints(in.sizes) + ", " + join_ints(in.strides) + ", " +
           std::to_string(in.offset) + ")";
    if (in.requires_grad) o += " requires_grad";
    o += "\n";
  }
  for (size_t si = 0; si < p.stmts.size(); ++si) {
    const Stmt& st = p.stmts[si];
    if (const size_t end = foreach_end(p, si); end > si) {
      o += foreach_text(p, si, end) + "\n";
      si = end - 1;
      continue;
    }
    for (size_t i = 0; i < st.outs.size(); ++i) o += (i ? ", " : "") + p.value_names[st.outs[i]];
    if (!st.outs.empty()) o += " = ";
    o += std::string(op_spelling(st.op)) + "(";
    for (size_t k = 0; k < st.args.size(); ++k) {
      const Arg& a = st.args[k];
      if (k) o += ", ";
      if (op_info(st.op).sig[k] == 'D') {
        o += dtype_name(static_cast<Dtype>(a.i));
        continue;
      }
      switch (a.kind) {
        case Arg::Tensor: o += p.value_names[a.i]; break;
        case Arg::Int: o += std::to_string(a.i); break;
        case Arg::Float: o += format_number(a.f); break;
        case Arg::IntList: o += join_ints(a.list); break;
        case Arg::TensorList: {
          o += "[";
          for (size_t i = 0; i < a.list.size(); ++i) o += (i ? ", " : "") + p.value_names[a.list[i]];
          o += "]";
          break;
        }
      }
    }
    o += ")\n";
  }
  if (p.has_return) {
    o += "return";
    for (size_t i = 0; i < p.returns.size(); ++i) o += (i ? ", " : " ") + p.value_names[p.returns[i]];
    o += "\n";
  }
  if (p.backward) o += "backward(" + std::to_string(*p.backward) + ")\n";
  return o;
}

}  // namespace af::ir
