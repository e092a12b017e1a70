// A Python child process that speaks JSON lines over a socket pair (its
// stdin and stdout), with deadlines on every exchange. The PyTorch bridge
// and the external-strategy runner (Thunder, functionalize) both use it.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <sys/types.h>
#include <vector>

#include "ir/program.h"
#include "oracles/eager.h"

namespace af::oracles {

double now_s();  // monotonic seconds

// Finding the Python runners and the venv: directories that may be the
// source tree's root, most specific first ($AF_ROOT,
// $BUILD_WORKSPACE_DIRECTORY, the binary's ancestors and their
// execroot/aliasfuzz, the working directory's ancestors).
std::vector<std::string> root_candidates();
// A file of the source tree (e.g. "oracles/torch_runner.py"): $OVERRIDE_ENV
// when set, else the first that exists of the Bazel runfiles and
// root_candidates(); "" when none.
std::string find_source_file(const char* rel, const char* override_env);
// A regular file at p (false for "" and on any error).
bool is_file(const std::string& p);

// The answer to one request.
struct LineReply {
  bool ok = false;
  nlohmann::json answer;  // when ok
  std::string failure;    // else: "crash" (the child died), "timeout" (hung), "internal" (unreadable answer)
  std::string message;
  // A crash: how the child ended ("SIGSEGV", "exit 1"; "" when unknown) and
  // the last lines it wrote on stderr during this request (when captured).
  std::string death;
  std::string stderr_tail;
};

// "SIGSEGV" for a wait status of a signalled child, "exit N" for one that
// exited, "" otherwise.
std::string death_name(int wait_status);

// Observables as the runners print them: {"returns": [{"sizes", "values"}],
// "storages": {name: values}, "inputs": [{"sizes", "strides", "offset"}]},
// values numbers or "nan", "inf", "-inf"; inputs in declaration order.
Observables observables_from_json(const ir::Program& p, const nlohmann::json& j);

class LineProcess {
 public:
  struct Options {
    bool keep_stderr = true;         // else the child's stderr goes to /dev/null, or is captured:
    bool capture_stderr = false;     // (without keep_stderr) kept in memory per request, its tail
                                     // reported when the child dies (LineReply::stderr_tail)
    bool lift_memory_limit = false;  // raise RLIMIT_AS in the child (PyTorch 2 maps GiBs at import)
    bool die_with_parent = false;    // PR_SET_PDEATHSIG: never outlive the process that uses it
  };
  LineProcess() = default;
  ~LineProcess() { kill(); }
  LineProcess(const LineProcess&) = delete;
  LineProcess& operator=(const LineProcess&) = delete;

  // Starts argv[0] with argv; false and *error when it cannot.
  bool start(const std::vector<std::string>& argv, const Options& o, std::string* error);
  bool running() const { return pid_ > 0; }
  bool send_line(const std::string& line, double deadline);  // line ends with '\n'
  bool read_line(std::string* line, double deadline);        // without the '\n'
  // Sends `request` (an object whose "id" names it) and waits up to
  // timeout_s for the answer with that id, skipping stale ones. Without an
  // answer the child is killed (the next start() makes a new one).
  LineReply request(const nlohmann::json& request, double timeout_s);
  // After a failed exchange: true when the child has exited (and *status
  // holds its wait status), false when it is still there (hung).
  bool exited(int* status);
  void kill();                // SIGKILL and reap
  void stop(double grace_s);  // end its input, wait up to grace_s, then kill
  void abandon();             // after fork(): forget the parent's child without touching it

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  int err_fd_ = -1;  // capture_stderr: a memfd the child appends to, emptied per request
  std::string buf_;
  std::string stderr_tail() const;
};

// The PYTHONHASHSEED of every Python aliasfuzz starts (runners, fresh
// processes, the bisector; repro.py pins the same, triage/repro.cc): Python
// orders a set of strings by their hashes, a compiler may iterate one, and
// its result can then depend on the process (thunderfx 0.2.6 raised
// AssertionError on a program under some seeds only). The user's
// PYTHONHASHSEED when it is a number, else "0"; set in this process's
// environment on the first call, so every child inherits it.
const std::string& python_hash_seed();

// Starts a runner (`python -u RUNNER`) and reads its first line, a JSON
// object of versions, within startup_s; on failure kills it and says why,
// naming it `what` ("the PyTorch runner").
bool start_runner(LineProcess& proc, const std::string& python, const std::string& runner,
                  const LineProcess::Options& o, double startup_s, const std::string& what, nlohmann::json* hello,
                  std::string* error);

}  // namespace af::oracles
