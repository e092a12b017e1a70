// Issue #38: the generator writes partial-alias statements (an operand on
// the target's storage with another layout, sharing some element) for
// every multi-operand in-place, out= and indexed op. Prints the rates.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "fuzz/generator.h"
#include "ir/analysis.h"
#include "ir/geometry.h"
#include "ir/ops.h"

namespace af::fuzz {
namespace {

TEST(PartialAlias, EveryMultiOperandAndIndexedOpGetsThem) {
  using ir::OpKind;
  const std::vector<OpKind> ops = {OpKind::AddI, OpKind::SubI, OpKind::MulI, OpKind::DivI, OpKind::CopyI,
                                   OpKind::AddcmulI, OpKind::AddcdivI, OpKind::LerpI, OpKind::ClampTensorI,
                                   OpKind::AddOut, OpKind::MulOut, OpKind::NegOut, OpKind::IndexPutI,
                                   OpKind::IndexAddI, OpKind::IndexCopyI, OpKind::ScatterI, OpKind::ScatterAddI};
  std::map<OpKind, std::pair<int, int>> seen;  // statements, partial-alias statements
  int programs_with = 0;
  const int n = 3000;
  for (int k = 0; k < n; ++k) {
    const ir::Program p = generate(38, k);
    auto an = ir::analyze(p);
    ASSERT_TRUE(an.ok());
    bool any = false;
    for (const auto& st : p.stmts) {
      if (!seen.count(st.op) && std::find(ops.begin(), ops.end(), st.op) == ops.end()) continue;
      const auto& x = an->values[st.args[0].i];
      bool partial = false;
      const char* sig = ir::op_info(st.op).sig;
      for (size_t a = 1; a < st.args.size(); ++a) {
        if (st.args[a].kind != ir::Arg::Tensor || sig[a] == 'J' || sig[a] == 'M') continue;
        const auto& v = an->values[st.args[a].i];
        partial = partial || (v.storage == x.storage && v.g != x.g && ir::shares_any_element(v.g, x.g));
      }
      auto& c = seen[st.op];
      ++c.first;
      c.second += partial;
      any = any || partial;
    }
    programs_with += any;
  }
  std::printf("programs with a partial-alias statement: %d of %d\n", programs_with, n);
  for (OpKind op : ops) {
    const auto c = seen[op];
    std::printf("%-14s %5d statements, %4d partial-alias (%.1f%%)\n", ir::op_name(op), c.first, c.second,
                c.first ? 100.0 * c.second / c.first : 0.0);
    EXPECT_GT(c.second, 0) << ir::op_name(op);
  }
}

}  // namespace
}  // namespace af::fuzz
