// Programs for scaling checks: a chain of n views of one input
// (transpose and alias alternating), an in-place write through the
// deepest view every `write_every` views and once at the end, and a read
// through the middle of the chain. Hostile for strategies that keep a
// view's whole chain (functionalization) or thread every alias through
// every update (Thunder's update_aliases).
#pragma once
#include <string>

namespace af::ir {

inline std::string view_chain_text(int n, int write_every = 0) {
  std::string t = "aliasfuzz 1\nstorage s0 f32[16] = random(1)\ninput x = as_strided(s0, [4, 4], [4, 1], 0)\n";
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    const std::string v = "v" + std::to_string(i);
    t += v + (i % 2 == 0 ? " = transpose(" + prev + ", 0, 1)\n" : " = alias(" + prev + ")\n");
    prev = v;
    if (write_every > 0 && i % write_every == write_every - 1) t += "add_(" + v + ", 1.0)\n";
  }
  t += "add_(" + prev + ", 1.0)\n";
  t += "r = add(v" + std::to_string(n / 2) + ", 1.0)\n";
  t += "return " + prev + ", r\n";
  return t;
}

}  // namespace af::ir
