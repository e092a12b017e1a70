#include "base/activity.h"

#include <sys/mman.h>

#include <new>
#include <stdexcept>

namespace af::base {

namespace {
ActivitySlot* g_slot = nullptr;
}

ActivitySlot* shared_activity_slots(size_t n) {
  void* m = mmap(nullptr, sizeof(ActivitySlot) * (n ? n : 1), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                 0);
  if (m == MAP_FAILED) throw std::runtime_error("mmap of the workers' activity slots failed");
  auto* slots = static_cast<ActivitySlot*>(m);
  for (size_t i = 0; i < n; ++i) new (&slots[i]) ActivitySlot();
  return slots;
}

ActivitySlot* activity() { return g_slot; }
void set_activity(ActivitySlot* slot) { g_slot = slot; }

}  // namespace af::base
