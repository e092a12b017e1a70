// The generator's state and its toolbox, shared by the three parts of the
// generator (internal to fuzz/; the public API is generator.h):
//   generator.cc    the driver: storages and inputs, op choice, the return;
//   recipes.cc      one recipe per ir::GenRecipe: an op's random arguments;
//   noise_model.cc  the rounding-noise bound of every written element;
//   gen_state.cc    shapes, picking tensors, emitting a checked statement.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "ir/hash.h"
#include "oracles/eager.h"

namespace af::fuzz::detail {

using ir::Arg;
using ir::Geometry;
using ir::OpKind;
using ir::Shape;

class Rng {
 public:
  Rng(uint64_t seed, uint64_t index) {
    uint64_t x = seed ^ 0x6A09E667F3BCC909ULL;
    const uint64_t a = ir::splitmix64(&x);
    x = a ^ (index * 0xD1B54A32D192ED03ULL + 0x9E3779B97F4A7C15ULL);
    for (auto& w : s_) w = ir::splitmix64(&x);
  }
  uint64_t next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  // Byte mode (the libFuzzer decoder): choices are read from the bytes,
  // one or two per choice, so that a mutated byte changes one decision;
  // when the bytes run out, the seeded stream takes over.
  void use_bytes(const uint8_t* data, size_t size) {
    bytes_ = data;
    left_ = size;
  }
  // Uniform in [0, n) (n > 0), by multiply-shift.
  int64_t below(int64_t n) {
    if (left_ > 0) {
      uint64_t v = *bytes_++;
      --left_;
      if (n > 256 && left_ > 0) {
        v = (v << 8) | *bytes_++;
        --left_;
      }
      return static_cast<int64_t>(v % static_cast<uint64_t>(n));
    }
    return static_cast<int64_t>((static_cast<unsigned __int128>(next()) * static_cast<uint64_t>(n)) >> 64);
  }
  // Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }
  // True with probability num/1000 (integer arithmetic only).
  bool chance(int per_mille) { return below(1000) < per_mille; }
  // An element of a non-empty vector, SmallVec or array.
  template <class C>
  const auto& pick(const C& v) {
    return v[below(static_cast<int64_t>(std::size(v)))];
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
  const uint8_t* bytes_ = nullptr;
  size_t left_ = 0;
};

// Value pools the recipes draw numbers from.
// How often an operand of an in-place write (or an indexed write's source)
// is a new partial alias of its target (Gen::partial_alias_of).
inline constexpr int kPartialAliasPerMille = 120;
inline constexpr double kSmall[] = {0.5, -0.5, 1.0, -1.0, 2.0, 0.25, 1.5, -2.0, 0.75, 3.0};
inline constexpr double kMulScalars[] = {0.5, -1.0, 2.0, -0.5, 1.5, 0.75, -2.0, 0.25};
inline constexpr double kDivScalars[] = {2.0, -2.0, 4.0, 0.5, -1.5, 1.25, -0.5, 3.0};
inline constexpr double kLerpWeights[] = {0.25, 0.5, 0.75, -0.5, 1.5, 0.125, 0.875, 2.0};
inline constexpr double kFill[] = {0.0, 1.0, -1.0, 0.5, 2.5, -3.25, 7.0, 0.125};
inline constexpr int64_t kNumels[] = {1, 2, 3, 4, 6, 8, 9, 12, 12, 16, 16, 18, 20, 24, 24, 27, 30, 32, 36, 48, 64};

// One program being generated: the program so far, the oracle's analysis
// and values alongside (so every candidate is checked before it is kept),
// the op weights, and the bookkeeping that steers the scenario mix.
struct Gen {
  const GenOptions& options;
  Rng rng;
  ir::Program program;
  ir::Analysis analysis;
  oracles::Memory memory;
  int next_impl = 0;
  int num_stmt_values = 0;
  int total_weight = 0;
  // Running sums of the ops' weights (integers: determinism), parallel to
  // generated_ops(), over all ops and over the in-place ops only (0 for
  // the others): choose_op's draw by binary search.
  std::vector<int> cumulative, cumulative_inplace;
  std::vector<char> enabled_by_kind;  // by OpKind: weight > 0
  std::vector<int> hot;               // recently created aliases / fresh copies: favourite write targets
  int last_written_storage = -1;
  int last_written_value = -1;
  int bound_exceeded = 0;
  oracles::Memory noise;  // by storage: a bound on each element's rounding noise
  int noise_rejected = 0;
  int invalid_rejected = 0;
  int pending_target = -1;  // a value the next in-place op should write
  // The view partial_alias_of made for the statement being built: the
  // next emit() owns it and takes it back out if that statement is
  // rejected, so that no unused view is left for later writes to target.
  struct PartialAlias {
    int value = -1;
    int impl = 0, names = 0;
  } partial_alias;
  // Format v1.2: i64/bool inputs declared as placeholders (one element)
  // when an indexed op is enabled; a recipe gives one its values and layout
  // when it first uses it (no statement has read it yet), so indices fit
  // the target they are drawn for.
  std::vector<int> index_slots;         // value ids of the placeholder inputs
  std::vector<bool> slot_used;          // parallel to index_slots
  int inplace_weight = 0;               // total weight of the in-place ops
  std::vector<int> def_stmt;            // by value id: defining statement, -1 for inputs
  std::vector<int> storage_last_write;  // by storage id: last writing statement, -1 if none
  std::vector<char> retired;            // by value id: names a metadata op retired (format v1.3)

  Gen(uint64_t seed, uint64_t index, const GenOptions& opt);

  bool enabled(OpKind k) const;
  int64_t cap() const { return std::max<int64_t>(options.max_numel, 1); }
  int max_rank() const { return std::max(1, std::min(options.max_rank, 6)); }
  const ir::TensorMeta& meta(int v) const { return analysis.values[v]; }
  const Geometry& geo(int v) const { return analysis.values[v].g; }
  int num_values() const { return static_cast<int>(analysis.values.size()); }

  // ---- shapes -------------------------------------------------------------

  std::vector<int64_t> divisors(int64_t n);

  // A random factorization of n into `rank` sizes (n > 0).
  Shape factor(int64_t n, int rank);

  // A non-overlapping window (sizes, strides, offset) inside a storage of
  // `numel` elements: a random dense layout with optional steps.
  bool window(int64_t numel, Shape* sizes, Shape* strides, int64_t* offset);

  // ---- picking tensors ------------------------------------------------------

  bool writable(int v) const;
  // Format v1.3: whether v's name is still usable (not retired by a
  // metadata op on its tensor object).
  bool live(int v) const { return v >= static_cast<int>(retired.size()) || !retired[v]; }
  // Whether v is live f32 data (not an i64 index or bool mask input, not a
  // format v1.5 i32 value, not a retired name): the only values pick_any
  // and pick_where return.
  bool is_data(int v) const { return live(v) && meta(v).dtype == ir::Dtype::F32; }
  int pick_any();
  int pick_any_value();  // pick_any's draw, any dtype

  template <class Pred>
  int pick_where(Pred pred, int tries = 6) {
    for (int t = 0; t < tries; ++t) {
      int v = pick_any();
      if (pred(v)) return v;
    }
    std::vector<int> ok;
    for (int v = 0; v < num_values(); ++v)
      if (is_data(v) && pred(v)) ok.push_back(v);
    if (ok.empty()) return -1;
    return rng.pick(ok);
  }

  int pick_target();

  bool broadcasts_to(const Shape& from, const Shape& to) const;

  std::vector<float> values_of(int v) const {  // (a wide i64 value's words)
    return oracles::gather(memory[meta(v).storage], ir::memory_geometry(meta(v))).v;
  }
  bool min_abs_at_least(int v, float m) const;
  float max_of(int v) const;

  // A tensor whose shape broadcasts to `to` (rarely `avoid` itself), or -1.
  // With a target (`avoid`), sometimes a partial alias of it (below).
  int pick_operand_for(Shape to, float min_abs = 0, int avoid = -1);  // (by value: emit() may move geo()'s)
  // A new view of x's storage with the given sizes and another layout
  // (strides 0-3, any offset that fits), emitted as as_strided(x, ...):
  // the same-storage operands with other strides or offsets where the
  // order-dependence rule is exact (docs/format.md "Order dependence").
  // -1 when none fits or as_strided is disabled.
  int partial_alias_of(int x, Shape sizes);

  // ---- emitting -------------------------------------------------------------

  std::string fresh_name() { return "t" + std::to_string(num_stmt_values++); }

  bool bounded(oracles::ConstFloats s) const;

  // Checks a candidate with ir::infer, runs it on the oracle's memory and
  // keeps it only when valid and every value stays bounded. Returns the
  // number of outputs bound (>= 0) or -1 when rejected.
  int emit(OpKind op, std::vector<Arg> args, bool bind_inplace = false);
  int emit_statement(OpKind op, std::vector<Arg> args, bool bind_inplace);
  // Takes the last statement, the view `a` made, back out.
  void drop_partial_alias(const PartialAlias& a);

  // ---- one statement of a given op -------------------------------------------

  static Arg T(int v) { return Arg::tensor(v); }
  static Arg I(int64_t i) { return Arg::integer(i); }
  // A number argument; integral values are sometimes written as integers
  // (`add_(x, 2)`), which the format and PyTorch accept as well.
  Arg F(double f);
  static Arg L(Shape s) { return Arg::ints(std::move(s)); }

  int64_t rand_dim(int rank) {  // a dim, sometimes negative
    int64_t d = rng.below(rank);
    if (rng.chance(200)) d -= rank;
    return d;
  }

  Arg scalar_or_tensor(const Shape& to, const double* scalars, size_t ns, float min_abs = 0, int avoid = -1);
  bool try_op(OpKind op);  // the statement of `op`'s recipe (recipes.cc)
  // One function per ir::GenRecipe; each draws the arguments of one statement.
  bool recipe_reshape(OpKind op);
  bool recipe_whole(OpKind op);
  bool recipe_t(OpKind op);
  bool recipe_transpose(OpKind op);
  bool recipe_permute(OpKind op);
  bool recipe_flip(OpKind op);
  bool recipe_bmm(OpKind op);
  bool recipe_matmul_nd(OpKind op);  // recipes_matmul.cc
  int indexed_copy_operand();
  void write_back(int x, int r, int add_per_mille);
  int batch_of(int x, int64_t batch, bool expand);
  std::vector<Arg> with_out(OpKind op, int x, std::vector<Arg> args);
  bool write_back_copy(int x);
  bool recipe_slice(OpKind op);
  bool recipe_unsqueeze(OpKind op);
  bool recipe_squeeze(OpKind op);
  bool recipe_expand(OpKind op);
  bool recipe_diagonal(OpKind op);
  bool recipe_as_strided(OpKind op);
  bool recipe_split(OpKind op);
  bool recipe_unfold(OpKind op);
  // Format v1.3's metadata ops: the mirrored view's arguments, on an input
  // or a view of one most of the time, and often a write through the result.
  bool recipe_meta_in_place(OpKind op);
  bool recipe_in_place_binary(OpKind op);
  bool recipe_in_place_unary(OpKind op);
  bool recipe_clamp(OpKind op);
  bool recipe_fill(OpKind op);
  bool recipe_copy(OpKind op);
  bool recipe_setitem(OpKind op);
  bool recipe_addc(OpKind op);
  bool recipe_lerp(OpKind op);
  bool recipe_clamp_tensor(OpKind op);
  bool recipe_out_binary(OpKind op);
  bool recipe_out_unary(OpKind op);
  // An operand of exactly `sizes` for an out= write into x: often a view
  // of x's own storage (x itself, or a sibling view: the case compilers
  // get wrong), else any tensor of that shape; -1 if none.
  int pick_same_shape(int x, float min_abs = 0);
  // Format v1.2 (recipes_indexed.cc).
  void make_index_slots();
  // Gives a free placeholder of d's dtype the storage `d` (name kept) and
  // the input layout `in` (name and storage kept); -1 when none is free.
  int define_index(const ir::StorageDecl& d, const ir::InputDecl& in);
  void release_index(int slot_pos);  // undoes define_index after a rejected statement
  // An i64 index input holding `vals`, sometimes a strided view of a larger storage.
  int index_input(const std::vector<int64_t>& vals, const Shape& sizes, int* slot_pos);
  // A tensor of exactly `sizes`: sometimes a partial alias of the target,
  // else one on another storage, or a new full().
  int source_of(Shape sizes, int x);
  bool emit_indexed(OpKind op, std::vector<Arg> args, int slot_pos);
  bool recipe_index_put(OpKind op);
  bool recipe_index_along(OpKind op);
  bool recipe_scatter_along(OpKind op);
  bool recipe_masked_fill(OpKind op);
  bool recipe_binary(OpKind op);
  bool recipe_unary(OpKind op);
  bool recipe_reduce(OpKind op);
  bool recipe_matmul(OpKind op);
  bool recipe_cat(OpKind op);
  bool recipe_full(OpKind op);
  bool recipe_graph_break(OpKind op);
  // Format v1.5 (recipes_dtype.cc): view(x, i32) of exact values, the
  // exact i32 arithmetic on i32 values, and views back to f32.
  bool recipe_view_dtype(OpKind op);
  bool integer_op(int y);  // i32 or i64 data
  // Format v1.5 (recipes_foreach.cc): a foreach call of op (ir::foreach_op).
  bool recipe_foreach(OpKind op);
  bool exact(int v) const;  // every element's noise bound is 0
  std::vector<int> exact_integer_values() const;  // i32 and i64 data

  OpKind choose_op();
  int foreach_per_mille() const;  // of the foreach_op statements drawn (GenOptions' "foreach" weight)

  // ---- storages and inputs ---------------------------------------------------

  void make_storages_and_inputs();
  void make_return();

  void run();
};

}  // namespace af::fuzz::detail
