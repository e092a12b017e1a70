// The capability probe of the external strategies (compilers/table.h):
// which ops of the vocabulary a real compiler cannot run, found by running
// tiny programs through it, cached per strategy and system version.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ir/json_text.h"
#include "ir/analysis.h"
#include "compilers/capabilities.h"

#include "base/files.h"
#include "compilers/runner.h"
#include "oracles/torch_function.h"

namespace af::compilers {

using oracles::torch_function_module;

namespace {

using nlohmann::json;

// Bump when the probe's decision rule changes (the programs and the
// spellings of the emitter are covered by the hash of the probe's code).
constexpr int kProbeFormat = 2;

std::string env(const char* v) {
  const char* e = std::getenv(v);
  return e ? e : "";
}

// ---- the probe's programs

// One form of an op: statements over {X} (a [3, 4] tensor), {Y} (an
// unaliased [3, 4] input) and {W} (an unaliased [4, 2] input), binding the
// names in `rets` (in-place forms bind nothing: their target is returned).
struct Form {
  std::string name;
  std::string stmt;
  std::string rets;
  // Format v1.3's metadata ops retire the operand's name: its result stands
  // for it among the returns.
  bool retires = false;
};

// The ops whose arguments are not tensors alone (scatters and
// update_aliases are introduced by strategies and never sent to an
// external compiler; the other ops' one form is their row's: forms_of).
const std::map<ir::OpKind, std::vector<Form>>& op_forms() {
  static const std::map<ir::OpKind, std::vector<Form>> m = {
      {ir::OpKind::View, {{"", "r = view({X}, [3, 2, 2])", "r"}}},
      // format v1.5: the dtype view, read as i32 and written through
      {ir::OpKind::ViewDtype, {{"", "r = view({X}, i32)", "r"}, {"write", "r = view({X}, i32)\nadd_(r, 3)", ""}}},
      // format v1.5: flip, and its result written back into its source
      {ir::OpKind::Flip, {{"", "r = flip({X}, [0])", "r"}, {"write-back", "r = flip({X}, [-1])\nadd_({X}, r)", ""}}},
      {ir::OpKind::Reshape, {{"", "r = reshape({X}, [2, 6])", "r"}}},
      {ir::OpKind::Transpose, {{"", "r = transpose({X}, 0, -1)", "r"}}},
      {ir::OpKind::Permute, {{"", "r = permute({X}, [1, 0])", "r"}}},
      {ir::OpKind::Slice,
       {{"step", "r = slice({X}, 1, 1, 4, 2)", "r"}, {"clamped", "r = slice({X}, -2, -2, 100, 1)", "r"}}},
      {ir::OpKind::Narrow, {{"", "r = narrow({X}, 1, 1, 2)", "r"}}},
      {ir::OpKind::Select, {{"", "r = select({X}, 0, -1)", "r"}}},
      {ir::OpKind::Unsqueeze, {{"", "r = unsqueeze({X}, 1)", "r"}}},
      {ir::OpKind::Squeeze, {{"", "r = squeeze({X}, 0)", "r"}}},
      {ir::OpKind::Expand, {{"", "r = expand({X}, [2, 3, 4])", "r"}}},
      {ir::OpKind::Diagonal, {{"", "r = diagonal({X}, 0, 0, 1)", "r"}}},
      {ir::OpKind::AsStrided, {{"", "r = as_strided({X}, [2, 2], [4, 1], 1)", "r"}}},
      {ir::OpKind::Chunk, {{"", "r, r2 = chunk({X}, 2, 1)", "r, r2"}}},
      {ir::OpKind::Split, {{"", "r, r2 = split({X}, 3, 1)", "r, r2"}}},
      {ir::OpKind::Unbind, {{"", "r, r2, r3 = unbind({X}, 0)", "r, r2, r3"}}},
      {ir::OpKind::AddI, {{"number", "add_({X}, 1.5)", ""}, {"tensor", "add_({X}, {Y})", ""}}},
      {ir::OpKind::SubI, {{"number", "sub_({X}, 1.5)", ""}, {"tensor", "sub_({X}, {Y})", ""}}},
      {ir::OpKind::MulI, {{"number", "mul_({X}, 1.5)", ""}, {"tensor", "mul_({X}, {Y})", ""}}},
      {ir::OpKind::DivI, {{"number", "div_({X}, 1.5)", ""}, {"tensor", "div_({X}, {Y})", ""}}},
      {ir::OpKind::ClampI, {{"", "clamp_({X}, -1.0, 2.0)", ""}}},
      {ir::OpKind::FillI, {{"", "fill_({X}, 2.0)", ""}}},
      {ir::OpKind::CopyI, {{"", "copy_({X}, {Y})", ""}}},
      {ir::OpKind::SetitemI,
       {{"number", "setitem_({X}, 1, 0, 2, 1.5)", ""}, {"tensor", "setitem_({X}, 0, 0, 3, {Y})", ""}}},
      // format v1.1 (docs/format.md)
      {ir::OpKind::AddcmulI, {{"", "addcmul_({X}, {Y}, {Y}, 0.5)", ""}}},
      {ir::OpKind::AddcdivI, {{"", "addcdiv_({X}, {Y}, {Y}, 0.5)", ""}}},
      {ir::OpKind::LerpI, {{"number", "lerp_({X}, {Y}, 0.25)", ""}, {"tensor", "lerp_({X}, {Y}, {Y})", ""}}},
      {ir::OpKind::ClampTensorI, {{"", "clamp_tensor_({X}, {Y}, {Y})", ""}}},
      {ir::OpKind::AddOut, {{"number", "add_out({X}, {Y}, 1.5)", ""}, {"tensor", "add_out({X}, {Y}, {Y})", ""}}},
      {ir::OpKind::SubOut, {{"number", "sub_out({X}, {Y}, 1.5)", ""}, {"tensor", "sub_out({X}, {Y}, {Y})", ""}}},
      {ir::OpKind::MulOut, {{"number", "mul_out({X}, {Y}, 1.5)", ""}, {"tensor", "mul_out({X}, {Y}, {Y})", ""}}},
      {ir::OpKind::DivOut, {{"number", "div_out({X}, {Y}, 1.5)", ""}, {"tensor", "div_out({X}, {Y}, {Y})", ""}}},
      // format v1.2: {I} a 1-D i64 index [2, 0, 1], {J} a [1, 4] one, {M} a [3, 4] bool mask
      {ir::OpKind::IndexPutI,
       {{"", "index_put_({X}, {I}, {Y}, 0)", ""}, {"accumulate", "index_put_({X}, {I}, {Y}, 1)", ""}}},
      {ir::OpKind::IndexAddI, {{"", "index_add_({X}, 0, {I}, {Y})", ""}}},
      {ir::OpKind::IndexCopyI, {{"", "index_copy_({X}, 0, {I}, {Y})", ""}}},
      {ir::OpKind::ScatterI, {{"", "scatter_({X}, 0, {J}, {Y})", ""}}},
      {ir::OpKind::ScatterAddI, {{"", "scatter_add_({X}, 1, {J}, {Y})", ""}}},
      {ir::OpKind::MaskedFillI, {{"", "masked_fill_({X}, {M}, 2.0)", ""}}},
      // format v1.3: the metadata op's result is the operand itself, re-shaped
      {ir::OpKind::TransposeI, {{"", "r = transpose_({X}, 0, -1)", "r", true}}},
      {ir::OpKind::SqueezeI, {{"", "r = squeeze_({X}, 0)", "r", true}}},
      {ir::OpKind::UnsqueezeI, {{"", "r = unsqueeze_({X}, 1)", "r", true}}},
      {ir::OpKind::SwapdimsI, {{"", "r = swapdims_({X}, 1, 0)", "r", true}}},
      {ir::OpKind::AsStridedI, {{"", "r = as_strided_({X}, [2, 2], [4, 1], 1)", "r", true}}},
      {ir::OpKind::Unfold, {{"overlapping", "r = unfold({X}, 1, 2, 1)", "r"}}},
      {ir::OpKind::Add, {{"number", "r = add({X}, 1.5)", "r"}, {"tensor", "r = add({X}, {Y})", "r"}}},
      {ir::OpKind::Sub, {{"number", "r = sub({X}, 1.5)", "r"}, {"tensor", "r = sub({X}, {Y})", "r"}}},
      {ir::OpKind::Mul, {{"number", "r = mul({X}, 1.5)", "r"}, {"tensor", "r = mul({X}, {Y})", "r"}}},
      {ir::OpKind::Div, {{"number", "r = div({X}, 1.5)", "r"}, {"tensor", "r = div({X}, {Y})", "r"}}},
      {ir::OpKind::Sum, {{"", "r = sum({X}, 1, 0)", "r"}}},
      {ir::OpKind::Amax, {{"", "r = amax({X}, 0, 1)", "r"}}},
      {ir::OpKind::Softmax, {{"", "r = softmax({X}, -1)", "r"}}},
      {ir::OpKind::Matmul, {{"", "r = matmul({X}, {W})", "r"}}},
      // format v1.5: out= of the ternary ops, into the first operand itself and into another input
      {ir::OpKind::AddcmulOut,
       {{"", "addcmul_out({X}, {Y}, {Y}, {Y}, 0.5)", ""}, {"into-operand", "addcmul_out({X}, {X}, {Y}, {Y}, 0.5)", ""}}},
      {ir::OpKind::AddcdivOut, {{"", "addcdiv_out({X}, {Y}, {Y}, {Y}, 0.5)", ""}}},
      {ir::OpKind::LerpOut, {{"", "lerp_out({X}, {Y}, {Y}, 0.25)", ""}}},
      // format v1.5: the out-of-place indexed ops, of an expanded x and copied back into x
      {ir::OpKind::IndexAdd,
       {{"", "r = index_add({X}, 0, {I}, {Y})", "r"},
        {"expanded",
         "a = unsqueeze({X}, 0)\nb = expand(a, [2, 3, 4])\nc = unsqueeze({Y}, 0)\nd = expand(c, [2, 3, 4])\n"
         "r = index_add(b, 1, {I}, d)",
         "r"},
        {"copy-back", "r = index_add({X}, 0, {I}, {Y})\ncopy_({X}, r)", ""}}},
      {ir::OpKind::IndexCopy, {{"", "r = index_copy({X}, 0, {I}, {Y})", "r"}}},
      {ir::OpKind::Scatter, {{"", "r = scatter({X}, 0, {J}, {Y})", "r"}}},
      {ir::OpKind::ScatterAdd, {{"", "r = scatter_add({X}, 0, {J}, {Y})", "r"}}},
      // format v1.5: bmm of views of inputs, one of them expanded over the batch
      {ir::OpKind::Bmm,
       {{"", "a = view({X}, [3, 1, 4])\nb = view({X}, [3, 4, 1])\nr = bmm(a, b)", "r"},
        {"expanded",
         "a = unsqueeze({W}, 0)\nb = expand(a, [2, 4, 2])\nc = unsqueeze({X}, 0)\nd = expand(c, [2, 3, 4])\n"
         "r = bmm(d, b)",
         "r"}}},
      // format v1.5: torch.matmul of a batch (an expanded view of an input) by a matrix, and by a size-1 batch
      {ir::OpKind::MatmulNd,
       {{"", "a = view({X}, [3, 1, 4])\nr = matmul_nd(a, {W})", "r"},
        {"broadcast",
         "a = unsqueeze({X}, 0)\nb = expand(a, [2, 3, 4])\nc = unsqueeze({W}, 0)\nr = matmul_nd(b, c)",
         "r"}}},
      {ir::OpKind::Cat, {{"", "r = cat([{X}, {Y}], 0)", "r"}}},
      {ir::OpKind::Full, {{"", "r = full([2, 3], 1.5)", "r"}}},
      // format v1.4's custom ops
      {ir::OpKind::CustomScaleI, {{"", "custom_scale_({X}, 1.5)", ""}}},
      {ir::OpKind::CustomCopyI, {{"", "custom_copy_({X}, {Y})", ""}}},
  };
  return m;
}

// The contexts an op is tried in: the inputs, statements before the op,
// the operand {X}, and what is returned besides the op's results.
struct Variant {
  const char* name;
  const char* inputs;
  const char* before;
  const char* operand;
  const char* rets;
};
const Variant kVariants[] = {
    {"alone", "input x = as_strided(s0, [3, 4], [4, 1], 0)\n", "", "x", "x"},
    {"after-inplace", "input x = as_strided(s0, [3, 4], [4, 1], 0)\n", "add_(x, 1.0)\n", "x", "x"},
    // A strided view of an input, written in place before the op.
    {"on-view", "input xb = as_strided(s0, [3, 8], [8, 1], 0)\n", "v = slice(xb, 1, 0, 8, 2)\nadd_(v, 0.5)\n", "v",
     "xb"},
    // Two inputs that overlap in one storage; the other one is written.
    {"aliased-inputs", "input x = as_strided(s0, [3, 4], [4, 1], 0)\ninput x2 = as_strided(s0, [3, 4], [4, 1], 4)\n",
     "add_(x2, 0.5)\n", "x", "x, x2"},
};

const char* kStorages =
    "aliasfuzz 1\n"
    "storage s0 f32[24] = iota(-1.5, 0.25)\n"
    "storage s1 f32[12] = iota(0.5, 0.125)\n"
    "storage s2 f32[8] = iota(-1, 0.5)\n";
const char* kOtherInputs = "input y = as_strided(s1, [3, 4], [4, 1], 0)\ninput w = as_strided(s2, [4, 2], [2, 1], 0)\n";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The i64 and bool inputs of format v1.2's forms, only in their programs
// (the other forms' programs stay as they were).
const char* kIndexStorages =
    "storage si i64[3] = [2, 0, 1]\n"
    "storage sj i64[4] = [2, 0, 1, 2]\n"
    "storage sm bool[12] = [1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1]\n";
const char* kIndexInputs =
    "input ix = si\ninput jx = as_strided(sj, [1, 4], [4, 1], 0)\ninput mk = as_strided(sm, [3, 4], [4, 1], 0)\n";

// An op's forms: op_forms()'s, or for an op of tensor arguments only
// (signature "T" or "OT": unary math in place, out of place and out=,
// views of no other argument) the one its row implies, so that a new
// unary op is probed with nothing added here. None: the tests say so.
std::vector<Form> forms_of(ir::OpKind k) {
  const ir::OpInfo& info = ir::op_info(k);
  const std::string op = info.name, sig = info.sig;
  if (auto it = op_forms().find(k); it != op_forms().end()) return it->second;
  if (sig == "OT") return {{"", op + "({X}, {Y})", ""}};
  if (sig != "T") return {};
  if (info.cls == ir::OpClass::InPlace) return {{"", op + "({X})", ""}};
  return {{"", "r = " + op + "({X})", "r", ir::is_metadata_inplace(k)}};
}

std::string program_text(const Variant& v, const Form* f) {
  const bool indexed = f && (f->stmt.find("{I}") != std::string::npos || f->stmt.find("{J}") != std::string::npos ||
                             f->stmt.find("{M}") != std::string::npos);
  std::string t = kStorages;
  if (indexed) t += kIndexStorages;
  t += v.inputs;
  t += kOtherInputs;
  if (indexed) t += kIndexInputs;
  t += v.before;
  std::string rets = v.rets;
  if (f) {
    std::string st = replace_all(f->stmt, "{X}", v.operand);
    st = replace_all(st, "{Y}", "y");
    st = replace_all(st, "{W}", "w");
    st = replace_all(st, "{I}", "ix");
    st = replace_all(st, "{J}", "jx");
    st = replace_all(st, "{M}", "mk");
    t += st + "\n";
    if (f->retires) {  // "x, x2" without the operand x
      std::string kept;
      for (size_t at = 0; at <= rets.size();) {
        size_t end = rets.find(", ", at);
        if (end == std::string::npos) end = rets.size();
        const std::string name = rets.substr(at, end - at);
        if (name != v.operand) kept += (kept.empty() ? "" : ", ") + name;
        at = end + 2;
      }
      rets = kept;
    }
    if (!f->rets.empty()) rets = f->rets + (rets.empty() ? "" : ", " + rets);
  }
  return t + "return " + rets + "\n";
}

uint64_t fnv(const std::string& s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// ---- versions and the cache

// The package versions of the strategy's Python, read without importing
// torch (importlib.metadata): {"torch": V, "thunder": V or null}.
json python_versions(const std::string& python) {
  std::string cmd = "'";
  for (char c : python) cmd += c == '\'' ? std::string("'\\''") : std::string(1, c);
  cmd +=
      "' -c 'import json, importlib.metadata as m\n"
      "def v(n):\n"
      "    try:\n"
      "        return m.version(n)\n"
      "    except Exception:\n"
      "        return None\n"
      "print(json.dumps({\"torch\": v(\"torch\"), \"thunder\": v(\"lightning-thunder\")}))' 2>/dev/null";
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[1024];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    pclose(f);
  }
  json j = json::parse(out, nullptr, false);
  return j.is_object() ? j : json();
}

std::string versions_text(const json& v, bool thunder) {
  std::string s = v.contains("torch") && v["torch"].is_string() ? "torch " + v["torch"].get<std::string>() : "torch ?";
  if (thunder)
    s += ", thunder " + (v.contains("thunder") && v["thunder"].is_string() ? v["thunder"].get<std::string>() : "?");
  return s;
}

std::string cache_dir() {
  if (auto d = env("AF_CAPABILITY_CACHE"); !d.empty()) return d;
  if (auto x = env("XDG_CACHE_HOME"); !x.empty()) return x + "/aliasfuzz/capabilities";
  if (auto h = env("HOME"); !h.empty()) return h + "/.cache/aliasfuzz/capabilities";
  return "";
}

std::string file_safe(const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-') ? c : '_';
  return r;
}

bool write_atomic(const std::string& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  return base::write_file_atomic(path, text);
}

// The hash of everything the probe sends: a change of the programs or of
// the emitter's spellings makes a new cache entry.
std::string probe_hash() {
  static const std::string h = [] {
    uint64_t x = fnv(std::to_string(kProbeFormat));
    for (const ProbeProgram& pp : probe_programs()) {
      auto p = ir::parse_and_validate(pp.text);
      x = fnv(pp.name, x);
      if (p) x = fnv(torch_function_module(*p), x);
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
    return std::string(buf, 10);
  }();
  return h;
}

// ---- forms: shapes of program (not ops) a compiler fails on

// A form, and a control: the same program without it. Probed apart from
// the ops (their own cache file), so that adding a form does not probe
// every op again.
struct FormCheck {
  const char* name;
  const char* program;
  const char* control;
};
const FormCheck kFormChecks[] = {
    // Two inputs of one storage with different sizes, both used, one written
    // in place (thunder 0.2.6's replace_args_with_alias_map reshapes one
    // input into the other's shape and raises; an input only returned is
    // not in Dynamo's graph); the control has them on two storages.
    {"aliased-inputs-of-different-sizes",
     "aliasfuzz 1\nstorage s0 f32[24] = iota(-1.5, 0.25)\ninput x = as_strided(s0, [3, 4], [4, 1], 0)\n"
     "input x2 = as_strided(s0, [2, 4], [4, 1], 12)\nr = add(x, 1.0)\nadd_(x2, 0.5)\nreturn r, x2\n",
     "aliasfuzz 1\nstorage s0 f32[24] = iota(-1.5, 0.25)\nstorage s1 f32[24] = iota(-1.5, 0.25)\n"
     "input x = as_strided(s0, [3, 4], [4, 1], 0)\ninput x2 = as_strided(s1, [2, 4], [4, 1], 12)\nr = add(x, 1.0)\n"
     "add_(x2, 0.5)\nreturn r, x2\n"},
};

std::string forms_hash() {
  uint64_t x = fnv("forms 1");
  for (const FormCheck& f : kFormChecks)
    for (const char* text : {f.program, f.control}) {
      x = fnv(f.name, x);
      if (auto p = ir::parse_and_validate(text)) x = fnv(torch_function_module(*p), x);
    }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return std::string(buf, 10);
}

// The forms `strategy` fails on: the form's program ends in an exception or
// a dead runner while its control runs (a value divergence is no failure:
// the campaign compares those). Ran forms count in *probes.
std::map<std::string, std::string> run_form_checks(const std::string& strategy, const std::string& python,
                                                   const ProbeLimits& limits, int* probes) {
  std::map<std::string, std::string> failing;
  const auto entry = external_strategy(strategy);
  if (!entry) return failing;
  ExternalOptions o;
  o.python = python;
  o.timeout_s = limits.program_s;
  ExternalRunner runner(o);
  std::string err;
  if (!runner.start(&err)) return failing;
  using S = ExternalResult::Status;
  for (const FormCheck& f : kFormChecks) {
    auto control = ir::parse_and_validate(f.control);
    auto program = ir::parse_and_validate(f.program);
    if (!control || !program) continue;  // never: the tests check them
    ++*probes;
    if (runner.run(*control, *entry).status != S::Ok) continue;
    ++*probes;
    const ExternalResult r = runner.run(*program, *entry);
    if (r.status == S::StrategyError || r.status == S::Failed)
      failing[f.name] = (r.error_type.empty() ? "failed" : r.error_type) + ": " + r.message;
  }
  return failing;
}

// The failing forms of `strategy` from their cache file, else probed and cached.
std::map<std::string, std::string> failing_forms(const std::string& strategy, const std::string& python,
                                                 const json& versions, const std::string& versions_txt, bool refresh,
                                                 const ProbeLimits& limits, int* probes) {
  const std::string dir = cache_dir();
  const std::string path =
      dir.empty() ? "" : dir + "/" + file_safe(strategy + "--" + versions_txt + "--forms-" + forms_hash()) + ".json";
  if (!refresh && !path.empty()) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    json j = json::parse(ss.str(), nullptr, false);
    if (f && j.is_object() && j.value("strategy", "") == strategy && j.value("forms", "") == forms_hash() &&
        j.value("versions", json()) == versions && j["failing_forms"].is_object()) {
      std::map<std::string, std::string> out;
      for (auto& [form, why] : j["failing_forms"].items()) out[form] = why.is_string() ? why.get<std::string>() : "";
      return out;
    }
  }
  std::map<std::string, std::string> out = run_form_checks(strategy, python, limits, probes);
  if (!path.empty())
    write_atomic(
        path,
        ir::json_text(
            json{{"strategy", strategy}, {"versions", versions}, {"forms", forms_hash()}, {"failing_forms", out}}, 2) +
            "\n");
  return out;
}

// The probe's cache key for one strategy: the probe's hash, and what the
// strategy tells about fallbacks (which changes what the probe lists; a
// strategy without it keeps the plain hash and its cache).
std::string probe_key(const std::string& strategy) {
  const auto e = external_strategy(strategy);
  if (!e || e->fallbacks.empty()) return probe_hash();
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv(e->fallbacks)));
  return probe_hash() + "-" + std::string(buf, 6);
}

Capabilities run_probe(const std::string& strategy, const std::string& python, const ProbeLimits& limits) {
  Capabilities c;
  c.strategy = strategy;
  const auto entry = external_strategy(strategy);
  if (!entry) {
    c.error = external_unavailable(strategy);
    return c;
  }
  ExternalOptions o;
  o.python = python;
  o.timeout_s = limits.program_s;
  ExternalRunner runner(o);  // its own process, stopped when the probe ends
  std::string err;
  if (!runner.start(&err)) {
    c.error = err;
    return c;
  }
  const double t0 = oracles::now_s();
  std::map<std::string, bool> control_ok, control_fell_back;  // by variant
  std::map<std::string, std::string> unsupported;
  const std::vector<ProbeProgram> programs = probe_programs();
  for (const ProbeProgram& pp : programs) {
    if (!pp.op.empty() && (unsupported.count(pp.op) || !control_ok[pp.variant])) continue;
    auto p = ir::parse_and_validate(pp.text);
    if (!p) continue;  // never: the test suite checks that every probe is valid
    if (oracles::now_s() - t0 > limits.total_s) {
      c.inconclusive_why = "the probe ran past its bound of " + std::to_string(static_cast<int>(limits.total_s)) + " s";
      break;
    }
    const ExternalResult r = runner.run(*p, *entry);
    ++c.probes;
    if (limits.progress) limits.progress(c.probes, static_cast<int>(programs.size()));
    if (pp.op.empty()) {
      control_ok[pp.variant] = r.status == ExternalResult::Status::Ok;
      control_fell_back[pp.variant] = !r.fallbacks.empty();
      if (r.status != ExternalResult::Status::Ok)
        c.inconclusive[pp.variant] = (r.error_type.empty() ? "failed" : r.error_type) + ": " + r.message;
      // The simplest program hangs or kills the Python: nothing the probe
      // runs after it can tell an op it does not support.
      if (r.status == ExternalResult::Status::Failed && c.probes == 1) {
        c.inconclusive_why = "its first control program (" + pp.name + ") ended in " + c.inconclusive[pp.variant];
        break;
      }
      continue;
    }
    if (r.status == ExternalResult::Status::StrategyError && is_unsupported_error(r.error_type, r.message))
      unsupported[pp.op] = r.error_type + ": " + r.message + " [" + pp.name + "]";
    else if (!r.fallbacks.empty() && !control_fell_back[pp.variant])  // it ran the op in eager PyTorch, not itself
      unsupported[pp.op] = "handed back to PyTorch: " + r.fallbacks.front().substr(0, 200) + " [" + pp.name + "]";
  }
  if (c.inconclusive_why.empty() && !control_ok.empty() &&
      std::none_of(control_ok.begin(), control_ok.end(), [](const auto& v) { return v.second; }))
    c.inconclusive_why = "every control program failed (" + c.inconclusive.begin()->second + ")";
  c.unsupported = c.inconclusive_why.empty() ? unsupported : std::map<std::string, std::string>();
  c.available = true;
  return c;
}

json to_json(const Capabilities& c, const json& versions) {
  return {{"strategy", c.strategy},        {"versions", versions}, {"probe", probe_key(c.strategy)},
          {"probe_format", kProbeFormat},  {"probes", c.probes},   {"unsupported", c.unsupported},
          {"inconclusive", c.inconclusive}};
}

std::mutex g_mu;
std::map<std::string, Capabilities>& memo() {
  static auto* m = new std::map<std::string, Capabilities>();
  return *m;
}

}  // namespace

std::vector<ProbeProgram> probe_programs() {
  std::vector<ProbeProgram> out;
  for (const Variant& v : kVariants)
    out.push_back({std::string("control/") + v.name, "", v.name, program_text(v, nullptr)});
  for (ir::OpKind k : ir::all_ops()) {
    const ir::OpClass cls = ir::op_info(k).cls;
    if (cls == ir::OpClass::Scatter || cls == ir::OpClass::Meta) continue;
    const std::string op = ir::op_name(k);
    const std::vector<Form> forms = forms_of(k);
    if (forms.empty()) {  // a new op without forms: the tests say so
      out.push_back({op + "/missing", op, "alone", ""});
      continue;
    }
    for (const Variant& v : kVariants)
      for (const Form& f : forms)
        out.push_back({op + "/" + (f.name.empty() ? "" : f.name + "/") + v.name, op, v.name, program_text(v, &f)});
  }
  return out;
}

Capabilities probe_capabilities(const std::string& strategy, bool refresh, const ProbeLimits& limits) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!refresh)
    if (auto it = memo().find(strategy); it != memo().end()) return it->second;
  Capabilities c;
  c.strategy = strategy;
  const std::string py = external_python(strategy);
  if (py.empty()) {
    c.error = external_unavailable(strategy);
    return c;  // not memoized: a later call may find it installed
  }
  const json versions = python_versions(py);
  c.versions = versions_text(versions, is_thunder_strategy(strategy));
  const std::string dir = cache_dir();
  if (!dir.empty())
    c.cache_path = dir + "/" + file_safe(strategy + "--" + c.versions + "--" + probe_key(strategy)) + ".json";
  if (!refresh && !c.cache_path.empty()) {
    std::ifstream f(c.cache_path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    json j = json::parse(ss.str(), nullptr, false);
    if (f && j.is_object() && j.value("strategy", "") == strategy && j.value("probe", "") == probe_key(strategy) &&
        j.value("versions", json()) == versions && j["unsupported"].is_object()) {
      for (auto& [op, why] : j["unsupported"].items())
        c.unsupported[op] = why.is_string() ? why.get<std::string>() : "";
      if (j.contains("inconclusive") && j["inconclusive"].is_object())
        for (auto& [v, why] : j["inconclusive"].items())
          c.inconclusive[v] = why.is_string() ? why.get<std::string>() : "";
      c.available = true;
      c.from_cache = true;
      c.failing_forms = failing_forms(strategy, py, versions, c.versions, false, limits, &c.probes);
      memo()[strategy] = c;
      return c;
    }
  }
  Capabilities probed = run_probe(strategy, py, limits);
  probed.versions = c.versions;
  probed.cache_path = c.cache_path;
  if (!probed.available) return probed;
  if (!probed.inconclusive_why.empty()) {  // nothing learnt: not cached, nor memoized (a later probe may learn)
    probed.cache_path.clear();
    return probed;
  }
  probed.failing_forms = failing_forms(strategy, py, versions, c.versions, refresh, limits, &probed.probes);
  if (!probed.cache_path.empty() &&
      !write_atomic(probed.cache_path, ir::json_text(to_json(probed, versions), 2) + "\n"))
    probed.cache_path.clear();  // not cached (unwritable): probed again next time
  memo()[strategy] = probed;
  return probed;
}

void forget_capabilities() {
  std::lock_guard<std::mutex> lock(g_mu);
  memo().clear();
}

std::map<std::string, double> unsupported_op_weights(const std::string& strategy) {
  std::map<std::string, double> w;
  for (const auto& [op, why] : probe_capabilities(strategy).unsupported) w[op] = 0.0;
  return w;
}

std::string failing_forms_summary(const Capabilities& c) {
  if (!c.available || c.failing_forms.empty()) return "";
  std::string s = c.strategy + (c.versions.empty() ? "" : " (" + c.versions + ")") + " fails on ";
  bool first = true;
  for (const auto& [form, why] : c.failing_forms) {
    s += (first ? "" : ", ") + form + " (" + why.substr(0, 120) + ")";
    first = false;
  }
  return s;
}

std::string capabilities_summary(const Capabilities& c) {
  if (!c.available || c.unsupported.empty()) return "";
  std::string s = "not supported by " + system_label(c.strategy, c.versions) + ": ";
  bool first = true;
  for (const auto& [op, why] : c.unsupported) {
    s += (first ? "" : ", ") + op;
    first = false;
  }
  return s;
}

}  // namespace af::compilers
