#include "generate/features.h"

#include <algorithm>
#include <set>

#include "ir/geometry.h"

namespace af::fuzz {

using ir::OpClass;

namespace {

// Gaps or repeated elements in a written geometry (small ones only: a
// finding's program is small, and a large one keeps the plain path).
std::string layout_mark(const ir::Geometry& g) {
  const int64_t n = g.numel();
  if (n <= 1 || n > (1 << 16)) return "";
  std::vector<int64_t> offs;
  offs.reserve(static_cast<size_t>(n));
  ir::for_each_offset(g, [&](int64_t o) { offs.push_back(o); });
  std::sort(offs.begin(), offs.end());
  if (std::adjacent_find(offs.begin(), offs.end()) != offs.end()) return ":overlap";
  return offs.back() - offs.front() + 1 > n ? ":holes" : "";
}

// The alias path of every value: root, then the last view op.
std::vector<std::string> value_paths(const ir::Program& p, const ir::Analysis& an) {
  std::vector<std::string> path(p.num_values(), "fresh");
  const int n_in = static_cast<int>(p.inputs.size());
  for (int v = 0; v < n_in; ++v) {
    bool shared = false;
    for (int w = 0; w < n_in; ++w) shared |= w != v && p.inputs[w].storage == p.inputs[v].storage;
    path[v] = shared ? "input~shared" : "input";
  }
  // root/a + b -> root/b: the view a write goes through last is what a
  // bug of aliasing is about; longer chains would make the words many
  // (thousands per campaign) and their novelty mostly noise.
  auto append = [](const std::string& base, const std::string& op) {
    return base.substr(0, base.find('/')) + "/" + op;
  };
  for (const auto& st : p.stmts) {
    const auto cls = ir::op_info(st.op).cls;
    if (st.args.empty() || st.args[0].kind != ir::Arg::Tensor) continue;
    const int src = static_cast<int>(st.args[0].i);
    for (int o : st.outs) {
      if (o < 0 || o >= static_cast<int>(an.values.size()) || an.values[o].storage != an.values[src].storage) continue;
      const bool names_view = (cls == OpClass::View || cls == OpClass::MayAlias) && !ir::is_metadata_inplace(st.op);
      if (ir::is_metadata_inplace(st.op)) {
        // A metadata op's result is its argument's tensor object. On an
        // input (or a fresh tensor) the object stays the root, its geometry
        // changed; on a view it is no more than the view the op mirrors
        // (t = narrow(x); as_strided_(t, ...) is as_strided(x, ...): t's
        // old geometry is gone), and the argument is that view from now on.
        if (path[src].find('/') != std::string::npos)
          path[src] = append(path[src], ir::op_name(ir::geometry_op(st.op)));
        path[o] = path[src];
        continue;
      }
      path[o] = names_view ? append(path[src], ir::op_name(st.op)) : path[src];
    }
  }
  return path;
}

bool is_root(const std::string& path) { return path.find('/') == std::string::npos; }

// Whether input storage `storage` (the analysis' id) has elements no input
// shows: a write must leave them as they were, and they are observable
// (issue #34: `as_strided(s0, [2], [5], 0)` written, then made contiguous).
bool has_hidden_elements(const ir::Program& p, const ir::Analysis& an, int storage) {
  const int64_t numel = an.storage_numel[static_cast<size_t>(storage)];
  if (numel > (1 << 16)) return false;  // large ones keep the plain relations
  std::vector<char> shown(static_cast<size_t>(numel), 0);
  bool an_input = false;
  for (size_t v = 0; v < p.inputs.size(); ++v) {
    if (an.values[v].storage != storage) continue;
    an_input = true;
    ir::for_each_offset(an.values[v].g, [&](int64_t o) {
      if (o >= 0 && o < numel) shown[static_cast<size_t>(o)] = 1;
    });
  }
  return an_input && std::find(shown.begin(), shown.end(), 0) != shown.end();
}

bool writes_arg0(const ir::Stmt& st) {
  return (ir::is_inplace(st.op) || ir::is_out_variant(st.op) || ir::is_metadata_inplace(st.op)) && !st.args.empty() &&
         st.args[0].kind == ir::Arg::Tensor;
}

}  // namespace

std::vector<std::string> write_paths(const ir::Program& p, const ir::Analysis& an) {
  const auto path = value_paths(p, an);
  std::set<std::string> out;
  for (const auto& st : p.stmts) {
    if (!writes_arg0(st)) continue;
    // A metadata op (transpose_, as_strided_, ...) writes the tensor's
    // geometry, not its elements: of a root (an input's geometry is
    // observable), or of a view (then it makes a view: value_paths).
    if (ir::is_metadata_inplace(st.op)) {
      if (is_root(path[st.args[0].i])) out.insert("meta:" + path[st.args[0].i]);
    } else
      out.insert("write:" + path[st.args[0].i] + layout_mark(ir::written_geometry(st, an)));
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> alias_relations(const ir::Program& p, const ir::Analysis& an) {
  const auto path = value_paths(p, an);
  std::set<int> written;       // storages some statement writes
  std::set<int> written_root;  // storages an unshared input itself is written in (not through a view)
  std::set<std::string> out;
  for (const auto& st : p.stmts) {
    if (!writes_arg0(st)) continue;
    const int v = static_cast<int>(st.args[0].i);
    if (ir::is_metadata_inplace(st.op)) {
      if (is_root(path[v])) out.insert("meta:" + path[v]);
      continue;
    }
    written.insert(an.values[v].storage);
    // (An input that shares its storage has alias:input~shared already:
    // a synthetic base of aliased inputs at an offset loses it whether or
    // not elements hide below the offset.)
    if (path[v] == "input") written_root.insert(an.values[v].storage);
    if (path[v].find('~') != std::string::npos) out.insert("alias:" + path[v].substr(0, path[v].find('/')));
  }
  // Every view of a written storage, whether the write goes through it or
  // it is read after (a lost write and a stale read of one view are one
  // relation).
  for (int v = 0; v < p.num_values() && v < static_cast<int>(an.values.size()); ++v)
    if (path[v].find('/') != std::string::npos && written.count(an.values[v].storage)) out.insert("alias:" + path[v]);
  for (int s : written_root)
    if (has_hidden_elements(p, an, s)) out.insert("alias:input/hidden");
  return {out.begin(), out.end()};
}

std::string without_marks(const std::string& word) {
  const size_t colon = word.find(':');
  const size_t mark = colon == std::string::npos ? std::string::npos : word.find(':', colon + 1);
  return mark == std::string::npos ? word : word.substr(0, mark);
}

std::vector<std::string> program_features(const ir::Program& p, const ir::Analysis* an) {
  std::set<std::string> f;
  for (const auto& st : p.stmts) f.insert(std::string("op:") + ir::op_name(st.op));
  if (!an) return {f.begin(), f.end()};
  for (size_t v = 0; v < p.inputs.size(); ++v)
    for (size_t w = v + 1; w < p.inputs.size(); ++w) {
      if (p.inputs[v].storage != p.inputs[w].storage) continue;
      f.insert("inputs:share");
      if (ir::shares_any_element(an->values[v].g, an->values[w].g)) f.insert("inputs:overlap");
    }
  for (const auto& st : p.stmts) {
    const auto cls = ir::op_info(st.op).cls;
    if ((cls == OpClass::View || cls == OpClass::MayAlias) && !st.outs.empty() && !st.args.empty() &&
        st.args[0].kind == ir::Arg::Tensor && an->values[st.outs[0]].storage == an->values[st.args[0].i].storage)
      f.insert(std::string("view:") + ir::op_name(st.op));
  }
  for (auto& w : write_paths(p, *an)) f.insert(std::move(w));
  return {f.begin(), f.end()};
}

bool shares_feature(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j]) return true;
    a[i] < b[j] ? ++i : ++j;
  }
  return false;
}

}  // namespace af::fuzz
