// What a forked worker is doing, readable by the process that forked it
// after the worker hangs: one slot of shared memory per worker, mapped
// before the fork. A campaign attributes a case that ran past its timeout
// to the system that was computing then (an external compiler's hang is
// that compiler's finding, not a bug of aliasfuzz), and gives a worker
// that is starting a compiler's Python the start-up's own bound.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace af::base {

struct ActivitySlot {
  // The index of the run spec in hand in the case's list of specs while an
  // external strategy is checked; -1 otherwise.
  std::atomic<int32_t> spec{-1};
  // What the external compiler's Python does for the worker: a hang while
  // it computes is the compiler's; one in aliasfuzz's own code, even under
  // an external spec (parsing its answer, bisecting), is aliasfuzz's.
  std::atomic<int32_t> external{kIdle};
  static constexpr int32_t kIdle = 0, kStarting = 1, kAnswering = 2;
};

// n slots in memory shared with every process forked afterwards (never
// unmapped: they live as long as the campaign's process).
ActivitySlot* shared_activity_slots(size_t n);

// The calling process's slot: null unless set (outside a campaign worker
// the notes below do nothing).
ActivitySlot* activity();
void set_activity(ActivitySlot* slot);

// Notes that external spec `index` is checked for the scope's lifetime.
class SpecActivity {
 public:
  explicit SpecActivity(int32_t index) {
    if (ActivitySlot* a = activity()) a->spec.store(index, std::memory_order_relaxed);
  }
  ~SpecActivity() {
    if (ActivitySlot* a = activity()) a->spec.store(-1, std::memory_order_relaxed);
  }
  SpecActivity(const SpecActivity&) = delete;
  SpecActivity& operator=(const SpecActivity&) = delete;
};

// Notes what the compiler's Python does (ActivitySlot::kStarting or
// kAnswering) for the scope's lifetime.
class ExternalActivity {
 public:
  explicit ExternalActivity(int32_t what) {
    if (ActivitySlot* a = activity()) a->external.store(what, std::memory_order_relaxed);
  }
  ~ExternalActivity() {
    if (ActivitySlot* a = activity()) a->external.store(ActivitySlot::kIdle, std::memory_order_relaxed);
  }
  ExternalActivity(const ExternalActivity&) = delete;
  ExternalActivity& operator=(const ExternalActivity&) = delete;
};

}  // namespace af::base
