// RapidCheck properties over generated programs: the text format round-trips
// and the structural hash is a stable function of the program.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "ir/analysis.h"
#include "ir/text.h"

namespace af::fuzz {
namespace {

RC_GTEST_PROP(GeneratorProperty, PrintParseRoundTrips, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  const auto index = *rc::gen::inRange<uint64_t>(0, 1000000);
  GenOptions o;
  o.size = *rc::gen::inRange(0, 60);
  o.max_rank = *rc::gen::inRange(1, 5);
  o.max_numel = *rc::gen::inRange<int64_t>(1, 200);
  const ir::Program p = generate(seed, index, o);
  RC_ASSERT(ir::analyze(p).ok());
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
