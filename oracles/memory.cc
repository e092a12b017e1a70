#include "oracles/memory.h"

#include <algorithm>

namespace af::oracles {

void Memory::layout(const std::vector<int64_t>& numel) {
  start_.resize(numel.size() + 1);
  size_t total = 0;
  for (size_t s = 0; s < numel.size(); ++s) start_[s + 1] = total += static_cast<size_t>(numel[s]);
  data_.assign(total, 0.f);
}

int Memory::append(size_t n) {
  const int id = static_cast<int>(size());
  data_.resize(data_.size() + n, 0.f);
  start_.push_back(data_.size());
  return id;
}

void Memory::truncate(size_t count) {
  if (count >= size()) return;
  start_.resize(count + 1);
  data_.resize(start_.back());
}

void Memory::reset(size_t s, size_t n) {
  const size_t begin = start_[s], old = start_[s + 1] - begin;
  if (n > old) data_.insert(data_.begin() + begin + old, n - old, 0.f);
  if (n < old) data_.erase(data_.begin() + begin + n, data_.begin() + begin + old);
  std::fill(data_.begin() + begin, data_.begin() + begin + n, 0.f);
  for (size_t t = s + 1; t < start_.size(); ++t) start_[t] = start_[t] + n - old;
}

}  // namespace af::oracles
