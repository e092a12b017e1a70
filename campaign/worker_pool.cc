#include "campaign/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "campaign/campaign_case.h"

namespace af::fuzz {

using nlohmann::json;

void WorkerPool::start(int jobs) {
  base::ActivitySlot* slots = base::shared_activity_slots(static_cast<size_t>(std::max(jobs, 1)));
  workers_.reserve(static_cast<size_t>(jobs));
  for (int i = 0; i < jobs; ++i) {
    workers_.emplace_back();
    workers_.back().activity = &slots[i];
    spawn(workers_.back());
  }
}

bool WorkerPool::busy() const {
  for (const auto& w : workers_)
    if (!w.queue.empty()) return true;
  return false;
}

void WorkerPool::feed() {
  for (auto& w : workers_) feed(w);
}

void WorkerPool::finish() {
  for (auto& w : workers_) stop(w);
  for (auto& w : workers_) give_back(w);
}

void WorkerPool::spawn(Worker& w) {
  int a[2], b[2];
  if (pipe(a) != 0 || pipe(b) != 0) throw std::runtime_error("pipe failed");
  w.activity->spec.store(-1);
  w.activity->external.store(base::ActivitySlot::kIdle);
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(a[1]);
    ::close(b[0]);
    for (auto& other : workers_)
      if (other.to >= 0) ::close(other.to), ::close(other.from);
    base::set_activity(w.activity);
    worker_main(o_, a[0], b[1]);
  }
  ::close(a[0]);
  ::close(b[1]);
  w.pid = pid;
  w.to = a[1];
  w.from = b[0];
  w.partial.clear();
  w.last_progress = now_s();
  fcntl(w.from, F_SETFL, O_NONBLOCK);
}

void WorkerPool::stop(Worker& w) {
  if (w.pid < 0) return;
  ::close(w.to);
  // Let it finish the case in hand, reading what it writes. After an
  // interrupt only for a short grace (counted from the first stop that saw
  // it): a case stuck in a slow compiler call is killed and handed back
  // (give_back), so Ctrl-C ends the campaign promptly and --resume checks
  // that case again; every answer read before stays recorded.
  char buf[65536];
  for (;;) {
    int wait_ms = 1000;  // without an interrupt: wait, and look for one every second
    if (cb_.stopping()) {
      if (interrupted_at_ < 0) interrupted_at_ = now_s();
      const double left = interrupted_at_ + kInterruptGrace_s - now_s();
      wait_ms = left > 0 ? static_cast<int>(left * 1000) + 1 : 0;
    }
    pollfd pf{w.from, POLLIN, 0};
    const int r = ::poll(&pf, 1, wait_ms);
    if (r < 0 && errno != EINTR) break;
    if (r == 0 && cb_.stopping() && now_s() >= interrupted_at_ + kInterruptGrace_s) {
      ::kill(w.pid, SIGKILL);
      break;
    }
    if (r <= 0) continue;
    const ssize_t n = ::read(w.from, buf, sizeof buf);
    if (n > 0) {
      w.partial.append(buf, static_cast<size_t>(n));
      drain_lines(w);
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      break;  // it exited (its input closed)
    }
  }
  ::close(w.from);
  waitpid(w.pid, nullptr, 0);
  w.pid = -1;
  w.to = w.from = -1;
}

void WorkerPool::give_back(Worker& w) {
  for (uint64_t k : w.queue) cb_.give_back(k);
  w.queue.clear();
}

void WorkerPool::feed(Worker& w) {
  // Keep ~50 ms of work queued (4 to 128 cases) so that a worker never
  // waits for the parent (which sleeps 8 ms per poll, below), topped up in
  // bulk: one write per batch. Not more: a stopping campaign lets the
  // workers finish what they hold.
  const size_t depth = std::clamp<size_t>(static_cast<size_t>(0.05 / case_s_), 4, 128);
  if (w.queue.size() > depth / 2) return;
  std::string msg;
  while (w.queue.size() < depth) {
    const std::optional<uint64_t> k = cb_.next_case();
    if (!k) break;
    if (w.queue.empty()) w.last_progress = now_s();
    w.queue.push_back(*k);
    msg += std::to_string(*k) + "\n";
  }
  if (!msg.empty() && ::write(w.to, msg.data(), msg.size()) < 0) {
    // The worker is gone; poll will notice and restart it.
  }
}

void WorkerPool::poll() {
  std::vector<pollfd> fds;
  for (auto& w : workers_) fds.push_back({w.from, POLLIN, 0});
  if (::poll(fds.data(), fds.size(), 50) > 0) {
    // Let answers pile up for a moment: one wakeup and one read per batch
    // of lines, not per program. Per-program wakeups cost the parent ~30 us
    // a program, ~10% of a core that --jobs 2 needs for the second worker;
    // 8 ms rather than 2 took the parent from 0.51 to 0.37 CPU s per
    // 20,000 programs (bench/README.md, fifth session). 8 ms of answers
    // (~12 KB at 5,000 programs/s) fit in a 64 KiB pipe: no worker blocks.
    ::usleep(8000);
    for (size_t i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t n = ::read(w.from, buf, sizeof buf);
      if (n > 0) {
        w.partial.append(buf, static_cast<size_t>(n));
        drain_lines(w);
      } else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        died(w, "crash");
      }
    }
  }
  check_timeouts();
}

void WorkerPool::check_timeouts() {
  for (auto& w : workers_)
    if (!w.queue.empty() &&
        now_s() - w.last_progress >
            o_.case_timeout_s + (w.activity->external.load(std::memory_order_relaxed) == base::ActivitySlot::kStarting
                                     ? kStartupGrace_s
                                     : 0)) {
      ::kill(w.pid, SIGKILL);
      died(w, "timeout");
    }
}

// The case in hand crashed or hung: report it, hand the rest out again.
void WorkerPool::died(Worker& w, const std::string& kind) {
  int st = 0;
  ::close(w.to);
  ::close(w.from);
  waitpid(w.pid, &st, 0);
  w.pid = -1;
  // Read after it is gone: the external compiler it was waiting for when
  // it hung (-1: it was in aliasfuzz's own code, or it crashed: the worker
  // is aliasfuzz's process, whatever ran in its Python child).
  const bool compiler_hung =
      kind == "timeout" && w.activity->external.load(std::memory_order_relaxed) != base::ActivitySlot::kIdle;
  const int spec = compiler_hung ? w.activity->spec.load(std::memory_order_relaxed) : -1;
  if (!w.queue.empty()) {
    const uint64_t k = w.queue.front();
    w.queue.pop_front();
    std::string detail = kind;
    if (kind == "crash" && WIFSIGNALED(st)) detail += " (signal " + std::to_string(WTERMSIG(st)) + ")";
    cb_.died(k, kind, detail, spec);
  }
  give_back(w);
  if (!cb_.stopping()) spawn(w);
}

void WorkerPool::drain_lines(Worker& w) {
  size_t at = 0, nl;
  while ((nl = w.partial.find('\n', at)) != std::string::npos) {
    const std::string_view line(w.partial.data() + at, nl - at);
    at = nl + 1;
    // A line that reads as neither form is not an answer (never a worker's).
    std::optional<RoutineAnswer> routine;
    json r;
    if (is_routine_line(line)) {
      routine = decode_routine(line);
      if (!routine) continue;
    } else {
      r = json::parse(line.begin(), line.end(), nullptr, false);
      if (r.is_discarded()) continue;
    }
    if (w.queue.empty()) continue;
    const uint64_t k = w.queue.front();
    w.queue.pop_front();
    const double t = now_s();
    case_s_ = 0.95 * case_s_ + 0.05 * (t - w.last_progress);
    w.last_progress = t;
    if (routine)
      cb_.routine(k, *routine);
    else
      cb_.answer(k, r);
  }
  w.partial.erase(0, at);
}

}  // namespace af::fuzz
