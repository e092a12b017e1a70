// A Python child process that speaks JSON lines over a socket pair (its
// stdin and stdout), with deadlines on every exchange. The PyTorch bridge
// and the external-strategy runner (Thunder, functionalize) both use it.
#pragma once
#include <string>
#include <sys/types.h>
#include <vector>

namespace af::oracles {

double now_s();  // monotonic seconds

class LineProcess {
 public:
  struct Options {
    bool keep_stderr = true;        // else the child's stderr goes to /dev/null
    bool lift_memory_limit = false; // raise RLIMIT_AS in the child (PyTorch 2 maps GiBs at import)
    bool die_with_parent = false;   // PR_SET_PDEATHSIG: never outlive the process that uses it
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
  // After a failed exchange: true when the child has exited (and *status
  // holds its wait status), false when it is still there (hung).
  bool exited(int* status);
  void kill();              // SIGKILL and reap
  void stop(double grace_s);  // end its input, wait up to grace_s, then kill
  void abandon();           // after fork(): forget the parent's child without touching it

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buf_;
};

}  // namespace af::oracles
