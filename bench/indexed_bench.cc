// Compile cost of format v1.2's indexed and masked writes in the Halide
// tier: for each of the six ops, one region holding the op (an IndexScatter
// node) against the same region with the op replaced by add_ of a source
// of the target's shape (a plain Scatter node), each compiled cold (a fresh
// CompileCache) `reps` times, alternating, after one warm-up compile (the
// first JIT compile in a process pays Halide's start-up; the persistent
// kernel store is off). Reports the median
// compile CPU ms of each and their ratio.
//   indexed_bench [reps] [target]   (defaults: 7, host; opencl counts the JIT
//   compile only: pocl builds kernels at their first launch)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ir/text.h"
#include "lowering/lowering.h"

namespace {

using namespace af;

// Storages and inputs shared by every variant: a [4, 3] target x, a source
// w of x's shape, index inputs and a mask.
const char* const kHeader =
    "aliasfuzz 1\n"
    "storage s0 f32[12] = iota(0, 1)\nstorage sw f32[12] = random(2)\n"
    "storage ix i64[6] = [0, 1, 2, 3, 0, 1]\nstorage mk bool[12] = random(5)\n"
    "input x = as_strided(s0, [4, 3], [3, 1], 0)\ninput w = as_strided(sw, [4, 3], [3, 1], 0)\n"
    "input i2 = as_strided(ix, [2], [2], 1)\ninput i3 = as_strided(ix, [3], [1], 0)\n"
    "input i23 = as_strided(ix, [2, 3], [3, 1], 0)\ninput v = as_strided(sw, [2, 3], [3, 1], 0)\n"
    "input src = as_strided(sw, [3, 3], [3, 1], 0)\ninput m = as_strided(mk, [4, 3], [3, 1], 0)\n";

struct Case {
  const char* op;
  const char* stmt;
};
const Case kCases[] = {
    {"index_put_", "index_put_(x, i2, v, 1)"},      {"index_add_", "index_add_(x, 0, i3, src)"},
    {"index_copy_", "index_copy_(x, 0, i3, src)"},  {"scatter_", "scatter_(x, 0, i23, v)"},
    {"scatter_add_", "scatter_add_(x, 0, i23, v)"}, {"masked_fill_", "masked_fill_(x, m, 2.5)"},
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Cold compile CPU ms of the whole program as one region.
double compile_ms(const ir::Program& p, lowering::Target t) {
  lowering::CompileCache cache;
  lowering::LowerOptions o;
  o.target = t;
  lowering::LowerResult r = lowering::run_schedule(lowering::program_order_schedule(p, 0), o, nullptr, cache);
  if (!r.ok) {
    std::fprintf(stderr, "lowering failed: %s\n", r.error.c_str());
    std::exit(1);
  }
  return cache.compile_ms();
}

ir::Program parse(const std::string& body) {
  auto p = ir::parse_and_validate(kHeader + body);
  if (!p.ok()) {
    std::fprintf(stderr, "%s\n%s", p.error().to_string().c_str(), body.c_str());
    std::exit(1);
  }
  return *p;
}

}  // namespace

int main(int argc, char** argv) {
  // JIT compiles, never the persistent kernel store: its hits would report 0 ms.
  setenv("AF_KERNEL_CACHE", "off", 1);
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  const auto target = lowering::target_from_name(argc > 2 ? argv[2] : "host");
  if (!target) {
    std::fprintf(stderr, "unknown target\n");
    return 2;
  }
  // The same statements around the write in both variants: a read before
  // and after it, so the region is more than the write alone.
  const std::string before = "y = mul(x, 2.0)\n", after = "z = add(x, y)\nreturn z, x\n";
  const ir::Program plain = parse(before + "add_(x, w)\n" + after);
  compile_ms(plain, *target);  // warm-up
  std::printf("%-13s %12s %12s %7s   (median of %d cold compiles, CPU ms, target %s)\n", "op", "with op", "with add_",
              "ratio", reps, argc > 2 ? argv[2] : "host");
  std::vector<double> all_with, all_plain;
  for (const auto& c : kCases) {
    const ir::Program with = parse(before + c.stmt + "\n" + after);
    std::vector<double> a, b;
    for (int k = 0; k < reps; ++k) {
      a.push_back(compile_ms(with, *target));
      b.push_back(compile_ms(plain, *target));
    }
    all_with.insert(all_with.end(), a.begin(), a.end());
    all_plain.insert(all_plain.end(), b.begin(), b.end());
    std::printf("%-13s %12.1f %12.1f %7.2f\n", c.op, median(a), median(b), median(a) / median(b));
  }
  std::printf("%-13s %12.1f %12.1f %7.2f\n", "all", median(all_with), median(all_plain),
              median(all_with) / median(all_plain));
  return 0;
}
