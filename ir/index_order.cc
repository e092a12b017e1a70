// Order dependence of the indexed writes (format v1.2), per element: which
// element each position of index_put_, index_add_, index_copy_, scatter_
// and scatter_add_ writes and which source element it reads, from the
// index values. docs/format.md "Order dependence" states the rule; this is
// its one implementation for indexed ops (ir/geometry.cc's
// reads_across_positions is the elementwise one).
#include "ir/index_order.h"

#include <algorithm>
#include <string>

namespace af::ir {

namespace {

Error err(ErrorKind k, std::string m) { return Error{k, 0, std::move(m)}; }

// PyTorch's indexed kernels take a 0-d tensor as a 1-d one of one element.
Geometry at_least_1d(const Geometry& g) {
  if (g.rank() > 0) return g;
  return Geometry{{1}, {1}, g.offset};
}

Geometry without_dim(const Geometry& g, int d, int64_t at) {
  Geometry r = g;
  r.offset += at * g.strides[d];
  r.sizes.erase(r.sizes.begin() + d);
  r.strides.erase(r.strides.begin() + d);
  return r;
}

// Appends the positions of one index entry: the target's slice at `slot`
// and the source's matching elements (a source broadcast to the slice).
void add_slice(std::vector<IndexedAccess>* r, const Geometry& target, const Geometry& source, int64_t entry) {
  const std::vector<int64_t> w = all_offsets(target), s = all_offsets(source);
  for (size_t k = 0; k < w.size(); ++k) r->push_back({w[k], k < s.size() ? s[k] : -1, entry, 0});
}

// The positions with x's geometry taken as `x` (the real one, or a
// contiguous one for the logical element).
std::vector<IndexedAccess> accesses_with(OpKind op, const std::vector<CheckedArg>& a, const std::vector<int64_t>& index,
                                         const Geometry& x) {
  std::vector<IndexedAccess> r;
  switch (indexed_kind(op)) {
    case IndexedKind::IndexPut: {
      // x[index] (dim 0) = v, v broadcast to the indexing result's shape.
      if (x.rank() == 0) return r;
      const Geometry& idx = a[1].t->g;
      Shape slot = idx.sizes;
      for (int d = 1; d < x.rank(); ++d) slot.push_back(x.sizes[d]);
      const Geometry& v = a[2].t->g;
      const std::vector<int64_t> reads = all_offsets(v.sizes == slot ? v : broadcast_to(v, slot));
      const int64_t n = x.sizes[0], per = numel_of(slot) / std::max<int64_t>(idx.numel(), 1);
      for (size_t k = 0; k < index.size(); ++k) {
        const int64_t i = index[k] < 0 ? index[k] + n : index[k];
        const std::vector<int64_t> w = all_offsets(without_dim(x, 0, i));
        for (size_t e = 0; e < w.size(); ++e) r.push_back({w[e], reads[k * per + e], static_cast<int64_t>(k), 0});
      }
      return r;
    }
    case IndexedKind::IndexAdd:
    case IndexedKind::IndexCopy: {
      // x.select(d, index[i]) takes source.select(d, i).
      const Geometry xg = at_least_1d(x), sg = at_least_1d(a[3].t->g);
      const int d = static_cast<int>(*wrap_dim(a[1].i, x.rank()));
      for (size_t i = 0; i < index.size(); ++i)
        add_slice(&r, without_dim(xg, d, index[i]), without_dim(sg, d, static_cast<int64_t>(i)),
                  static_cast<int64_t>(i));
      return r;
    }
    case IndexedKind::Scatter:
    case IndexedKind::ScatterAdd: {
      // Position p of the index: x at p with coordinate d replaced by
      // index[p] takes src at p.
      const Geometry xg = at_least_1d(x), ig = at_least_1d(a[2].t->g), sg = at_least_1d(a[3].t->g);
      const int d = static_cast<int>(*wrap_dim(a[1].i, x.rank()));
      Geometry base{ig.sizes, xg.strides, xg.offset};
      base.strides[d] = 0;
      const std::vector<int64_t> w = all_offsets(base), s = all_offsets(Geometry{ig.sizes, sg.strides, sg.offset});
      for (size_t p = 0; p < w.size(); ++p)
        r.push_back({w[p] + index[p] * xg.strides[d], s[p], static_cast<int64_t>(p), 0});
      return r;
    }
    case IndexedKind::MaskedFill:  // masked_fill_ writes one number: no order to depend on
    case IndexedKind::None: break;
  }
  return r;
}

}  // namespace

std::vector<IndexedAccess> indexed_accesses(OpKind op, const std::vector<CheckedArg>& a,
                                            const std::vector<int64_t>& index) {
  const Geometry& x = a[0].t->g;
  std::vector<IndexedAccess> r = accesses_with(op, a, index, x);
  const std::vector<IndexedAccess> logical = accesses_with(op, a, index, contiguous_geometry(x.sizes));
  for (size_t p = 0; p < r.size(); ++p) r[p].element = logical[p].write;
  return r;
}

std::optional<Error> indexed_order_dependence(OpKind op, const std::vector<CheckedArg>& a,
                                              const std::vector<int64_t>& index) {
  const std::vector<IndexedAccess> acc = indexed_accesses(op, a, index);
  if (acc.size() < 2) return std::nullopt;
  const std::string nm = op_name(op);
  // Accumulating ops add every write to an element (PyTorch runs one index
  // entry, or one position, after the other): duplicate indices are
  // defined. Two elements of x at one address are not: the oracle and
  // PyTorch's vectorized slice adds (index_add_) keep one of the sums.
  const bool accumulates =
      op == OpKind::IndexAddI || op == OpKind::ScatterAddI || (op == OpKind::IndexPutI && a[3].i == 1);
  // A copy (the ops that do not accumulate) of an element onto itself
  // changes nothing; two copies of one source element write one value.
  auto no_op = [&](size_t p) { return !accumulates && acc[p].read == acc[p].write; };
  std::vector<std::pair<int64_t, size_t>> written;  // (element, position)
  written.reserve(acc.size());
  for (size_t p = 0; p < acc.size(); ++p) written.emplace_back(acc[p].write, p);
  std::sort(written.begin(), written.end());
  auto entry_value = [&](size_t p) { return index[static_cast<size_t>(acc[p].entry)]; };
  for (size_t k = 1; k < written.size(); ++k) {
    if (written[k].first != written[k - 1].first) continue;
    const size_t p = written[k - 1].second, q = written[k].second;
    if (accumulates && acc[p].element == acc[q].element) continue;
    if (!accumulates && acc[p].read >= 0 && acc[p].read == acc[q].read) continue;
    if (acc[p].element == acc[q].element)
      return err(ErrorKind::Undefined, nm + " writes one element twice (indices " + std::to_string(entry_value(p)) +
                                           " and " + std::to_string(entry_value(q)) +
                                           "): PyTorch leaves which write wins unspecified");
    return err(ErrorKind::Undefined,
               nm + " through a view whose elements overlap: two positions write one element (storage offset " +
                   std::to_string(written[k].first) + "), which lands last depends on the kernel's order");
  }
  // The source (index_put_'s value, the others' src) on another storage
  // reads nothing x writes.
  const TensorMeta* source = op == OpKind::IndexPutI ? a[2].t : a[3].t;
  for (size_t p = 0; p < acc.size() && source->storage == a[0].t->storage; ++p) {
    if (acc[p].read < 0) continue;
    auto it = std::lower_bound(written.begin(), written.end(), std::make_pair(acc[p].read, size_t{0}));
    for (; it != written.end() && it->first == acc[p].read; ++it)
      if (it->second != p && !no_op(it->second))
        return err(ErrorKind::Undefined,
                   nm + " reads a source element (storage offset " + std::to_string(acc[p].read) +
                       ") that another position writes: the result depends on the kernel's order");
  }
  return std::nullopt;
}

}  // namespace af::ir
