// The interpreter tier: a Schedule executed region by region, in its order,
// against real shared storage with the reference kernels (oracles::execute).
// Within a region a read sees the newest version of a storage written
// earlier in the region (what the Halide lowering's storage versions give),
// except under the fusion-stale-copy mutant: there an op that reads a
// storage an earlier in-place op of the same region wrote reads the value
// from before that region's writes (the copy destination, not the update).
#include <algorithm>
#include <map>

#include "schedulers/passes.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {

namespace {

// Storages a statement reads (tensor arguments, including an in-place destination).
std::vector<int> read_storages(const ir::Stmt& st, const ir::Analysis& an) {
  std::vector<int> r;
  auto add = [&](int v) {
    int s = an.values[v].storage;
    if (std::find(r.begin(), r.end(), s) == r.end()) r.push_back(s);
  };
  for_each_tensor_arg(st, add);
  return r;
}

// The geometry an in-place statement writes.
ir::Geometry written_geometry(const ir::Stmt& st, const ir::Analysis& an) {
  const auto& x = an.values[st.args[0].i];
  if (st.op != ir::OpKind::SetitemI) return x.g;
  ir::CheckedArg t, d, s0, e, stp;
  t.t = &x;
  d.i = st.args[1].i; s0.i = st.args[2].i; e.i = st.args[3].i; stp.i = 1;
  return ir::infer(ir::OpKind::Slice, {t, d, s0, e, stp}).value()[0].g;
}

void run_stale_region(const std::vector<int>& region, const ir::Program& p, const ir::Analysis& an,
                      oracles::Memory& mem) {
  std::map<int, std::vector<float>> before;  // storage -> value before the region's first in-place write
  for (int j : region) {
    const ir::Stmt& st = p.stmts[j];
    const bool inplace = ir::is_inplace(st.op);
    const auto cls = ir::op_info(st.op).cls;
    std::vector<int> stale;
    if (cls != ir::OpClass::View && cls != ir::OpClass::Meta)
      for (int s : read_storages(st, an))
        if (before.count(s)) stale.push_back(s);
    const int dst = inplace ? an.values[st.args[0].i].storage : -1;
    if (inplace && !before.count(dst)) before[dst] = mem[dst];
    if (stale.empty()) {
      oracles::execute(st, an, mem);
      continue;
    }
    std::map<int, std::vector<float>> real;
    for (int s : stale) {
      real[s] = mem[s];
      mem[s] = before[s];  // the op sees the value from before the region's writes
    }
    oracles::execute(st, an, mem);
    const bool dst_stale = inplace && real.count(dst);
    if (dst_stale)  // the write landed on the stale copy: carry the written elements into the real storage
      ir::for_each_offset(written_geometry(st, an), [&](int64_t o) { real[dst][o] = mem[dst][o]; });
    for (auto& [s, v] : real) mem[s] = std::move(v);
  }
}

}  // namespace

oracles::Observables interpret(const Schedule& s) {
  std::shared_ptr<const ir::Analysis> an = s.analysis;
  if (!an) an = std::make_shared<const ir::Analysis>(ir::analyze(s.program).value());
  oracles::Memory mem = oracles::initial_memory(s.program, *an);
  const bool stale = s.inject == "fusion-stale-copy";
  for (const auto& region : s.regions) {
    if (stale && region.size() > 1) {
      run_stale_region(region, s.program, *an, mem);
      continue;
    }
    for (int j : region) oracles::execute(s.program.stmts[j], *an, mem);
  }
  return oracles::observe(s.program, *an, mem);
}

}  // namespace af::schedulers
