// The worker processes of a campaign: forks them, keeps each fed with a
// few program indices, reads their answer lines, and notices a crash (the
// pipe closes) or a hang (no answer within the case timeout) of the case
// in hand, restarting the worker. What to check next and what to do with
// an answer are the campaign's (Callbacks).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/activity.h"
#include "campaign/answer_line.h"
#include "campaign/campaign_options.h"

namespace af::fuzz {

class WorkerPool {
 public:
  struct Callbacks {
    std::function<std::optional<uint64_t>()> next_case;               // the next program to hand out, if any
    std::function<void(uint64_t k)> give_back;                        // handed out, never answered: hand out again
    std::function<void(uint64_t k, const nlohmann::json& r)> answer;  // a worker's JSON line for program k
    std::function<void(uint64_t k, const RoutineAnswer& a)> routine;  // its routine line (campaign/answer_line.h)
    // Program k crashed ("crash", detail with the signal) or hung ("timeout").
    // spec: for a hang, the index (in campaign_specs) of the external
    // strategy whose Python was computing or starting then; else -1 (a
    // crash of the worker, or a hang in aliasfuzz's own code).
    std::function<void(uint64_t k, const std::string& kind, const std::string& detail, int spec)> died;
    std::function<bool()> stopping;  // an interrupt: restart no worker
  };

  WorkerPool(const CampaignOptions& o, Callbacks cb) : o_(o), cb_(std::move(cb)) {}
  void start(int jobs);
  // Hands out cases so that no worker waits for the parent.
  void feed();
  bool busy() const;
  // Reads what workers wrote (waits up to 50 ms), then kills hung cases.
  void poll();
  // Lets every worker finish the case in hand, then gives back the rest;
  // after an interrupt (Callbacks::stopping) a worker still busy after
  // kInterruptGrace_s is killed and its case handed back too.
  void finish();
  static constexpr double kInterruptGrace_s = 2;
  // A worker starting a compiler's Python (importing torch, thunder) gets
  // this much time past the case timeout: the start-up is not the case.
  static constexpr double kStartupGrace_s = 180;

 private:
  struct Worker {
    pid_t pid = -1;
    int to = -1, from = -1;
    std::deque<uint64_t> queue;  // assigned, not yet answered (front = in progress)
    double last_progress = 0;
    std::string partial;                     // bytes of an unfinished line
    base::ActivitySlot* activity = nullptr;  // what it is doing (shared memory)
  };
  void spawn(Worker& w);
  void feed(Worker& w);
  void stop(Worker& w);
  void give_back(Worker& w);
  void died(Worker& w, const std::string& kind);
  void drain_lines(Worker& w);
  void check_timeouts();

  const CampaignOptions& o_;
  Callbacks cb_;
  std::vector<Worker> workers_;
  double interrupted_at_ = -1;  // when a stop first saw the interrupt
  double case_s_ = 0.01;        // seconds per answered case (moving average): sizes the queues
};

}  // namespace af::fuzz
