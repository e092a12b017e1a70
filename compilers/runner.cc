#include "compilers/runner.h"

#include "base/activity.h"

#include "ir/json_text.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>

#include "oracles/torch_function.h"

namespace af::compilers {

using oracles::is_file;
using oracles::LineProcess;
using oracles::LineReply;
using oracles::observables_from_json;
using oracles::torch_function_module;

// ---------------------------------------------------------------- runner

ExternalRunner::ExternalRunner(ExternalOptions o) : o_(std::move(o)) {
  if (o_.runner.empty()) o_.runner = find_external_runner();
}

ExternalRunner::~ExternalRunner() { stop(); }

void ExternalRunner::abandon() { proc_.abandon(); }

void ExternalRunner::stop() { proc_.stop(2); }

bool ExternalRunner::start(std::string* error) {
  if (proc_.running()) return true;
  if (access(o_.python.c_str(), X_OK) != 0) {
    *error = "no Python at '" + o_.python + "'";
    return false;
  }
  if (!is_file(o_.runner)) {
    *error = "cannot find compilers/external_runner.py (set AF_EXTERNAL_RUNNER)";
    return false;
  }
  // A campaign worker limits its address space (RLIMIT_AS); PyTorch maps
  // gigabytes of CUDA libraries at import without using them. The Python
  // process is not the case under test: the limit is lifted where allowed.
  LineProcess::Options po;
  const char* keep = std::getenv("AF_EXTERNAL_STDERR");
  po.keep_stderr = keep && *keep;
  po.capture_stderr = true;  // what a crashing compiler said last goes into its finding
  po.lift_memory_limit = true;
  po.die_with_parent = true;
  nlohmann::json hello;
  // A campaign gives the start-up its own bound, not the case's.
  const base::ExternalActivity starting(base::ActivitySlot::kStarting);
  // The child inherits the environment: a shared cache folder is named in
  // it for the start only (this process is single-threaded here).
  const char* before = std::getenv("AF_RUNNER_CACHE_DIR");
  const std::string saved = before ? before : "";
  if (!o_.cache_dir.empty()) setenv("AF_RUNNER_CACHE_DIR", o_.cache_dir.c_str(), 1);
  const bool started =
      start_runner(proc_, o_.python, o_.runner, po, o_.startup_s, "the external runner", &hello, error);
  if (!o_.cache_dir.empty()) {
    if (before)
      setenv("AF_RUNNER_CACHE_DIR", saved.c_str(), 1);
    else
      unsetenv("AF_RUNNER_CACHE_DIR");
  }
  if (!started) return false;
  torch_version_ = hello.contains("torch") && hello["torch"].is_string() ? hello["torch"].get<std::string>() : "";
  thunder_version_ =
      hello.contains("thunder") && hello["thunder"].is_string() ? hello["thunder"].get<std::string>() : "";
  return true;
}

namespace {
RecallResult recall_of_json(const ir::Program& recall, const nlohmann::json& j) {
  RecallResult r;
  if (j.contains("eager_error")) {
    r.status = RecallResult::Status::EagerError;
    r.error_type = j["eager_error"].value("type", "");
    r.message = j["eager_error"].value("message", "");
    return r;
  }
  r.eager = observables_from_json(recall, j.at("eager"));
  r.frames = j.value("frames", std::vector<std::string>{});
  if (j.contains("error")) {
    r.status = RecallResult::Status::StrategyError;
    r.error_type = j["error"].value("type", "");
    r.message = j["error"].value("message", "");
  } else {
    r.actual = observables_from_json(recall, j.at("actual"));
    r.status = RecallResult::Status::Ok;
  }
  return r;
}
}  // namespace

ExternalResult ExternalRunner::run(const ir::Program& p, const ExternalStrategy& e, bool invalid,
                                   const ir::Program* recall) {
  using S = ExternalResult::Status;
  ExternalResult r;
  std::string err;
  if (!start(&err)) {
    r.status = S::Unavailable;
    r.message = err;
    return r;
  }
  const std::string code = torch_function_module(p);
  if (code.empty()) {
    r.status = S::Failed;
    r.error_type = "internal";
    r.message = "the program could not be split into _setup and _fn";
    return r;
  }
  nlohmann::json req = {{"id", next_id_++},     {"strategy", e.name},          {"imports", e.imports},
                        {"compile", e.compile}, {"fallbacks", e.fallbacks}, {"code", code}};
  if (invalid) req["invalid"] = true;
  if (o_.evidence) req["evidence"] = e.native ? nlohmann::json("ops") : nlohmann::json(true);
  if (recall) {
    const std::string second = torch_function_module(*recall);
    if (!second.empty()) req["recall"] = second;
  }
  LineReply reply = [&] {
    const base::ExternalActivity answering(base::ActivitySlot::kAnswering);  // a hang now is the compiler's
    return proc_.request(req, o_.timeout_s);
  }();
  if (!reply.ok) {  // hung or dead: the next program starts a new process
    r.status = S::Failed;
    r.error_type = reply.failure;
    r.message = reply.message;
    r.death = reply.death;
    r.stderr_tail = reply.stderr_tail;
    if (reply.failure != "internal") ++restarts_;
    return r;
  }
  const nlohmann::json& j = reply.answer;
  try {
    r.exec_s = j.value("exec_s", 0.0);
    r.frames = j.value("frames", std::vector<std::string>{});
    r.coverage = j.value("coverage", std::vector<std::string>{});
    if (j.contains("producers") && j["producers"].is_array())
      for (const auto& x : j["producers"]) r.producers.push_back(x.is_string() ? x.get<std::string>() : "");
    if (j.contains("fallbacks") && j["fallbacks"].is_array())
      for (const auto& f : j["fallbacks"])
        r.fallbacks.push_back(f.is_string() ? f.get<std::string>() : ir::json_text(f));
    if (j.contains("unavailable")) {
      r.status = S::Unavailable;
      r.message = "cannot import the compiler of " + e.name + ": " + j["unavailable"].get<std::string>();
    } else if (j.contains("unsupported")) {  // this torch cannot even define the program
      r.status = S::StrategyError;
      r.error_type = j["unsupported"].value("type", "NotImplementedError");
      r.message = j["unsupported"].value("message", "");
    } else if (j.contains("internal")) {
      r.status = S::Failed;
      r.error_type = "internal";
      r.message = j["internal"].get<std::string>();
    } else if (j.contains("eager_error")) {
      r.status = S::EagerError;
      r.error_type = j["eager_error"].value("type", "");
      r.message = j["eager_error"].value("message", "");
      r.strategy_accepted = j.contains("actual");
      if (j.contains("error")) {
        r.strategy_error_type = j["error"].value("type", "");
        r.strategy_message = j["error"].value("message", "");
      }
    } else {
      r.eager = observables_from_json(p, j.at("eager"));
      if (j.contains("error")) {
        r.status = S::StrategyError;
        r.error_type = j["error"].value("type", "");
        r.message = j["error"].value("message", "");
      } else {
        r.actual = observables_from_json(p, j.at("actual"));
        r.status = S::Ok;
        if (recall && j.contains("recall")) r.recall = recall_of_json(*recall, j["recall"]);
      }
    }
  } catch (const std::exception& ex) {
    r.status = S::Failed;
    r.error_type = "internal";
    r.message = std::string("bad answer from the external runner: ") + ex.what();
  }
  return r;
}

std::optional<std::string> ExternalRunner::bisect(const ir::Program& p, const ExternalStrategy& e, double timeout_s,
                                                  std::string* why) {
  if (!start(why)) return std::nullopt;
  const std::string code = torch_function_module(p);
  if (code.empty()) {
    *why = "the program could not be split into _setup and _fn";
    return std::nullopt;
  }
  const nlohmann::json req = {{"id", next_id_++}, {"strategy", e.name}, {"code", code}, {"bisect", true}};
  const LineReply reply = proc_.request(req, timeout_s);
  if (!reply.ok) {
    *why = "the bisection's runner: " + reply.failure + (reply.message.empty() ? "" : ": " + reply.message);
    return std::nullopt;
  }
  const nlohmann::json& j = reply.answer;
  if (j.contains("stage") && j["stage"].is_string()) return j["stage"].get<std::string>();
  *why = j.contains("stage_error") && j["stage_error"].is_string() ? j["stage_error"].get<std::string>()
         : j.contains("internal")                                 ? ir::json_text(j["internal"])
                                                                  : "no stage in the runner's answer";
  return std::nullopt;
}

// ---------------------------------------------------------------- per process

namespace {
struct Registry {
  pid_t owner = -1;
  std::map<std::string, std::unique_ptr<ExternalRunner>> by_python;
  ExternalRunner* get(const std::string& python) {
    if (owner != getpid()) {  // a forked child: the runners belong to the parent
      for (auto& [k, r] : by_python) r->abandon();
      by_python.clear();
      owner = getpid();
    }
    auto& r = by_python[python];
    if (!r) {
      ExternalOptions o;
      o.python = python;
      o.evidence = evidence;
      if (request_timeout_s > 0) o.timeout_s = request_timeout_s;
      r = std::make_unique<ExternalRunner>(o);
    }
    return r.get();
  }
  double request_timeout_s = 0;  // set_external_timeout; 0: ExternalOptions' default
  bool evidence = false;         // set_external_evidence
};
Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: children die with PDEATHSIG or EOF
  return *r;
}
}  // namespace

void set_external_evidence(bool on) {
  registry().evidence = on;
  for (auto& [py, r] : registry().by_python) r->set_evidence(on);
}

void set_external_timeout(double seconds) {
  registry().request_timeout_s = seconds;
  for (auto& [py, r] : registry().by_python) r->set_timeout(seconds);
}

double external_timeout() {
  return registry().request_timeout_s > 0 ? registry().request_timeout_s : ExternalOptions().timeout_s;
}

namespace {
// A name that is not an external strategy: the answer of every run of it.
ExternalResult not_external(const std::string& strategy) {
  ExternalResult r;
  r.status = ExternalResult::Status::Unavailable;
  r.message = "'" + strategy + "' is not an external strategy";
  return r;
}
}  // namespace

ExternalResult run_external(const ir::Program& p, const ExternalStrategy& e, bool invalid, const ir::Program* recall) {
  ExternalResult r;
  const std::string py = external_python(e);
  if (py.empty()) {
    r.status = ExternalResult::Status::Unavailable;
    r.message = external_unavailable(e);
    return r;
  }
  return registry().get(py)->run(p, e, invalid, recall);
}

ExternalResult run_external(const ir::Program& p, const std::string& strategy, bool invalid,
                            const ir::Program* recall) {
  const auto e = external_strategy(strategy);
  return e ? run_external(p, *e, invalid, recall) : not_external(strategy);
}

namespace {
// Options for a runner of its own for `strategy` (its Python, this
// process's bound on an answer); nullopt with *unavailable set when its
// Python is not installed.
std::optional<ExternalOptions> own_runner_options(const ExternalStrategy& strategy, ExternalResult* unavailable) {
  ExternalOptions o;
  o.python = external_python(strategy);
  if (o.python.empty()) {
    unavailable->status = ExternalResult::Status::Unavailable;
    unavailable->message = external_unavailable(strategy);
    return std::nullopt;
  }
  if (registry().request_timeout_s > 0) o.timeout_s = registry().request_timeout_s;
  return o;
}
}  // namespace

ExternalResult run_external_fresh(const ir::Program& p, const std::string& strategy) {
  const auto e = external_strategy(strategy);
  return e ? run_external_fresh(p, *e) : not_external(strategy);
}

ExternalResult run_external_fresh(const ir::Program& p, const ExternalStrategy& strategy) {
  ExternalResult r;
  const auto o = own_runner_options(strategy, &r);
  if (!o) return r;
  ExternalRunner fresh(*o);  // a new Python with a new private cache folder, stopped when done
  return fresh.run(p, strategy);
}

std::optional<std::string> torch_compile_stage(const ir::Program& p, const ExternalStrategy& strategy,
                                               std::string* why, double timeout_s) {
  ExternalResult r;
  const auto o = own_runner_options(strategy, &r);
  if (!o) {
    *why = r.message;
    return std::nullopt;
  }
  ExternalRunner own(*o);
  return own.bisect(p, strategy, timeout_s > 0 ? timeout_s : kBisectAnswers * external_timeout(), why);
}

ExternalResult run_external_over_cache(const ir::Program& first, const ir::Program& second,
                                       const ExternalStrategy& strategy, ExternalResult::Status* first_status) {
  ExternalResult r;
  auto own = own_runner_options(strategy, &r);
  if (!own) return r;
  ExternalOptions& o = *own;
  char tmpl[] = "/tmp/aliasfuzz-cache-XXXXXX";
  if (!mkdtemp(tmpl)) {
    r.status = ExternalResult::Status::Failed;
    r.error_type = "internal";
    r.message = "cannot make a cache folder";
    return r;
  }
  o.cache_dir = tmpl;
  {
    ExternalRunner a(o);
    const ExternalResult ra = a.run(first, strategy);
    if (first_status) *first_status = ra.status;
  }  // the first process ends here: only its cache folder carries over
  {
    ExternalRunner b(o);
    r = b.run(second, strategy);
  }
  std::error_code ec;
  std::filesystem::remove_all(o.cache_dir, ec);
  return r;
}

std::string external_versions(const std::string& strategy) {
  const std::string py = external_python(strategy);
  if (py.empty()) return "";
  ExternalRunner* r = registry().get(py);
  std::string s = r->torch_version().empty() ? "" : "torch " + r->torch_version();
  if (is_thunder_strategy(strategy) && !r->thunder_version().empty()) s += ", thunder " + r->thunder_version();
  return s;
}

// ---------------------------------------------------------------- errors

namespace {

// How an exception of an external strategy is classified: the first row
// whose type (exact, "" for any) and message (ECMAScript regex searched in
// the first line of the message, "" for any) match decides. No match:
// internal. Rows were taken from what lightning-thunder 0.2.6 raises on
// generated programs (and functorch's functionalize on torch 1.13).
struct ErrorPattern {
  bool unsupported;
  const char* type;
  const char* message;
  const char* rule;
};
const ErrorPattern kErrorPatterns[] = {
    // PyTorch's memory-overlap check raised inside the compiled function:
    // eager accepted the program, so the compiler made the overlap. Its
    // message starts with "unsupported operation", hence this row first.
    {false, "", "unsupported operation: (more than one element of the written-to|some elements of the input)",
     "overlap error in compiled code"},
    // "Trying to call function torch.as_strided, but it is not yet supported",
    // "only preserve_format is currently supported", ...
    {true, "NotImplementedError", "", "NotImplementedError"},
    // The same, re-raised by Thunder's interpreter.
    {true, "", "NotImplementedError", "NotImplementedError (wrapped)"},
    // torch.add(a, b, out=c) and the other out= calls (format v1.1): Thunder's
    // torch symbols take no `out` (div's raises NotImplementedError, above).
    {true, "TypeError", "got an unexpected keyword argument 'out'", "no out= keyword"},
    // "Unknown attribute sigmoid_", "Unknown attribute fill_"
    {true, "AttributeError", "Unknown attribute", "unknown attribute"},
    {true, "", "Unknown attribute", "unknown attribute (wrapped)"},
    // "aten.alias is not registered. Register its `custom_op` ..."
    {true, "", "is not registered|is not recognized|not yet recognized", "unknown op"},
    // Functionalization refuses, on purpose and loudly, an in-place write
    // through as_strided of another view (pytorch#104505, PR #122502):
    // "During torch.compile, encountered a mutation on a view chain of
    // length 2, where view 1 was an as_strided() call ... is banned in compile".
    {true, "RuntimeError", "mutation on a view chain of length [0-9]+, where view [0-9]+ was an as_strided\\(\\) call",
     "as_strided view-chain mutation banned"},
    // torch.func.functionalize of a mutable custom op (format v1.4): "Found a
    // custom (non-ATen) operator whose output has alias annotations ... We
    // only support functionalizing operators whose outputs do not have alias
    // annotations" (torch.compile functionalizes it by auto_functionalized).
    {true, "RuntimeError", "Found a custom \\(non-ATen\\) operator whose output has alias annotations",
     "mutable custom op not functionalizable"},
    // (not Python's "unsupported operand type(s)": an internal TypeError)
    {true, "",
     "not (yet )?supported|currently supported|is unsupported|[Uu]nsupported "
     "(op|operator|operation|argument|dtype|memory format)\\b",
     "not supported"},
};

}  // namespace

ErrorClass classify_external_error(const std::string& error_type, const std::string& message) {
  static const std::vector<std::regex> res = [] {
    std::vector<std::regex> v;
    for (const auto& p : kErrorPatterns) v.emplace_back(p.message, std::regex::ECMAScript);
    return v;
  }();
  const std::string first = message.substr(0, message.find('\n'));
  for (size_t i = 0; i < std::size(kErrorPatterns); ++i) {
    const ErrorPattern& p = kErrorPatterns[i];
    if (*p.type && error_type != p.type) continue;
    if (*p.message && !std::regex_search(first, res[i])) continue;
    return ErrorClass{p.unsupported, p.rule};
  }
  return ErrorClass{false, "internal"};
}

}  // namespace af::compilers
