// The memory a program runs against: every storage (the declared ones,
// then one per fresh result) as a slice of one arena, so a run allocates
// once, not once per statement (issue #16's executor without per-op
// allocation). Storages are addressed by the analysis' storage ids.
#pragma once
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace af::oracles {

// A storage's elements: a slice of a Memory's arena, or of any float
// vector (so kernels and callers take either). T is float or const float.
template <class T>
class Span {
 public:
  Span() = default;
  Span(T* p, size_t n) : p_(p), n_(n) {}
  // From a std::vector<float> (const or not) or a Span<float>; a Span of a
  // temporary lives as long as the call it is passed to.
  template <class V, class = decltype(std::declval<V&>().data())>
  Span(V&& v) : p_(v.data()), n_(v.size()) {}  // NOLINT: implicit on purpose
  T* data() const { return p_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T* begin() const { return p_; }
  T* end() const { return p_ + n_; }
  // Bounds-checked where NDEBUG is off (tests, the sanitizer builds): a
  // slice's neighbours share its allocation, so ASan alone would not see
  // a write past a storage's end.
  T& operator[](size_t i) const {
    assert(i < n_ && "Span index out of range");
    return p_[i];
  }
  std::vector<float> to_vector() const { return std::vector<float>(p_, p_ + n_); }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};
using Floats = Span<float>;
using ConstFloats = Span<const float>;

class Memory {
 public:
  Memory() = default;
  // One zeroed storage of numel[s] elements per entry, in one allocation.
  explicit Memory(const std::vector<int64_t>& numel) { layout(numel); }
  // Makes the storages numel[s] zeros each, keeping the arena's capacity:
  // an executor that reuses one Memory allocates nothing per run.
  void layout(const std::vector<int64_t>& numel);

  size_t size() const { return start_.size() - 1; }  // storages
  Floats operator[](size_t s) { return {data_.data() + start_[s], start_[s + 1] - start_[s]}; }
  ConstFloats operator[](size_t s) const { return {data_.data() + start_[s], start_[s + 1] - start_[s]}; }

  // Adds a storage of n zeros (the generator grows its memory statement by
  // statement); its id is size() before the call. A Span taken earlier may
  // dangle after it.
  int append(size_t n);
  // Drops every storage from id `count` on (the generator's rollback).
  void truncate(size_t count);
  // Makes storage s n zeros, moving the storages after it (the generator
  // gives its index placeholders their sizes; rare, so a move is fine).
  void reset(size_t s, size_t n);

 private:
  std::vector<float> data_;
  std::vector<size_t> start_{0};  // storage s is [start_[s], start_[s + 1])
};

}  // namespace af::oracles
