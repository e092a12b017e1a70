#include "check/bucket.h"

#include <cctype>
#include <vector>

#include "ir/ops.h"

namespace af::fuzz {

using run::Fusion;
using run::Mutant;

namespace {
// Coarse classes keep one bug in one bucket: a mutant's bug shows up under
// many orders and ops, and a user wants one entry for it.
std::string reorder_class(const run::Reorder& reorder) {
  return reorder.kind == run::ReorderKind::Program ? "program-order" : "reordered";
}
std::string fusion_class(Fusion fusion) { return fusion == Fusion::None ? "unfused" : "fused"; }
std::string op_class(const std::string& op) {
  if (op.empty()) return "returns";  // no prefix diverges: the full program's returns do
  auto k = ir::op_from_name(op);
  if (!k) return op;
  switch (ir::op_info(*k).cls) {
    case ir::OpClass::View: return "view";
    case ir::OpClass::MayAlias: return "may-alias";
    case ir::OpClass::InPlace: return "inplace";
    case ir::OpClass::Scatter: return "scatter";
    case ir::OpClass::Meta: return "meta";
    case ir::OpClass::OutOfPlace: break;
  }
  return ir::is_reduction(*k) ? "reduction" : "compute";
}
}  // namespace

std::string runner_failure_kind(const std::string& error) {
  static const std::string crash = "external runner crash: ", timeout = "external runner timeout: ";
  if (error.rfind(timeout, 0) == 0) return "runner-timeout";
  if (error.rfind(crash, 0) != 0) return "";
  // "... the Python process died (SIGSEGV)": the signal or exit code names the crash.
  const size_t open = error.rfind(" ("), close = error.rfind(')');
  if (open == std::string::npos || close != error.size() - 1 || close < open) return "runner-crash";
  std::string death = error.substr(open + 2, close - open - 2);
  for (char& c : death)
    if (c == ' ') c = '-';
  return "runner-crash-" + death;
}

static constexpr char kAcceptsInvalid[] = "accepts-invalid-";

std::string accepts_invalid_what(const std::string& kind) { return kAcceptsInvalid + kind; }

std::string accepted_invalid_kind(const std::string& what) {
  const std::string prefix = kAcceptsInvalid;
  return what.size() > prefix.size() && what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : "";
}

namespace {
// A bucket's name is a folder name: anything but [A-Za-z0-9_+.@-] becomes '_'.
std::string folder_safe(std::string s) {
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+' || c == '.' || c == '@'))
      c = '_';
  return s;
}
constexpr char kSep[] = "__";
}  // namespace

Bucket Bucket::of(const RunRecord& r) {
  Bucket b;
  b.order = reorder_class(r.spec.reorder);
  b.fusion = fusion_class(r.spec.fusion);
  if (const std::string runner = runner_failure_kind(r.error); !runner.empty()) {
    // The compiler's process died or hung: a kind of its own, never mixed
    // with the values it computes or the exceptions it raises.
    b.who = folder_safe(r.spec.strategy.name());
    b.what = runner;
    return b;
  }
  if (!r.accepted_invalid.empty())
    b.what = accepts_invalid_what(r.accepted_invalid);
  else if (r.first_failure)
    b.what = "stmt";
  else if (!r.error.empty())
    b.what = "error";
  else if (r.mismatch && r.mismatch->observable.rfind("return", 0) == 0)
    b.what = "return";
  else if (r.mismatch && oracles::is_input_geometry(r.mismatch->observable))
    b.what = kInputMeta;
  else
    b.what = "storage";
  if (r.stale_from_cache)
    b.what = kStaleFromCachePrefix + b.what;
  else if (r.recall)
    b.what = kRecallPrefix + b.what;
  b.who = r.spec.strategy_name();
  if (r.spec.mutant != Mutant::None) b.who += "+" + r.spec.mutant_name();
  b.who = folder_safe(b.who);
  b.op = folder_safe(op_class(r.op));
  return b;
}

std::string Bucket::to_string() const {
  std::string s = who + kSep + order + kSep + fusion + kSep + what;
  return op.empty() ? s : s + kSep + op;
}

std::optional<Bucket> Bucket::parse(const std::string& name) {
  std::vector<std::string> parts;
  for (size_t at = 0;;) {
    const size_t sep = name.find(kSep, at);
    parts.push_back(name.substr(at, sep - at));
    if (sep == std::string::npos) break;
    at = sep + 2;
  }
  // Fields from the right: the strategy's name may hold "__" (a py: spec's path).
  const bool runner = !parts.empty() && parts.back().rfind("runner-", 0) == 0;
  const size_t fixed = runner ? 3 : 4;
  if (parts.size() < fixed + 1) return std::nullopt;
  Bucket b;
  const size_t n = parts.size();
  for (size_t k = 0; k + fixed < n; ++k) b.who += (k ? kSep : "") + parts[k];
  b.order = parts[n - fixed];
  b.fusion = parts[n - fixed + 1];
  b.what = parts[n - fixed + 2];
  if (!runner) b.op = parts[n - 1];
  return b;
}

std::string bucket_of(const RunRecord& r) { return Bucket::of(r).to_string(); }

}  // namespace af::fuzz
