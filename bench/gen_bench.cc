// Generator throughput: programs/s of generate() alone, of generate() plus
// the validity check (ir::analyze), and of generate() plus the eager oracle.
//   bazel run //bench:gen_bench -- [PROGRAMS] [SIZE]
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "generate/generator.h"
#include "ir/analysis.h"
#include "oracles/eager.h"

namespace {

// CPU time of this process: robust when other jobs share the machine.
double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  using af::fuzz::generate;
  const long n = argc > 1 ? std::atol(argv[1]) : 20000;
  af::fuzz::GenOptions o;
  if (argc > 2) o.size = std::atoi(argv[2]);
  const uint64_t seed = 42;
  long sink = 0;

  double t0 = cpu_now();
  for (long k = 0; k < n; ++k) sink += static_cast<long>(generate(seed, k, o).stmts.size());
  const double gen_s = (cpu_now() - t0);
  af::fuzz::GenStats st;
  for (long k = 0; k < n; ++k) generate(seed, k, o, &st);

  af::fuzz::GenOptions nv = o;
  nv.verify = false;
  t0 = cpu_now();
  for (long k = 0; k < n; ++k) sink += static_cast<long>(generate(seed, k, nv).stmts.size());
  const double gen_nv_s = (cpu_now() - t0);

  long invalid = 0;
  t0 = cpu_now();
  for (long k = 0; k < n; ++k) {
    af::ir::Program p = generate(seed, k, o);
    auto an = af::ir::analyze(p);
    if (!an) {
      ++invalid;
      continue;
    }
    auto obs = af::oracles::run_eager(p, *an);
    sink += static_cast<long>(obs.returns.size());
  }
  const double oracle_s = (cpu_now() - t0);

  std::printf("programs: %ld (size %d, seed %llu); rates per CPU second of one core\n", n, o.size,
              static_cast<unsigned long long>(seed));
  std::printf("generate (verified, default):    %9.0f programs/s  %6.1f us/program\n", n / gen_s, 1e6 * gen_s / n);
  std::printf("generate (verify=false):         %9.0f programs/s  %6.1f us/program\n", n / gen_nv_s,
              1e6 * gen_nv_s / n);
  std::printf("generate + analyze + oracle:     %9.0f programs/s  %6.1f us/program\n", n / oracle_s,
              1e6 * oracle_s / n);
  std::printf(
      "per program: %.1f statements; rejected candidates: %.2f invalid, %.2f out of bounds, %.2f noisy; "
      "regenerated programs: %lld\n",
      double(st.statements) / n, double(st.rejected_invalid) / n, double(st.rejected_bound) / n,
      double(st.rejected_noise) / n, static_cast<long long>(st.regenerated));
  std::printf("invalid: %ld  (checksum %ld)\n", invalid, sink);
  return invalid == 0 ? 0 : 1;
}
