// Graphviz text of a schedule and the commented .af text of its program.
#include <sstream>

#include "ir/text.h"
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

std::string to_dot(const Schedule& s) {
  std::ostringstream o;
  o << "digraph schedule {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  o << "  label=\"" << escape(s.strategy + (s.inject.empty() ? "" : " +" + s.inject) + "  reorder=" + s.reorder +
                              "  fusion=" + s.fusion + "  regions=" + std::to_string(s.counters.regions))
    << "\";\n";
  int pos = 0;
  for (size_t r = 0; r < s.regions.size(); ++r) {
    o << "  subgraph cluster_r" << r << " {\n    label=\"region " << r << "\"; style=rounded; color=gray50;\n";
    for (int j : s.regions[r]) {
      const bool added = j < static_cast<int>(s.added_node.size()) && s.added_node[j];
      const bool ua = s.program.stmts[j].op == ir::OpKind::UpdateAliases;
      o << "    n" << j << " [label=\"" << pos++ << ": " << escape(stmt_text(s.program, j)) << "\"";
      if (ua) o << ", style=filled, fillcolor=\"#ffd6d6\"";
      else if (added) o << ", style=filled, fillcolor=\"#fff3c4\"";
      o << "];\n";
    }
    o << "  }\n";
  }
  for (const auto& e : s.edges) {
    o << "  n" << e.from << " -> n" << e.to;
    if (e.added) o << " [style=dashed, color=red]";
    o << ";\n";
  }
  o << "}\n";
  return o.str();
}

std::string schedule_text(const Schedule& s) {
  std::string t = ir::print(s.program);
  t += "# strategy " + s.strategy + (s.inject.empty() ? "" : " inject " + s.inject) + " reorder " + s.reorder +
       " fusion " + s.fusion + "\n";
  t += "# regions " + std::to_string(s.counters.regions) + ", fusion breaks " + std::to_string(s.counters.fusion_breaks) +
       ", nodes added " + std::to_string(s.counters.nodes_added) + ", extra storages " +
       std::to_string(s.counters.extra_storages) + ", bytes moved " + std::to_string(s.counters.bytes_moved) + "\n";
  for (size_t r = 0; r < s.regions.size(); ++r) {
    t += "# region " + std::to_string(r) + ":";
    for (int j : s.regions[r]) t += " " + std::to_string(j);
    t += "\n";
  }
  return t;
}

}  // namespace af::schedulers
