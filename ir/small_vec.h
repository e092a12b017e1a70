// A vector that keeps up to N elements inline. Shapes and strides are
// copied on every shape rule, schedule statement and kernel call; with N =
// the generator's maximal rank they never touch the heap (profiles showed
// malloc/free at half the time). Larger ones (parsed programs may have any
// rank) spill to the heap. Elements need not be trivially copyable (a
// statement's OutMetas hold Geometries): all N inline slots are always
// constructed, and clear()/pop_back() leave the slots they vacate as they
// are (a later push_back assigns over them).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace af::ir {

template <class T, size_t N>
class SmallVec {
 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<T*>;
  using const_reverse_iterator = std::reverse_iterator<const T*>;

  SmallVec() = default;
  explicit SmallVec(size_t n, T v = T()) { assign(n, v); }
  SmallVec(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
  template <class It, class = decltype(*std::declval<It>())>
  SmallVec(It first, It last) {
    assign(first, last);
  }
  // Interchangeable with std::vector at API boundaries (argument lists,
  // JSON, Halide) so that only the hot containers change type.
  SmallVec(const std::vector<T>& v) { assign(v.begin(), v.end()); }
  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }

  SmallVec(const SmallVec& o) { copy_from(o); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) copy_from(o);
    return *this;
  }
  SmallVec(SmallVec&& o) noexcept { steal(o); }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SmallVec() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  T* begin() { return ptr_; }
  T* end() { return ptr_ + size_; }
  const T* begin() const { return ptr_; }
  const T* end() const { return ptr_ + size_; }
  const T* cbegin() const { return ptr_; }
  const T* cend() const { return ptr_ + size_; }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }
  T& operator[](size_t i) { return ptr_[i]; }
  const T& operator[](size_t i) const { return ptr_[i]; }
  T& front() { return ptr_[0]; }
  const T& front() const { return ptr_[0]; }
  T& back() { return ptr_[size_ - 1]; }
  const T& back() const { return ptr_[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= cap_) return;
    T* p = new T[n];
    std::move(ptr_, ptr_ + size_, p);
    release();
    ptr_ = p;
    cap_ = n;
  }
  void clear() { size_ = 0; }
  void resize(size_t n, T v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) ptr_[i] = v;
    size_ = n;
  }
  void assign(size_t n, T v) {
    size_ = 0;
    resize(n, v);
  }
  template <class It, class = decltype(*std::declval<It>())>
  void assign(It first, It last) {
    size_ = 0;
    reserve(static_cast<size_t>(std::distance(first, last)));
    for (; first != last; ++first) ptr_[size_++] = *first;
  }
  void push_back(const T& v) {
    if (size_ == cap_) {
      T copy = v;  // v may be an element of this vector
      reserve(2 * cap_);
      ptr_[size_++] = std::move(copy);
    } else {
      ptr_[size_++] = v;
    }
  }
  void push_back(T&& v) {
    if (size_ == cap_) {
      T moved = std::move(v);
      reserve(2 * cap_);
      ptr_[size_++] = std::move(moved);
    } else {
      ptr_[size_++] = std::move(v);
    }
  }
  void emplace_back(T v) { push_back(std::move(v)); }
  void pop_back() { --size_; }
  T* insert(const T* pos, T v) {
    const size_t k = pos - ptr_;
    push_back(std::move(v));
    std::rotate(ptr_ + k, ptr_ + size_ - 1, ptr_ + size_);
    return ptr_ + k;
  }
  T* erase(const T* pos) { return erase(pos, pos + 1); }
  T* erase(const T* first, const T* last) {
    const size_t k = first - ptr_, m = last - first;
    std::move(ptr_ + k + m, ptr_ + size_, ptr_ + k);
    size_ -= m;
    return ptr_ + k;
  }

  bool operator==(const SmallVec& o) const { return size_ == o.size_ && std::equal(begin(), end(), o.begin()); }
  bool operator!=(const SmallVec& o) const { return !(*this == o); }
  bool operator<(const SmallVec& o) const { return std::lexicographical_compare(begin(), end(), o.begin(), o.end()); }
  friend bool operator==(const SmallVec& a, const std::vector<T>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const std::vector<T>& a, const SmallVec& b) { return b == a; }
  friend bool operator!=(const SmallVec& a, const std::vector<T>& b) { return !(a == b); }
  friend bool operator!=(const std::vector<T>& a, const SmallVec& b) { return !(b == a); }

 private:
  // Shapes are copied and moved more than anything else: an inline one of
  // trivially copyable elements is copied as the whole fixed-size buffer
  // (a few vector moves, no loop over its size).
  static constexpr bool kFixedCopy = std::is_trivially_copyable_v<T>;
  void copy_from(const SmallVec& o) {
    if constexpr (kFixedCopy) {
      if (!on_heap() && !o.on_heap()) {
        std::memcpy(inline_, o.inline_, sizeof(inline_));
        size_ = o.size_;
        return;
      }
    }
    assign(o.begin(), o.end());
  }
  bool on_heap() const { return ptr_ != inline_; }
  void release() {
    if (on_heap()) delete[] ptr_;
    ptr_ = inline_;
    cap_ = N;
  }
  void steal(SmallVec& o) {
    if (o.on_heap()) {
      ptr_ = o.ptr_;
      cap_ = o.cap_;
      o.ptr_ = o.inline_;
      o.cap_ = N;
    } else if constexpr (kFixedCopy) {
      std::memcpy(inline_, o.inline_, sizeof(inline_));
    } else {
      std::move(o.inline_, o.inline_ + o.size_, inline_);
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T inline_[N];
  T* ptr_ = inline_;
  size_t size_ = 0, cap_ = N;
};

}  // namespace af::ir
