// libFuzzer target: the differential check on structure-aware inputs.
// Every input decodes to a valid program (generate/bytes.h); every strategy
// runs under reorder and fusion policies drawn from the input.
//   - a must-agree strategy that disagrees aborts: a bug in aliasfuzz;
//   - strategies under study and mutants (AF_FUZZ_STRATEGY=a,b and
//     AF_FUZZ_INJECT=m,n; AF_FUZZ_STRATEGY=- runs only the mutants) are reported on stderr, or abort when
//     AF_FUZZ_ABORT=1, so that libFuzzer's crash minimization works on them.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "generate/bytes.h"
#include "check/bucket.h"
#include "check/campaign_specs.h"
#include "check/check.h"
#include "ir/analysis.h"
#include "ir/text.h"
#include "oracles/eager.h"

namespace {

std::vector<std::string> env_list(const char* name) {
  std::vector<std::string> r;
  const char* v = std::getenv(name);
  if (!v) return r;
  std::stringstream s(v);
  std::string item;
  while (std::getline(s, item, ','))
    if (!item.empty()) r.push_back(item);
  return r;
}

struct Config {
  std::vector<af::run::RunStrategy> strategies;
  std::vector<af::run::Mutant> injects;
  bool abort_all = false;
  Config() {
    auto names = env_list("AF_FUZZ_STRATEGY");
    if (names.empty()) names = af::run::must_agree_strategy_names();
    if (names.size() == 1 && names[0] == "-") names.clear();  // only the mutants
    std::string why;
    auto strategies = af::run::parse_strategies(names, &why);
    auto injects = af::run::parse_mutants(env_list("AF_FUZZ_INJECT"), &why);
    if (!strategies || !injects) {
      std::fprintf(stderr, "aliasfuzz: AF_FUZZ_STRATEGY/AF_FUZZ_INJECT: %s\n", why.c_str());
      std::exit(2);
    }
    this->strategies = std::move(*strategies);
    this->injects = std::move(*injects);
    const char* a = std::getenv("AF_FUZZ_ABORT");
    abort_all = a && std::string(a) == "1";
  }
};

long g_reported = 0;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Config config;
  auto p = af::fuzz::decode_input(data, size);
  if (!p) return 0;  // an invalid text input: nothing to compare
  auto an = af::ir::analyze(*p);
  if (!an) return 0;
  const af::oracles::Observables expected = af::oracles::run_eager(*p, *an);
  const auto specs = af::fuzz::campaign_specs(af::fuzz::input_seed(data, size), 0, config.strategies, config.injects);
  for (const auto& r : af::fuzz::check_program(*p, expected, specs)) {
    if (r.agree) continue;
    const bool must = r.spec.must_agree();
    if (must || config.abort_all) {
      std::fprintf(stderr, "aliasfuzz: %s diverges (bucket %s)\n%s",
                   must ? "a must-agree strategy" : "the strategy under study", af::fuzz::bucket_of(r).c_str(),
                   af::ir::print(*p).c_str());
      std::abort();
    }
    if (++g_reported <= 20 || g_reported % 1000 == 0)
      std::fprintf(stderr, "aliasfuzz: finding #%ld: %s\n", g_reported, af::fuzz::bucket_of(r).c_str());
  }
  return 0;
}
