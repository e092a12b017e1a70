#include "ir/geometry.h"

#include <algorithm>
#include <numeric>

namespace af::ir {

int64_t numel_of(const Shape& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

int64_t Geometry::numel() const { return numel_of(sizes); }

Shape contiguous_strides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t s = 1;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    st[d] = s;
    s *= std::max<int64_t>(sizes[d], 1);
  }
  return st;
}

Geometry contiguous_geometry(const Shape& sizes, int64_t offset) {
  return Geometry{sizes, contiguous_strides(sizes), offset};
}

bool is_contiguous(const Geometry& g) {
  if (g.numel() == 0) return true;
  int64_t expected = 1;
  for (int d = g.rank() - 1; d >= 0; --d) {
    if (g.sizes[d] == 1) continue;
    if (g.strides[d] != expected) return false;
    expected *= g.sizes[d];
  }
  return true;
}

bool is_non_overlapping_and_dense(const Geometry& g) {
  // TensorImpl: is_contiguous_ || compute_non_overlapping_and_dense() (so
  // every empty tensor counts as non-overlapping and dense).
  if (is_contiguous(g)) return true;
  const int r = g.rank();
  if (r == 1) return g.sizes[0] < 2 || g.strides[0] == 1;
  std::vector<int> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int a, int b) {
    if (g.sizes[a] < 2) return false;
    if (g.sizes[b] < 2) return true;
    return g.strides[a] < g.strides[b];
  });
  int64_t require = 1;
  for (int i = 0; i < r; ++i) {
    int64_t s = g.sizes[perm[i]];
    if (s < 2) return true;
    if (g.strides[perm[i]] != require) return false;
    require *= s;
  }
  return true;
}

int64_t required_storage(const Geometry& g) {
  int64_t n = 1;
  for (int d = 0; d < g.rank(); ++d) {
    if (g.sizes[d] == 0) return 0;
    n += (g.sizes[d] - 1) * g.strides[d];
  }
  return g.offset + n;
}

Overlap internal_overlap_status(const Geometry& g) {
  if (is_non_overlapping_and_dense(g)) return Overlap::No;
  for (int d = 0; d < g.rank(); ++d)
    if (g.strides[d] == 0 && g.sizes[d] > 1) return Overlap::Yes;
  return Overlap::TooHard;
}

MemOverlap overlap_status(const Geometry& a, const Geometry& b) {
  if (a.numel() == 0 || b.numel() == 0) return MemOverlap::No;
  if (!is_non_overlapping_and_dense(a) || !is_non_overlapping_and_dense(b)) return MemOverlap::TooHard;
  const int64_t a_begin = a.offset, a_end = a.offset + a.numel();
  const int64_t b_begin = b.offset, b_end = b.offset + b.numel();
  if (a_begin == b_begin && a_end == b_end) return a.strides == b.strides ? MemOverlap::Full : MemOverlap::Partial;
  if (a_begin < b_end && b_begin < a_end) return MemOverlap::Partial;
  return MemOverlap::No;
}

std::vector<int64_t> all_offsets(const Geometry& g) {
  std::vector<int64_t> v;
  v.reserve(g.numel());
  for_each_offset(g, [&](int64_t o) { v.push_back(o); });
  return v;
}

bool has_exact_internal_overlap(const Geometry& g) {
  // Quick proof of no overlap: sorted by stride, each stride exceeds the
  // extent of all smaller dims.
  SmallVec<int, 6> dims;  // inline: this runs on every in-place statement
  for (int d = 0; d < g.rank(); ++d)
    if (g.sizes[d] > 1) dims.push_back(d);
  if (g.numel() <= 1) return false;
  std::sort(dims.begin(), dims.end(), [&](int a, int b) { return g.strides[a] < g.strides[b]; });
  int64_t extent = 0;
  bool proven = true;
  for (int d : dims) {
    if (g.strides[d] <= extent) {
      proven = false;
      break;
    }
    extent += (g.sizes[d] - 1) * g.strides[d];
  }
  if (proven) return false;
  auto v = all_offsets(g);
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) != v.end();
}

bool shares_any_element(const Geometry& a, const Geometry& b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  const int64_t a_end = required_storage(a), b_end = required_storage(b);
  if (a_end <= b.offset || b_end <= a.offset) return false;  // disjoint ranges
  auto va = all_offsets(a), vb = all_offsets(b);
  std::sort(va.begin(), va.end());
  std::sort(vb.begin(), vb.end());
  size_t i = 0, j = 0;
  while (i < va.size() && j < vb.size()) {
    if (va[i] == vb[j]) return true;
    if (va[i] < vb[j])
      ++i;
    else
      ++j;
  }
  return false;
}

bool same_elementwise(const Geometry& a, const Geometry& b) {
  if (a.sizes != b.sizes) return false;
  if (a.numel() == 0) return true;
  if (a.offset != b.offset) return false;
  for (int d = 0; d < a.rank(); ++d)
    if (a.sizes[d] > 1 && a.strides[d] != b.strides[d]) return false;
  return true;
}

bool reads_across_positions(const Geometry& out, const Geometry& read, bool copies) {
  if (same_elementwise(out, read) || !shares_any_element(out, read)) return false;  // the cheap answers
  // Positions are row-major indices of both (same sizes): sort out's
  // elements with their positions and look every read up.
  const std::vector<int64_t> reads = all_offsets(read);
  std::vector<std::pair<int64_t, int64_t>> written;
  written.reserve(out.numel());
  for_each_offset(out, [&](int64_t o) {
    const int64_t pos = static_cast<int64_t>(written.size());
    written.emplace_back(copies && reads[pos] == o ? -1 : o, pos);  // -1: writes nothing new
  });
  std::sort(written.begin(), written.end());
  for (int64_t pos = 0; pos < static_cast<int64_t>(reads.size()); ++pos) {
    auto it = std::lower_bound(written.begin(), written.end(), std::make_pair(reads[pos], int64_t{-1}));
    for (; it != written.end() && it->first == reads[pos]; ++it)
      if (it->second != pos) return true;
  }
  return false;
}

bool copies_collide(const Geometry& out, const Geometry& read) {
  const std::vector<int64_t> written = all_offsets(out), reads = all_offsets(read);
  std::vector<std::pair<int64_t, int64_t>> pairs;  // (written, read)
  pairs.reserve(written.size());
  for (size_t pos = 0; pos < written.size(); ++pos) pairs.emplace_back(written[pos], reads[pos]);
  std::sort(pairs.begin(), pairs.end());
  for (size_t k = 1; k < pairs.size(); ++k)
    if (pairs[k].first == pairs[k - 1].first && pairs[k].second != pairs[k - 1].second) return true;
  return false;
}

bool broadcast_shapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t n = std::max(a.size(), b.size());
  Shape r(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    r[i] = da == 1 ? db : da;
  }
  *out = std::move(r);
  return true;
}

Geometry broadcast_to(const Geometry& g0, const Shape& to) {
  // Leading size-1 dims beyond `to`'s rank are dropped (copy_to's
  // slicePrefix1sSize, as setitem_ does with its value).
  Geometry g = g0;
  while (g.sizes.size() > to.size() && g.sizes[0] == 1) {
    g.sizes.erase(g.sizes.begin());
    g.strides.erase(g.strides.begin());
  }
  Geometry r{to, Shape(to.size(), 0), g.offset};
  const size_t lead = to.size() - g.sizes.size();
  for (size_t i = 0; i < g.sizes.size(); ++i) r.strides[lead + i] = (g.sizes[i] == to[lead + i]) ? g.strides[i] : 0;
  return r;
}

namespace {
// The dimension order of PyTorch's TensorIterator::reorder_dimensions and
// empty_like's infer_dense_strides: perm starts as n-1..0 (perm[0] is the
// fastest dim) and an insertion sort moves a dim before another when
// should_swap(d0, d1) > 0, stopping at the first < 0 (0: undecided, go on).
template <class ShouldSwap>
SmallVec<int, 6> dims_fastest_first(int nd, ShouldSwap should_swap) {
  SmallVec<int, 6> perm(nd);
  for (int i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  for (int i = 1; i < nd; ++i) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0)
        break;
    }
  }
  return perm;
}
}  // namespace

Shape elementwise_output_strides(const Shape& shape, const Geometries& ops) {
  const int nd = static_cast<int>(shape.size());
  // Fast set-up: every operand has the output's shape.
  bool same_shape = !ops.empty();
  for (const auto& g : ops) same_shape = same_shape && g.sizes == shape;
  if (same_shape) {
    bool contig = true, dense = true;
    for (const auto& g : ops) {
      contig = contig && is_contiguous(g);
      dense = dense && is_non_overlapping_and_dense(g);
    }
    if (contig) return contiguous_strides(shape);
    if (dense) {
      bool equal = true;
      for (const auto& g : ops) equal = equal && g.strides == ops.back().strides;
      if (equal) return ops.back().strides;
    }
  }
  if (nd == 0) return {};
  // compute_strides: broadcast dims get stride 0.
  SmallVec<Shape, 3> st;
  for (const auto& g : ops) {
    Shape s(nd, 0);
    const int lead = nd - g.rank();
    for (int i = 0; i < g.rank(); ++i) s[lead + i] = (g.sizes[i] == 1 && shape[lead + i] != 1) ? 0 : g.strides[i];
    st.push_back(std::move(s));
  }
  // reorder_dimensions
  auto should_swap = [&](int d0, int d1) {
    for (const auto& s : st) {
      const int64_t s0 = s[d0], s1 = s[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  const SmallVec<int, 6> perm = dims_fastest_first(nd, should_swap);
  bool inverted = true;
  for (int j = 0; j < nd; ++j) inverted = inverted && perm[j] == nd - 1 - j;
  if (inverted) return contiguous_strides(shape);
  Shape out(nd);
  int64_t s = 1;
  for (int j = 0; j < nd; ++j) {
    out[perm[j]] = s;
    s *= shape[perm[j]];
  }
  return out;
}

Shape preserve_format_strides(const Geometry& g) {
  if (is_non_overlapping_and_dense(g)) return g.strides;
  const int nd = g.rank();
  auto should_swap = [&](int d0, int d1) {
    const int64_t s0 = g.strides[d0], s1 = g.strides[d1];
    if (s0 == 0 || s1 == 0) return 0;
    if (s0 < s1) return -1;
    if (s0 > s1) return 1;
    if (g.sizes[d0] > g.sizes[d1]) return 1;
    return 0;
  };
  const SmallVec<int, 6> perm = dims_fastest_first(nd, should_swap);
  Shape out(nd);
  int64_t cur = 1;
  for (int i = 0; i < nd; ++i) {
    out[perm[i]] = cur;
    if (g.sizes[perm[i]] > 1) cur *= g.sizes[perm[i]];
  }
  return out;
}

namespace {
// c10's is_channels_last_strides_2d_s4 / 3d_s5.
bool channels_last_like(const Geometry& g, std::initializer_list<int> order) {
  int64_t min = 0;
  if (g.strides[1] == 0) return false;
  for (int d : order) {
    if (g.sizes[d] == 0) return false;
    if (g.strides[d] < min) return false;
    if (d == 0 && min == g.strides[1]) return false;
    min = g.strides[d];
    if (g.sizes[d] > 1) min *= g.sizes[d];
  }
  return true;
}
}  // namespace

MemoryFormat suggest_memory_format(const Geometry& g) {
  if (g.rank() == 4 && channels_last_like(g, {1, 3, 2, 0})) return MemoryFormat::ChannelsLast;
  if (g.rank() == 5 && channels_last_like(g, {1, 4, 3, 2, 0})) return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

Shape format_strides(const Shape& s, MemoryFormat f) {
  if (f == MemoryFormat::ChannelsLast && s.size() == 4) {
    Shape st(4);
    st[1] = 1;
    st[3] = s[1];
    st[2] = st[3] * s[3];
    st[0] = st[2] * s[2];
    return st;
  }
  if (f == MemoryFormat::ChannelsLast3d && s.size() == 5) {
    Shape st(5);
    st[1] = 1;
    st[4] = s[1];
    st[3] = st[4] * s[4];
    st[2] = st[3] * s[3];
    st[0] = st[2] * s[2];
    return st;
  }
  return contiguous_strides(s);
}

}  // namespace af::ir
