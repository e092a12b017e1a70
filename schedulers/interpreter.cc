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

template <class AfterStmt>
void run_stale_region(const std::vector<int>& region, const ir::Program& p, const ir::Analysis& an,
                      oracles::Memory& mem, AfterStmt&& after) {
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
    if (inplace && !before.count(dst)) before[dst] = mem[dst].to_vector();
    if (stale.empty()) {
      oracles::execute(st, an, mem);
      after(j);
      continue;
    }
    std::map<int, std::vector<float>> real;
    for (int s : stale) {
      real[s] = mem[s].to_vector();
      std::copy(before[s].begin(), before[s].end(),
                mem[s].begin());  // the op sees the value from before the region's writes
    }
    oracles::execute(st, an, mem);
    const bool dst_stale = inplace && real.count(dst);
    if (dst_stale)  // the write landed on the stale copy: carry the written elements into the real storage
      ir::for_each_offset(ir::written_geometry(st, an), [&](int64_t o) { real[dst][o] = mem[dst][o]; });
    for (const auto& [s, v] : real) std::copy(v.begin(), v.end(), mem[s].begin());
    after(j);
  }
}

}  // namespace

oracles::Observables interpret(const Schedule& s) { return interpret(s, nullptr, nullptr); }

oracles::Observables interpret(const Schedule& s, const ExpectedByStmt* expected,
                               std::optional<CheckFailure>* failure) {
  std::shared_ptr<const ir::Analysis> an = s.analysis;
  if (!an) an = std::make_shared<const ir::Analysis>(ir::analyze(s.program).value());
  thread_local oracles::Memory mem;  // its arena is reused: a run allocates only its observables
  oracles::initial_memory(s.program, *an, &mem);
  const bool stale = s.mutant == run::Mutant::FusionStaleCopy;
  // Checked mode: as the device's status buffer, the first region with a
  // failing statement, its smallest failing statement and that statement's
  // first failing element, and the count over the whole run.
  int region_index = 0;
  CheckFailure f;
  auto after = [&](int j) {
    if (!expected || j >= static_cast<int>(expected->size()) || !(*expected)[j]) return;
    const oracles::Dense got = oracles::produced_value(s.program.stmts[j], *an, mem);
    const oracles::Dense& want = *(*expected)[j];
    if (got.v.size() != want.v.size()) return;  // provenance without a comparable value (never for valid provenance)
    for (size_t e = 0; e < got.v.size(); ++e) {
      if (oracles::values_agree(got.v[e], want.v[e])) continue;
      ++f.count;
      // A statement runs once and its elements are visited in order, so
      // the first failing element of the first failing statement is seen first.
      if (f.region < 0 || (f.region == region_index && j < f.stmt)) {
        f.region = region_index;
        f.stmt = j;
        f.first_index = static_cast<int64_t>(e);
      }
    }
  };
  for (const auto& region : s.regions) {
    if (stale && region.size() > 1) {
      run_stale_region(region, s.program, *an, mem, after);
    } else {
      for (int j : region) {
        oracles::execute(s.program.stmts[j], *an, mem);
        after(j);
      }
    }
    ++region_index;
  }
  if (failure && f.count > 0) {
    f.op = ir::op_name(s.program.stmts[f.stmt].op);
    f.line = s.program.stmts[f.stmt].line;
    f.source_stmt = f.stmt < static_cast<int>(s.origin.size()) ? s.origin[f.stmt] : -1;
    *failure = f;
  }
  return oracles::observe(s.program, *an, mem);
}

ExpectedByStmt checked_expectations(const Schedule& s, const ir::Program& source, const ir::Analysis& source_an) {
  std::shared_ptr<const ir::Analysis> an = s.analysis;
  if (!an) an = std::make_shared<const ir::Analysis>(ir::analyze(s.program).value());
  ExpectedByStmt own = oracles::produced_values(s.program, *an);
  const ExpectedByStmt src = oracles::produced_values(source, source_an);
  for (size_t j = 0; j < own.size() && j < s.origin.size(); ++j) {
    const int o = s.origin[j];
    if (!own[j] || o < 0 || o >= static_cast<int>(src.size()) || !src[o]) continue;
    if (src[o]->v.size() == own[j]->v.size()) own[j] = src[o];
  }
  return own;
}

}  // namespace af::schedulers
