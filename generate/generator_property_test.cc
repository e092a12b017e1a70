// RapidCheck properties over generated programs: the text format round-trips
// and the structural hash is a stable function of the program.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"

namespace af::fuzz {
namespace {

RC_GTEST_PROP(GeneratorProperty, PrintParseRoundTrips, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  const auto index = *rc::gen::inRange<uint64_t>(0, 1000000);
  GenOptions o;
  o.size = *rc::gen::inRange(0, 60);
  o.max_rank = *rc::gen::inRange(1, 5);
  o.max_numel = *rc::gen::inRange<int64_t>(1, 200);
  // a few ops re-weighted (0 disables them)
  const auto reweighted = *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, generated_ops().size()));
  for (size_t i : reweighted) o.op_weights[ir::op_name(generated_ops()[i])] = *rc::gen::element(0.0, 0.5, 1.0, 4.0);
  o.guard_noise = *rc::gen::arbitrary<bool>();
  const ir::Program p = generate(seed, index, o);
  auto an = ir::analyze(p);
  RC_ASSERT(an.ok());
  for (const auto& st : p.stmts) {
    auto w = o.op_weights.find(ir::op_name(st.op));
    RC_ASSERT(w == o.op_weights.end() || w->second > 0);  // disabled ops never appear
  }
  const oracles::Observables obs = oracles::run_eager(p, *an);
  for (const auto& r : obs.returns)
    for (float v : r.v) RC_ASSERT(std::isfinite(v));
  for (const auto& s : obs.storages)
    for (float v : s) RC_ASSERT(std::isfinite(v));
  const std::string text = ir::print(p);
  auto q = ir::parse(text);
  RC_ASSERT(q.ok());
  RC_ASSERT(*q == p);
  RC_ASSERT(ir::print(*q) == text);
  RC_ASSERT(ir::parse_and_validate(text).ok());
}

RC_GTEST_PROP(GeneratorProperty, StructuralHashIsStable, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  const auto index = *rc::gen::inRange<uint64_t>(0, 1000000);
  GenOptions o;
  o.size = *rc::gen::inRange(0, 40);
  const ir::Program p = generate(seed, index, o);
  const uint64_t h = ir::structural_hash(p);
  RC_ASSERT(ir::structural_hash(generate(seed, index, o)) == h);  // regenerated
  auto q = ir::parse(ir::print(p));
  RC_ASSERT(q.ok());
  RC_ASSERT(ir::structural_hash(*q) == h);  // through the text
  ir::Program renamed = p;                  // names do not matter
  for (auto& n : renamed.value_names) n = "r_" + n;
  for (size_t i = 0; i < renamed.inputs.size(); ++i) renamed.inputs[i].name = renamed.value_names[i];
  RC_ASSERT(ir::structural_hash(renamed) == h);
}

}  // namespace
}  // namespace af::fuzz
