// The random program generator (see generator.h).
//
// How validity is guaranteed: every candidate statement goes through
// ir::infer (the same shape/stride/overlap rule analyze() uses) against an
// incrementally maintained ir::Analysis; a candidate that errors (including
// `undefined`) is dropped and another choice is made. How finiteness is
// guaranteed: the generator runs the eager oracle alongside (the programs are
// tiny), so it knows every value exactly; a candidate whose result leaves
// [-value_bound, value_bound] (or is not finite) is rolled back, divisors are
// checked to be bounded away from 0 and exp arguments to be small. Each
// element also carries a bound on its rounding noise (see
// generate/noise_model.h) so that compiled tiers cannot diverge from the oracle by rounding.
//
// Scenario mix: ops are drawn by weight; in-place ops prefer recently made
// aliases ("hot" values), inputs and views of inputs; a fresh alias, piece or
// clone is often written right away; reads prefer siblings of the last
// written tensor; the return favours the last result, the last written view
// and a view made before a later write to its storage (a stale-view check).
//
// Determinism: a private xoshiro256** seeded by splitmix64 from (seed,
// index); no std:: distributions, no unordered containers, no addresses.
// Decisions that look at computed values (bounds, divisors, noise) use the
// oracle's float results, which come from the C library's exp/tanh: a
// different libm could in principle flip a decision sitting exactly on a
// threshold. The golden test in generator_test.cc pins a few programs.
#include "generate/generator.h"
#include "generate/training.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "generate/gen_state.h"
#include "generate/invalid.h"

namespace af::fuzz {

namespace detail {

Gen::Gen(uint64_t seed, uint64_t index, const GenOptions& opt) : options(opt), rng(seed, index) {
  const size_t n = generated_ops().size();
  cumulative.reserve(n);
  cumulative_inplace.reserve(n);
  enabled_by_kind.assign(ir::kOpCount, 0);
  for (OpKind k : generated_ops()) {
    const int base = ir::op_info(k).weight;
    int w = base * 10;
    if (!options.op_weights.empty()) {  // (a name lookup per op and program otherwise)
      auto it = options.op_weights.find(ir::op_name(k));
      // An op the table leaves out (weight 0) is drawn when named, at the
      // given weight itself (the multiplier of a row weight of 1.0).
      if (it != options.op_weights.end())
        w = static_cast<int>(std::lround(std::max(0.0, it->second) * (base > 0 ? base : 10) * 10));
    }
    total_weight += w;
    if (ir::is_inplace(k)) inplace_weight += w;
    cumulative.push_back(total_weight);
    cumulative_inplace.push_back(inplace_weight);
    enabled_by_kind[static_cast<size_t>(k)] = w > 0;
  }
}

int Gen::foreach_per_mille() const {
  const auto it = options.op_weights.find(kForeachWeight);
  if (it == options.op_weights.end()) return 0;
  return static_cast<int>(std::lround(1000 * std::clamp(kForeachRate * it->second, 0.0, 1.0)));
}

bool Gen::enabled(OpKind k) const { return enabled_by_kind[static_cast<size_t>(k)]; }

// The op whose weight interval holds the draw x: the first i with
// cumulative[i] > x (the ops of weight 0 have empty intervals).
OpKind Gen::choose_op() {
  const bool only_inplace = pending_target >= 0 && inplace_weight > 0;
  const int64_t x = rng.below(std::max(only_inplace ? inplace_weight : total_weight, 1));
  const std::vector<int>& sums = only_inplace ? cumulative_inplace : cumulative;
  const auto it = std::upper_bound(sums.begin(), sums.end(), x);
  if (it == sums.end()) return OpKind::Clone;  // every weight 0
  return generated_ops()[it - sums.begin()];
}

void Gen::make_storages_and_inputs() {
  const int ns = static_cast<int>(rng.range(1, std::max(1, options.max_storages)));
  for (int s = 0; s < ns; ++s) {
    ir::StorageDecl d;
    d.name = "s" + std::to_string(s);
    std::vector<int64_t> ok;
    for (int64_t k : kNumels)
      if (k <= cap() && k >= 2) ok.push_back(k);
    d.numel = ok.empty() ? cap() : rng.pick(ok);
    if (cap() > 64) d.numel = std::min(cap(), d.numel * rng.range(1, cap() / 64));  // larger programs
    const int kind = static_cast<int>(rng.below(10));
    if (kind < 5) {
      d.init = ir::InitKind::Random;
      d.seed = rng.next() >> 40;
    } else if (kind < 8) {
      d.init = ir::InitKind::Iota;
      d.a = static_cast<double>(rng.range(-8, 8)) * 0.25;
      const double steps[] = {0.25, 0.5, -0.25, 0.125, 1.0, -0.5};
      d.b = rng.pick(steps);
    } else if (kind < 9) {
      d.init = ir::InitKind::Full;
      d.a = rng.pick(kSmall);
    } else {
      d.init = ir::InitKind::List;
      for (int64_t i = 0; i < d.numel; ++i) d.values.push_back(static_cast<float>(rng.range(-16, 16)) * 0.25f);
    }
    program.storages.push_back(std::move(d));
    analysis.storage_numel.push_back(program.storages.back().numel);
  }
  analysis.num_declared = ns;
  // Inputs: every storage gets one; some get more (aliased inputs).
  int budget = std::max(ns, options.max_inputs);
  for (int s = 0; s < ns; ++s) {
    int count = 1;
    const int roll = static_cast<int>(rng.below(100));
    if (roll < 40)
      count = 2;
    else if (roll < 55)
      count = 3;
    count = std::max(1, std::min(count, budget - (ns - s - 1)));
    budget -= count;
    const int64_t n = program.storages[s].numel;
    const bool disjoint = count >= 2 && n >= 4 && rng.chance(300);
    int first = -1;
    for (int c = 0; c < count; ++c) {
      ir::InputDecl in;
      in.name = "x" + std::to_string(program.inputs.size());
      in.storage = s;
      const int mode = static_cast<int>(rng.below(100));
      if (c > 0 && options.aliased_inputs_same_sizes) {
        const ir::InputDecl& f = program.inputs[first];
        in.whole = f.whole;
        if (!f.whole) {
          in.sizes = f.sizes;
          in.strides = f.strides;
          const int64_t need = ir::required_storage(Geometry{f.sizes, f.strides, 0});
          in.offset = rng.range(0, std::max<int64_t>(0, n - need));
        }
      } else if (c > 0 && mode < 20 && !program.inputs[first].whole) {
        // identical window, a different tensor object
        in.whole = false;
        in.sizes = program.inputs[first].sizes;
        in.strides = program.inputs[first].strides;
        in.offset = program.inputs[first].offset;
      } else if (!disjoint && mode < 45) {
        in.whole = true;
      } else {
        in.whole = false;
        int64_t lo = 0, len = n;
        if (disjoint) {  // windows in disjoint ranges of the storage
          len = n / count;
          lo = c * len;
        }
        Shape sz, st;
        int64_t off;
        if (!window(len, &sz, &st, &off)) {
          sz = {len};
          st = {1};
          off = 0;
        }
        in.sizes = sz;
        in.strides = st;
        in.offset = lo + off;
      }
      ir::TensorMeta m;
      m.storage = s;
      m.storage_numel = n;
      m.impl = next_impl++;
      m.g = in.whole ? Geometry{{n}, {1}, 0} : Geometry{in.sizes, in.strides, in.offset};
      analysis.values.push_back(m);
      program.new_value(in.name);
      if (first < 0) first = static_cast<int>(program.inputs.size());
      program.inputs.push_back(std::move(in));
    }
  }
  memory = oracles::Memory();
  noise = oracles::Memory();
  for (int s = 0; s < ns; ++s) {
    const int64_t n = program.storages[s].numel;
    ir::initial_values_into(program.storages[s], memory[memory.append(n)].data());
    noise.append(n);  // declared values are exact
  }
  def_stmt.assign(analysis.values.size(), -1);
  storage_last_write.assign(ns, -1);
  make_index_slots();
}

void Gen::make_return() {
  const int n = num_values();
  std::vector<int> ret;
  auto add = [&](int v) {
    if (v >= 0 && v < n && live(v) && std::find(ret.begin(), ret.end(), v) == ret.end()) ret.push_back(v);
  };
  const int want = static_cast<int>(rng.range(1, std::max(1, options.max_returns)));
  // the last result, a tensor on the last written storage, then any
  if (!program.stmts.empty() && !program.stmts.back().outs.empty()) add(program.stmts.back().outs[0]);
  if (last_written_value >= 0 && rng.chance(700)) add(last_written_value);
  if (rng.chance(600)) {  // a view created before a later write to its storage
    std::vector<int> stale;
    for (int v = 0; v < n; ++v)
      if (is_data(v) && storage_last_write[meta(v).storage] > def_stmt[v]) stale.push_back(v);
    if (!stale.empty()) add(rng.pick(stale));
  }
  for (int t = 0; t < 4 * want && static_cast<int>(ret.size()) < want; ++t) add(pick_any());
  // Format v1.5: an integer value, often the earliest (a consumer of a view
  // that later writes to its storage may overtake), if its bits are exact.
  if (const std::vector<int> ints = exact_integer_values(); !ints.empty() && rng.chance(700))
    add(rng.chance(500) ? ints.front() : rng.pick(ints));
  // An integer return must be exact: a rounding a compiler may do otherwise
  // would show as a different integer.
  ret.erase(std::remove_if(ret.begin(), ret.end(), [&](int v) { return meta(v).is_exact_data() && !exact(v); }),
            ret.end());
  if (ret.empty()) ret.push_back(pick_any());
  program.returns = ret;
  program.has_return = true;
}

void Gen::run() {
  make_storages_and_inputs();
  int failures = 0;
  const int foreach = foreach_per_mille();
  while (static_cast<int>(program.stmts.size()) < options.size && failures < 40 + 4 * options.size) {
    const bool follow_up = pending_target >= 0;
    const OpKind op = choose_op();
    // (no draw without foreach calls: every other format's seeds make the programs they made)
    const bool call = foreach > 0 && ir::foreach_op(op) && rng.chance(foreach);
    if (!(call ? recipe_foreach(op) : try_op(op))) ++failures;
    if (follow_up) pending_target = -1;  // one try at the follow-up write
  }
  make_return();
}

}  // namespace detail

using detail::Gen;

// The ops the generator draws, in table order (ir/ops.h: a recipe other
// than NotGenerated); their default weights come from the table too.
const std::vector<ir::OpKind>& generated_ops() {
  static const std::vector<ir::OpKind> v = [] {
    std::vector<ir::OpKind> r;
    for (ir::OpKind k : ir::all_ops())
      if (ir::op_info(k).recipe != ir::GenRecipe::NotGenerated) r.push_back(k);
    return r;
  }();
  return v;
}

std::string set_op_weight(const std::string& op_eq_w, GenOptions* options) {
  const size_t eq = op_eq_w.find('=');
  const std::string name = op_eq_w.substr(0, eq);
  char* end = nullptr;
  errno = 0;
  const double v = eq == std::string::npos ? -1 : std::strtod(op_eq_w.c_str() + eq + 1, &end);
  const bool known = name == kForeachWeight || std::any_of(generated_ops().begin(), generated_ops().end(),
                                                           [&](ir::OpKind k) { return name == ir::op_name(k); });
  if (!known || eq == std::string::npos || errno || !end || *end || !(v >= 0))
    return "--weight takes OP=W with a generated op and W >= 0, got '" + op_eq_w + "'";
  options->op_weights[name] = v;
  return "";
}

std::string use_format(const std::string& version, GenOptions* options) {
  if (version == "1.3" || version.empty()) return "";
  if (version != "1.4" && version != "1.5")
    return "--format takes 1.3 (the default), 1.4 or 1.5, got '" + version + "'";
  // Format v1.4's constructs at tanh_'s weight each (off by default, so
  // that every seed's programs stay as they were); an op the user weighted
  // keeps that weight. Format v1.5 adds its dtype view, whose recipe makes
  // a few statements at a time (generate/recipes_dtype.cc).
  for (ir::OpKind k : generated_ops()) {
    if (ir::added_in_v14(k)) options->op_weights.emplace(ir::op_name(k), 1.1);
    if (version == "1.5" && ir::added_in_v15(k)) options->op_weights.emplace(ir::op_name(k), kFormatV15Weight);
  }
  if (version == "1.5") options->op_weights.emplace(kForeachWeight, 1.0);
  options->training_rate = kFormatV14TrainingRate;
  return "";
}

GenOptions halide_options(GenOptions o) {
  // Format v1.5's i32 values, flips and bmms are not lowered (lowering::unsupported_reason).
  for (ir::OpKind k : generated_ops())
    if (ir::added_in_v15(k)) o.op_weights[ir::op_name(k)] = 0;
  return o;
}

ir::Program generate(uint64_t seed, uint64_t index, const GenOptions& opts) {
  return generate(seed, index, opts, nullptr);
}

namespace {
// Stay inside the format's default limits (ir::Limits).
GenOptions clamp_options(const GenOptions& opts) {
  GenOptions options = opts;
  options.size = std::max(0, std::min(options.size, 9000));
  options.max_rank = std::max(1, std::min(options.max_rank, 6));
  options.max_numel = std::max<int64_t>(1, std::min<int64_t>(options.max_numel, int64_t{1} << 16));
  return options;
}
}  // namespace

ir::Program generate_from_bytes(const uint8_t* data, size_t size, const GenOptions& opts) {
  const GenOptions options = clamp_options(opts);
  // The fallback stream depends on the bytes, so inputs that run out early still differ.
  const uint64_t h = ir::fnv1a(data, size);
  for (uint64_t attempt = 0;; ++attempt) {
    Gen g(h, attempt, options);
    g.rng.use_bytes(data, size);
    g.run();
    if (!options.verify || attempt >= 16 || ir::analyze(g.program)) return std::move(g.program);
  }
}

namespace {
// generate() with verification off analyzes nothing; `analysis` then holds
// this error, which no caller sees.
ir::Result<ir::Analysis> not_analyzed() { return ir::Error{ir::ErrorKind::Syntax, 0, "not analyzed"}; }

Generated generate_program(uint64_t seed, uint64_t index, const GenOptions& opts, GenStats* stats, bool want_analysis) {
  const GenOptions options = clamp_options(opts);
  // The sub-seed `attempt` only changes if verification ever fails, which
  // the incremental checks are meant to rule out.
  for (uint64_t attempt = 0;; ++attempt) {
    Gen g(seed + attempt * 0x632BE59BD9B4E019ULL, index, options);
    g.run();
    if (stats) {
      stats->rejected_invalid += g.invalid_rejected;
      stats->rejected_bound += g.bound_exceeded;
      stats->rejected_noise += g.noise_rejected;
    }
    ir::Result<ir::Analysis> an = want_analysis || options.verify ? ir::analyze(g.program) : not_analyzed();
    if (options.verify && attempt < 16 && !an) {
      if (stats) ++stats->regenerated;
      continue;
    }
    if (stats) {
      ++stats->programs;
      stats->statements += static_cast<int64_t>(g.program.stmts.size());
    }
    if (options.training_rate > 0) {  // format v1.4: the same statements, under autograd
      const uint64_t h = ir::mix64(seed ^ ir::mix64(index ^ 0x7EA1D0C5ULL));
      if (static_cast<double>(h >> 11) * 0x1.0p-53 < options.training_rate)
        if (auto t = training_form(g.program, h)) {
          g.program = std::move(*t);
          if (want_analysis || options.verify) an = ir::analyze(g.program);  // value ids moved
        }
    }
    if (options.invalid_rate > 0) {
      const uint64_t h = ir::mix64(seed ^ ir::mix64(index ^ 0x1A7A11D0ULL));
      if (static_cast<double>(h >> 11) * 0x1.0p-53 < options.invalid_rate)
        if (auto bad = invalid_from(g.program, h)) {
          // Only a caller that asked gets the bad program's analysis: generate() never did.
          ir::Result<ir::Analysis> bad_an = want_analysis ? ir::analyze(*bad) : not_analyzed();
          return {std::move(*bad), std::move(bad_an)};
        }
    }
    return {std::move(g.program), std::move(an)};
  }
}
}  // namespace

Generated generate_analyzed(uint64_t seed, uint64_t index, const GenOptions& opts, GenStats* stats) {
  return generate_program(seed, index, opts, stats, true);
}

ir::Program generate(uint64_t seed, uint64_t index, const GenOptions& opts, GenStats* stats) {
  return generate_program(seed, index, opts, stats, false).program;
}

}  // namespace af::fuzz
