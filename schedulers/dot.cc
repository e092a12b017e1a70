// Graphviz text of a schedule and the commented .af text of its program.
#include <algorithm>
#include <sstream>

#include "ir/geometry.h"

#include "ir/text.h"
#include "schedulers/passes.h"
#include "schedulers/schedulers.h"

namespace af::schedulers {

namespace {

std::string escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}

// One statement as a line of the format.
std::string stmt_text(const ir::Program& p, int j) {
  ir::Program one;
  one.storages = p.storages;
  one.inputs = p.inputs;
  one.value_names = p.value_names;
  one.stmts = {p.stmts[j]};
  std::string t = ir::print(one);
  // The last non-empty line is the statement.
  t.pop_back();
  return t.substr(t.rfind('\n') + 1);
}

}  // namespace

std::vector<std::pair<int, int>> unordered_hazards(const Schedule& s) {
  std::vector<std::pair<int, int>> out;
  if (!s.analysis) return out;
  const auto& an = *s.analysis;
  const int n = static_cast<int>(s.program.stmts.size());
  // reach[a][b]: a path a -> ... -> b in the DAG (programs are small).
  std::vector<std::vector<int>> succ(n);
  for (const auto& e : s.edges) succ[e.from].push_back(e.to);
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (int a = 0; a < n; ++a) {
    std::vector<int> stack{a};
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (int w : succ[v])
        if (!reach[a][w]) {
          reach[a][w] = true;
          stack.push_back(w);
        }
    }
  }
  auto reads_data = [&](int j) {
    const auto c = ir::op_info(s.program.stmts[j].op).cls;
    return c != ir::OpClass::View && c != ir::OpClass::Meta;
  };
  for (int w = 0; w < n; ++w) {
    const auto& st = s.program.stmts[w];
    if (!ir::is_inplace(st.op)) continue;
    const auto& dst = an.values[st.args[0].i];
    for (int r = 0; r < n; ++r) {
      if (r == w || !reads_data(r) || reach[r][w] || reach[w][r]) continue;
      bool hit = false;
      for_each_tensor_arg(s.program.stmts[r], [&](int v) {
        hit = hit || (an.values[v].storage == dst.storage && ir::shares_any_element(an.values[v].g, dst.g));
      });
      if (hit) out.emplace_back(std::min(r, w), std::max(r, w));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string to_dot(const Schedule& s) {
  std::ostringstream o;
  o << "digraph schedule {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  o << "  label=\""
    << escape(s.strategy + (s.mutant == run::Mutant::None ? "" : " +" + run::mutant_name(s.mutant)) +
              "  reorder=" + s.reorder + "  fusion=" + s.fusion + "  regions=" + std::to_string(s.counters.regions))
    << "\";\n";
  int pos = 0;
  for (size_t r = 0; r < s.regions.size(); ++r) {
    o << "  subgraph cluster_r" << r << " {\n    label=\"region " << r << "\"; style=rounded; color=gray50;\n";
    for (int j : s.regions[r]) {
      const bool added = j < static_cast<int>(s.added_node.size()) && s.added_node[j];
      const bool ua = s.program.stmts[j].op == ir::OpKind::UpdateAliases;
      o << "    n" << j << " [label=\"" << pos++ << ": " << escape(stmt_text(s.program, j)) << "\"";
      if (ua)
        o << ", style=filled, fillcolor=\"#ffd6d6\"";
      else if (added)
        o << ", style=filled, fillcolor=\"#fff3c4\"";
      o << "];\n";
    }
    o << "  }\n";
  }
  // Solid: dataflow over (renamed) values; dashed blue: ordering edges the
  // strategy added (write-after-read, write-backs); dotted red: hazards.
  for (const auto& e : s.edges) {
    o << "  n" << e.from << " -> n" << e.to;
    if (e.added) o << " [style=dashed, color=blue]";
    o << ";\n";
  }
  for (const auto& h : unordered_hazards(s))
    o << "  n" << h.first << " -> n" << h.second
      << " [dir=none, style=dotted, color=red, penwidth=2, label=\"hazard\", fontcolor=red];\n";
  o << "}\n";
  return o.str();
}

std::string schedule_text(const Schedule& s) {
  std::string t = ir::print(s.program);
  t += "# strategy " + s.strategy + (s.mutant == run::Mutant::None ? "" : " inject " + run::mutant_name(s.mutant)) +
       " reorder " + s.reorder + " fusion " + s.fusion + "\n";
  t += "# regions " + std::to_string(s.counters.regions) + ", fusion breaks " +
       std::to_string(s.counters.fusion_breaks) + ", nodes added " + std::to_string(s.counters.nodes_added) +
       ", extra storages " + std::to_string(s.counters.extra_storages) + ", bytes moved " +
       std::to_string(s.counters.bytes_moved) + "\n";
  for (size_t r = 0; r < s.regions.size(); ++r) {
    t += "# region " + std::to_string(r) + ":";
    for (int j : s.regions[r]) t += " " + std::to_string(j);
    t += "\n";
  }
  return t;
}

}  // namespace af::schedulers
