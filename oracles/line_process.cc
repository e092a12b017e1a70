#include "ir/json_text.h"
#include "oracles/line_process.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace af::oracles {

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

bool LineProcess::start(const std::vector<std::string>& argv, const Options& o, std::string* error) {
  if (pid_ > 0) return true;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    *error = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  if (!o.keep_stderr && o.capture_stderr) {
    // In memory, appended to (so emptying it between requests keeps the
    // child's writes at the start), read back only when the child dies.
    err_fd_ = memfd_create("aliasfuzz-child-stderr", MFD_CLOEXEC);
    if (err_fd_ >= 0) fcntl(err_fd_, F_SETFL, fcntl(err_fd_, F_GETFL) | O_APPEND);
  }
  std::vector<const char*> args;
  for (const auto& a : argv) args.push_back(a.c_str());
  args.push_back(nullptr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    if (err_fd_ >= 0) close(err_fd_);
    err_fd_ = -1;
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    if (o.die_with_parent) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
    }
    if (o.lift_memory_limit) {
      rlimit rl{RLIM_INFINITY, RLIM_INFINITY};
      if (setrlimit(RLIMIT_AS, &rl) != 0 && getrlimit(RLIMIT_AS, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_AS, &rl);
      }
    }
    dup2(sv[1], 0);
    dup2(sv[1], 1);
    if (err_fd_ >= 0) {
      dup2(err_fd_, 2);
    } else if (!o.keep_stderr) {
      int dn = open("/dev/null", O_WRONLY);
      if (dn >= 0) dup2(dn, 2);
    }
    execv(args[0], const_cast<char* const*>(args.data()));
    _exit(127);
  }
  close(sv[1]);
  pid_ = pid;
  fd_ = sv[0];
  fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
  return true;
}

bool LineProcess::send_line(const std::string& line, double deadline) {
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = send(fd_, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const double left = deadline - now_s();
      if (left <= 0) return false;
      pollfd pf{fd_, POLLOUT, 0};
      poll(&pf, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
      continue;
    }
    return false;
  }
  return true;
}

bool LineProcess::read_line(std::string* line, double deadline) {
  for (;;) {
    size_t nl = buf_.find('\n');
    if (nl != std::string::npos) {
      *line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return true;
    }
    const double left = deadline - now_s();
    if (left <= 0) return false;
    pollfd pf{fd_, POLLIN, 0};
    int r = poll(&pf, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno != EINTR) return false;
    if (r <= 0) continue;
    char tmp[65536];
    ssize_t n = read(fd_, tmp, sizeof tmp);
    if (n > 0)
      buf_.append(tmp, n);
    else if (n == 0)
      return false;  // the process died
    else if (errno != EAGAIN && errno != EINTR)
      return false;
  }
}

static std::string seconds_text(double s) {  // 3, 2.5 (not 3.000000)
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}

LineReply LineProcess::request(const nlohmann::json& req, double timeout_s) {
  LineReply r;
  const long id = req.value("id", -1L);
  const double deadline = now_s() + timeout_s;
  // Only this request's stderr: a crash's tail shows what the child said last.
  if (err_fd_ >= 0) (void)!ftruncate(err_fd_, 0);
  std::string line;
  bool got = send_line(ir::json_text(req) + "\n", deadline);
  while (got && (got = read_line(&line, deadline))) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      r.failure = "internal";
      r.message = "unreadable answer: " + line.substr(0, 200);
      return r;
    }
    if (j.value("id", -1L) != id) continue;  // a stale answer
    r.ok = true;
    r.answer = std::move(j);
    return r;
  }
  int st = 0;
  bool dead = exited(&st);
  const bool eof = now_s() < deadline;  // its end of the socket closed: dying or dead
  // A dying process closes its socket before the kernel reports its exit:
  // wait a little for the status that names the crash (SIGSEGV, an exit code).
  for (const double until = now_s() + 2.0; eof && !dead && now_s() < until; dead = exited(&st)) usleep(2000);
  r.failure = dead || eof ? "crash" : "timeout";
  r.death = dead ? death_name(st) : "";
  r.stderr_tail = stderr_tail();
  r.message = r.failure == "timeout"
                  ? "no answer within " + seconds_text(timeout_s) + " s"
                  : "the Python process died" + (r.death.empty() ? std::string() : " (" + r.death + ")");
  kill();
  return r;
}

namespace {
double json_double(const nlohmann::json& j) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    return NAN;  // "nan" (and anything unexpected)
  }
  return j.get<double>();
}

float json_float(const nlohmann::json& j) { return static_cast<float>(json_double(j)); }

std::vector<float> json_values(const nlohmann::json& j) {
  std::vector<float> v;
  v.reserve(j.size());
  for (const auto& x : j) v.push_back(json_float(x));
  return v;
}
}  // namespace

Observables observables_from_json(const ir::Program& p, const nlohmann::json& j) {
  Observables o;
  for (const auto& t : j.at("returns")) {
    Dense d;
    d.sizes = t.at("sizes").get<std::vector<int64_t>>();
    if (t.value("dtype", "") == "i32") {  // format v1.5: integers, held as their bits
      d.dtype = ir::Dtype::I32;
      for (const auto& x : t.at("values")) d.v.push_back(i32_bits(x.get<int64_t>()));
    } else if (t.value("dtype", "") == "i64") {  // two words each, as the oracle's memory holds them
      d.dtype = ir::Dtype::I64;
      d.v.resize(2 * t.at("values").size());
      for (size_t i = 0; i < t.at("values").size(); ++i) i64_words(t.at("values")[i].get<int64_t>(), &d.v[2 * i]);
    } else if (t.value("dtype", "") == "f64") {  // doubles, two words each
      d.dtype = ir::Dtype::F64;
      d.v.resize(2 * t.at("values").size());
      for (size_t i = 0; i < t.at("values").size(); ++i) f64_words(json_double(t.at("values")[i]), &d.v[2 * i]);
    } else {
      d.v = json_values(t.at("values"));
    }
    o.returns.push_back(std::move(d));
  }
  const auto& st = j.at("storages");
  for (const auto& s : p.storages)
    o.storages.push_back(st.contains(s.name) ? json_values(st[s.name]) : std::vector<float>());
  // Format v1.3: each input's .size(), .stride(), .storage_offset() after
  // the call (absent from an older runner: then none, which compare reports).
  if (j.contains("inputs"))
    for (const auto& t : j.at("inputs")) {
      ir::Geometry g;
      for (int64_t v : t.at("sizes").get<std::vector<int64_t>>()) g.sizes.push_back(v);
      for (int64_t v : t.at("strides").get<std::vector<int64_t>>()) g.strides.push_back(v);
      g.offset = t.at("offset").get<int64_t>();
      o.inputs.push_back(std::move(g));
    }
  // Format v1.4 training: each input's gradient, null when it has none.
  if (j.contains("grads") && j["grads"].is_array())
    for (const auto& g : j["grads"]) o.grads.push_back(g.is_null() ? std::nullopt : std::optional(json_values(g)));
  return o;
}

std::string death_name(int st) {
  if (WIFEXITED(st)) return "exit " + std::to_string(WEXITSTATUS(st));
  if (!WIFSIGNALED(st)) return "";
  const char* abbrev = sigabbrev_np(WTERMSIG(st));
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(WTERMSIG(st));
}

std::string LineProcess::stderr_tail() const {
  constexpr size_t kBytes = 8192, kLines = 40;  // a faulthandler stack fits
  struct stat sb;
  if (err_fd_ < 0 || fstat(err_fd_, &sb) != 0 || sb.st_size <= 0) return "";
  const size_t n = std::min<size_t>(kBytes, static_cast<size_t>(sb.st_size));
  std::string t(n, '\0');
  const ssize_t got = pread(err_fd_, t.data(), n, sb.st_size - static_cast<off_t>(n));
  t.resize(got > 0 ? static_cast<size_t>(got) : 0);
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  size_t start = t.size(), lines = 0;
  while (start > 0 && lines < kLines)
    if (t[--start] == '\n') ++lines;
  if (lines == kLines) ++start;  // after the newline that ends the line before the tail
  return t.substr(start);
}

bool LineProcess::exited(int* status) {
  if (pid_ > 0 && waitpid(pid_, status, WNOHANG) == pid_) {
    pid_ = -1;
    return true;
  }
  return false;
}

void LineProcess::kill() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (err_fd_ >= 0) close(err_fd_);
  err_fd_ = -1;
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int st;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  buf_.clear();
}

void LineProcess::stop(double grace_s) {
  if (pid_ <= 0) return;
  if (fd_ >= 0) shutdown(fd_, SHUT_WR);  // ends the runner's input loop
  const double deadline = now_s() + grace_s;
  int st;
  while (now_s() < deadline && !exited(&st)) usleep(2000);
  kill();
}

void LineProcess::abandon() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (err_fd_ >= 0) close(err_fd_);
  err_fd_ = -1;
  pid_ = -1;
  buf_.clear();
}

bool is_file(const std::string& p) {
  std::error_code ec;
  return !p.empty() && std::filesystem::is_regular_file(p, ec);
}

namespace {

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

std::string env_or_empty(const char* v) {
  const char* e = std::getenv(v);
  return e ? e : "";
}

}  // namespace

std::vector<std::string> root_candidates() {
  std::vector<std::string> out;
  for (const char* var : {"AF_ROOT", "BUILD_WORKSPACE_DIRECTORY"})
    if (auto e = env_or_empty(var); !e.empty()) out.push_back(e);
  const std::string exe = self_exe();
  if (!exe.empty())
    for (auto d = std::filesystem::path(exe).parent_path(); !d.empty() && d != d.root_path(); d = d.parent_path()) {
      out.push_back(d.string());
      out.push_back((d / "execroot/aliasfuzz").string());  // bazel-bin/... lives under it, which links the source tree
    }
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  if (!ec)
    for (auto d = cwd; !d.empty() && d != d.root_path(); d = d.parent_path()) out.push_back(d.string());
  return out;
}

std::string find_source_file(const char* rel, const char* override_env) {
  if (auto e = env_or_empty(override_env); !e.empty()) return e;
  std::vector<std::string> cands;
  for (const char* var : {"TEST_SRCDIR", "RUNFILES_DIR"})
    if (auto e = env_or_empty(var); !e.empty()) cands.push_back(e + "/aliasfuzz/" + rel);
  if (const std::string exe = self_exe(); !exe.empty()) cands.push_back(exe + ".runfiles/aliasfuzz/" + rel);
  for (const auto& d : root_candidates()) cands.push_back(d + "/" + rel);
  for (const auto& c : cands)
    if (is_file(c)) return c;
  return "";
}

const std::string& python_hash_seed() {
  static const std::string seed = [] {
    const std::string user = env_or_empty("PYTHONHASHSEED");
    const bool number = !user.empty() && user.size() <= 10 &&
                        user.find_first_not_of("0123456789") == std::string::npos &&
                        std::stoull(user) <= 4294967295ull;  // Python's range
    const std::string v = number ? user : "0";
    setenv("PYTHONHASHSEED", v.c_str(), 1);
    return v;
  }();
  return seed;
}

bool start_runner(LineProcess& proc, const std::string& python, const std::string& runner,
                  const LineProcess::Options& o, double startup_s, const std::string& what, nlohmann::json* hello,
                  std::string* error) {
  python_hash_seed();  // the child inherits it
  if (!proc.start({python, "-u", runner}, o, error)) return false;
  std::string line;
  if (!proc.read_line(&line, now_s() + startup_s)) {
    proc.kill();
    *error = what + " did not start (" + python + " " + runner + ")";
    return false;
  }
  *hello = nlohmann::json::parse(line, nullptr, false);
  if (!hello->is_object()) {
    proc.kill();
    *error = what + " said: " + line;
    return false;
  }
  return true;
}

}  // namespace af::oracles
