// Generator throughput: programs/s of generate() alone, of generate() plus
// the validity check (ir::analyze), and of generate() plus the eager oracle.
//   bazel run //bench:gen_bench -- [PROGRAMS] [SIZE]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "fuzz/generator.h"
#include "ir/analysis.h"
#include "oracles/eager.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  using af::fuzz::generate;
  const long n = argc > 1 ? std::atol(argv[1]) : 20000;
  af::fuzz::GenOptions o;
  if (argc > 2) o.size = std::atoi(argv[2]);
  const uint64_t seed = 42;
  long sink = 0;

  auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < n; ++k) sink += static_cast<long>(generate(seed, k, o).stmts.size());
  const double gen_s = seconds_since(t0);

  af::fuzz::GenOptions nv = o;
  nv.verify = false;
  t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < n; ++k) sink += static_cast<long>(generate(seed, k, nv).stmts.size());
  const double gen_nv_s = seconds_since(t0);

  long invalid = 0;
  t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < n; ++k) {
    af::ir::Program p = generate(seed, k, o);
    auto an = af::ir::analyze(p);
    if (!an) { ++invalid; continue; }
    auto obs = af::oracles::run_eager(p, *an);
    sink += static_cast<long>(obs.returns.size());
  }
  const double oracle_s = seconds_since(t0);

  std::printf("programs: %ld (size %d, seed %llu)\n", n, o.size, static_cast<unsigned long long>(seed));
  std::printf("generate (verified, default):    %9.0f programs/s  %6.1f us/program\n", n / gen_s, 1e6 * gen_s / n);
  std::printf("generate (verify=false):         %9.0f programs/s  %6.1f us/program\n", n / gen_nv_s, 1e6 * gen_nv_s / n);
  std::printf("generate + analyze + oracle:     %9.0f programs/s  %6.1f us/program\n", n / oracle_s, 1e6 * oracle_s / n);
  std::printf("invalid: %ld  (checksum %ld)\n", invalid, sink);
  return invalid == 0 ? 0 : 1;
}
