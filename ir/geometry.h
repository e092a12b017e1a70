// Tensor geometry: sizes, strides and offset into a flat storage, and the
// memory-layout predicates PyTorch uses (contiguity, overlap status). Every
// view rule in ops.cc builds on these; nothing else computes strides.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/small_vec.h"

namespace af::ir {

// Ranks up to 6 (the generator's maximum) stay inline.
using Shape = SmallVec<int64_t, 6>;

struct Geometry {
  Shape sizes;
  Shape strides;
  int64_t offset = 0;

  int rank() const { return static_cast<int>(sizes.size()); }
  int64_t numel() const;
  bool operator==(const Geometry& o) const { return sizes == o.sizes && strides == o.strides && offset == o.offset; }
  bool operator!=(const Geometry& o) const { return !(*this == o); }
};

int64_t numel_of(const Shape& sizes);
Shape contiguous_strides(const Shape& sizes);
Geometry contiguous_geometry(const Shape& sizes, int64_t offset = 0);

// PyTorch's TensorImpl::is_contiguous (size-1 dims ignored; empty is contiguous).
bool is_contiguous(const Geometry& g);
// PyTorch's compute_non_overlapping_and_dense.
bool is_non_overlapping_and_dense(const Geometry& g);
// Number of storage elements a geometry needs: 0 when empty, else
// offset + 1 + sum((size-1)*stride). Used for storage bounds checks.
int64_t required_storage(const Geometry& g);

// at::has_internal_overlap: Yes when a dim of size > 1 has stride 0.
enum class Overlap { No, Yes, TooHard };
Overlap internal_overlap_status(const Geometry& g);
// at::get_overlap_status for two tensors on the same storage (pass
// same_impl when they are literally the same tensor object).
enum class MemOverlap { No, Full, Partial, TooHard };
MemOverlap overlap_status(const Geometry& a, const Geometry& b);

// Exact answers (enumerating elements when the quick test cannot decide).
bool has_exact_internal_overlap(const Geometry& g);
bool shares_any_element(const Geometry& a, const Geometry& b);
// True when a and b (same sizes) map every index to the same element.
bool same_elementwise(const Geometry& a, const Geometry& b);
// True when some position of `read` (which has out's sizes: broadcast it
// first) reads an element that another position of `out` writes: an
// elementwise in-place write whose result depends on iteration order.
// Reading the element a position itself writes is not (it reads first).
// For a copy (`copies`), a position that copies an element onto itself
// changes nothing, so another position may read that element.
bool reads_across_positions(const Geometry& out, const Geometry& read, bool copies = false);
// True when two positions of `out` that write one element copy different
// elements of `read` (out's sizes): the copy's last write decides.
bool copies_collide(const Geometry& out, const Geometry& read);

// The flat storage index of every element, in row-major logical order.
std::vector<int64_t> all_offsets(const Geometry& g);

// Calls f(flat storage index) for every element in row-major logical order.
template <class F>
void for_each_offset(const Geometry& g, F&& f) {
  const int r = g.rank();
  const int64_t n = g.numel();
  if (n == 0) return;
  if (r == 0) {
    f(g.offset);
    return;
  }
  Shape idx(r, 0);  // inline: no allocation per traversal
  int64_t off = g.offset;
  const int64_t last = g.sizes[r - 1], last_stride = g.strides[r - 1];
  for (int64_t done = 0; done < n; done += last) {
    int64_t o = off;
    for (int64_t i = 0; i < last; ++i, o += last_stride) f(o);
    for (int d = r - 2; d >= 0; --d) {
      off += g.strides[d];
      if (++idx[d] < g.sizes[d]) break;
      off -= g.strides[d] * g.sizes[d];
      idx[d] = 0;
    }
  }
}

// Broadcasting (PyTorch's infer_size); false when the shapes do not broadcast.
bool broadcast_shapes(const Shape& a, const Shape& b, Shape* out);
// The geometry of g expanded to `to` (which g must broadcast to): new and
// broadcast dims get stride 0.
Geometry broadcast_to(const Geometry& g, const Shape& to);

// Strides TensorIterator gives the output of an elementwise op over these
// operand geometries (already known to broadcast to `shape`). Scalars are
// not passed. Mirrors PyTorch's fast set-up and dimension reordering.
// The operands of one elementwise op (at most three tensors and a scalar): inline.
using Geometries = SmallVec<Geometry, 3>;
Shape elementwise_output_strides(const Shape& shape, const Geometries& operands);

// The strides of x.clone() (memory_format=preserve, also empty_like): x's
// own strides when x is non-overlapping and dense, else PyTorch's
// infer_dense_strides (the layout permutation of x, made dense).
Shape preserve_format_strides(const Geometry& g);

// PyTorch's suggest_memory_format (channels-last for 4-D tensors whose
// strides are like channels-last, channels-last-3d likewise for 5-D) and
// the strides an empty tensor of that format gets.
enum class MemoryFormat { Contiguous, ChannelsLast, ChannelsLast3d };
MemoryFormat suggest_memory_format(const Geometry& g);
Shape format_strides(const Shape& sizes, MemoryFormat f);

}  // namespace af::ir
