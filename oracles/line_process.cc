#include "oracles/line_process.h"

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
#include <cerrno>
#include <cstring>

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
  std::vector<const char*> args;
  for (const auto& a : argv) args.push_back(a.c_str());
  args.push_back(nullptr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
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
    if (!o.keep_stderr) {
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
    if (n > 0) buf_.append(tmp, n);
    else if (n == 0) return false;  // the process died
    else if (errno != EAGAIN && errno != EINTR) return false;
  }
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
  pid_ = -1;
  buf_.clear();
}

}  // namespace af::oracles
