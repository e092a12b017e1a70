// Reorder policy `thunder-dataflow`: the order in which Thunder 0.2.6 runs
// a trace compiled with fusion_type="dataflow" (what thunderfx uses by
// default).
//
// Thunder (thunder/executors/data_dependent_partition.py, dataflow_fusion)
// builds a graph of the executable trace's bound symbols (an edge from the
// producer of each argument), merges fusible producer/consumer pairs, and
// then `horizontal_merge` walks it breadth-first: a FIFO queue that starts
// with the roots in trace order; each node taken from the front releases
// its children (in consumer order) to the back once their last parent has
// run (a node's children: for each of its outputs, that output's consumers
// in trace order). The groups come out in that order and the trace is
// rebuilt in it. Thunder orders the members of an update_aliases by Python
// set iteration (string hashes, randomized per process), so the real order,
// and a few real outcomes, vary between runs; ours is by value.
// On the CPU no fusion executor claims our ops, so every group is one
// symbol and only the breadth-first order remains.
//
// The trace Thunder orders is the *executable* one: each op is a chain of
// torch-level statements (sigmoid -> neg, exp, add, reciprocal; an in-place
// op -> its out-of-place op + copy_), and the chain length decides which of
// two independent ops reaches the queue first. Each statement here is
// expanded to a chain of `thunder_weight(op)` nodes, measured with
// tools/thunder/probe_decomposition.py on torch 2.9.1 + thunder 0.2.6.
// A statement takes the place of its first node (where it reads its
// arguments), except in-place ops kept whole (clamp_, setitem_, zero_...:
// Thunder runs them as compute + copy_): they take the place of their last
// node, where Thunder writes (measured: more fidelity cases agree).
// The inputs are roots (Thunder's unpack_trivial symbols) ahead of every
// statement, so statements that read only inputs are released in order.
#include <algorithm>
#include <deque>

#include "schedulers/passes.h"

namespace af::schedulers {

namespace {

// Executable statements Thunder makes of one op (the probe's figures).
int thunder_weight(ir::OpKind op) {
  using ir::OpKind;
  // Three measured exceptions to the rule below, which decides every other
  // op (a new one included) by its class: no switch to extend.
  if (op == OpKind::Sigmoid) return 4;   // neg, exp, add, reciprocal
  if (op == OpKind::SigmoidI) return 5;  // + copy_ (Thunder itself has no sigmoid_)
  if (op == OpKind::CopyI) return 1;     // copy_ alone
  // (addcmul_, addcdiv_, lerp_, clamp_tensor_ measured 2 as well; Thunder
  // refuses the out= ops, and update_aliases predicts that.)
  return ir::is_inplace(op) ? 2 : 1;  // the out-of-place op (+ copy_ for in-place ops)
}

}  // namespace

std::vector<int> thunder_dataflow_order(const std::vector<std::vector<int>>& preds, const ir::Program& program) {
  const int n = static_cast<int>(preds.size());
  // Node ids: statement s owns nodes first[s] .. first[s] + weight - 1.
  std::vector<int> first(n + 1, 0);
  for (int s = 0; s < n; ++s) first[s + 1] = first[s] + thunder_weight(program.stmts[s].op);
  const int nodes = first[n];
  std::vector<int> owner(nodes), remaining(nodes, 0);
  std::vector<std::vector<int>> children(nodes);
  for (int s = 0; s < n; ++s) {
    for (int k = first[s]; k < first[s + 1]; ++k) owner[k] = s;
    for (int k = first[s] + 1; k < first[s + 1]; ++k) {
      children[k - 1].push_back(k);
      remaining[k] = 1;
    }
  }
  // Statement edges from the last node of the producer to the first of the
  // consumer. Children in Thunder's order: output by output of the
  // producer, each output's consumers in trace order (then edges that are
  // not dataflow, in trace order).
  std::vector<int> def_out(program.num_values(), -1), def_stmt(program.num_values(), -1);
  for (int s = 0; s < n; ++s)
    for (size_t k = 0; k < program.stmts[s].outs.size(); ++k) {
      def_stmt[program.stmts[s].outs[k]] = s;
      def_out[program.stmts[s].outs[k]] = static_cast<int>(k);
    }
  std::vector<std::vector<std::pair<int, int>>> keyed(nodes);  // (output rank, consumer node)
  for (int s = 0; s < n; ++s)
    for (int u : preds[s]) {
      int rank = 1 << 30;
      for_each_tensor_arg(program.stmts[s], [&](int v) {
        if (def_stmt[v] == u) rank = std::min(rank, def_out[v]);
      });
      keyed[first[u + 1] - 1].push_back({rank, first[s]});
      remaining[first[s]]++;
    }
  for (int k = 0; k < nodes; ++k) {
    std::sort(keyed[k].begin(), keyed[k].end());
    for (const auto& rc : keyed[k]) children[k].push_back(rc.second);
  }
  std::deque<int> queue;
  // Roots: statements that read inputs only (released by the unpack roots
  // in trace order), then those with no tensor argument, all in order.
  for (int s = 0; s < n; ++s)
    if (remaining[first[s]] == 0) queue.push_back(first[s]);
  std::vector<int> order;
  order.reserve(n);
  while (!queue.empty()) {
    const int k = queue.front();
    queue.pop_front();
    const bool inplace = ir::is_inplace(program.stmts[owner[k]].op);
    if (k == (inplace ? first[owner[k] + 1] - 1 : first[owner[k]])) order.push_back(owner[k]);
    for (int c : children[k])
      if (--remaining[c] == 0) queue.push_back(c);
  }
  return order;
}

}  // namespace af::schedulers
