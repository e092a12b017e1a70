// aliasfuzz capabilities: what the external strategies (real Thunder,
// PyTorch functionalize) cannot run, from the capability probe
// (compilers/table.h, probe_capabilities), and how many generated
// programs reach a value comparison under them.
//
//   aliasfuzz capabilities [--strategy S]... [--refresh] [--json]
//   aliasfuzz capabilities --strategy S... --measure N [--seed S] [--size K] [--all-ops] [--errors]
//
// Without --measure it prints, per strategy, the ops it cannot run (the
// op weights a campaign over external strategies uses). With --measure it
// generates programs 0..N-1 of the seed with those weights (--all-ops:
// every op, as before the probe existed), runs each through every
// strategy and prints the fraction that reached a value comparison, the
// unsupported ones and the internal errors (--errors: each distinct one).
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "ir/json_text.h"
#include "generate/generator.h"
#include "ir/analysis.h"
#include "oracles/eager.h"
#include "compilers/capabilities.h"
#include "compilers/runner.h"
#include "compilers/table.h"
#include "tools/commands.h"

namespace af::tools {

namespace {

struct CapArgs {
  std::vector<std::string> strategies;
  bool refresh = false, json = false, all_ops = false, errors = false;
  int64_t measure = 0;
  uint64_t seed = 31;
  int size = -1;
};

int run(CapArgs& a) {
  if (a.strategies.empty()) a.strategies = {"thunder", "thunder-dataflow", "thunder-no-alias-updates"};
  for (const auto& s : a.strategies)
    if (!compilers::is_external_strategy(s)) {
      const std::string why = compilers::py_spec_error(s);
      std::cerr << "aliasfuzz capabilities: " << (why.empty() ? "'" + s + "' is not an external strategy" : why)
                << "\n";
      return 2;
    }
  nlohmann::json out = nlohmann::json::object();
  std::map<std::string, double> weights;  // the union over the strategies
  for (const auto& s : a.strategies) {
    if (!a.json) std::cerr << "aliasfuzz capabilities: " << s << " ...\n";
    const compilers::Capabilities c = compilers::probe_capabilities(s, a.refresh);
    if (!c.available) {
      std::cerr << "aliasfuzz capabilities: " << s << " not available: " << c.error << "\n";
      out[s] = {{"available", false}, {"error", c.error}};
      continue;
    }
    if (!c.inconclusive_why.empty()) {
      std::cerr << "aliasfuzz capabilities: the probe of " << s << " is inconclusive: " << c.inconclusive_why
                << " (nothing cached)\n";
      out[s] = {{"available", true},
                {"versions", c.versions},
                {"inconclusive_why", c.inconclusive_why},
                {"inconclusive", c.inconclusive},
                {"probes", c.probes}};
      continue;
    }
    for (const auto& [op, why] : c.unsupported) weights[op] = 0.0;
    out[s] = {{"available", true},
              {"versions", c.versions},
              {"unsupported", c.unsupported},
              {"inconclusive", c.inconclusive},
              {"from_cache", c.from_cache},
              {"probes", c.probes},
              {"cache", c.cache_path}};
    if (!a.json) {
      const std::string sum = compilers::capabilities_summary(c);
      std::cout << s << " (" << c.versions << "): " << (sum.empty() ? "every op supported" : sum) << "\n";
      for (const auto& [op, why] : c.unsupported) std::cout << "  " << op << ": " << why << "\n";
      for (const auto& [v, why] : c.inconclusive)
        std::cout << "  (no op judged " << v << ": the program without the op raised " << why << ")\n";
      std::cout << "  "
                << (c.from_cache ? "from the cache " : "probed (" + std::to_string(c.probes) + " programs), cached in ")
                << (c.cache_path.empty() ? "(nowhere)" : c.cache_path) << "\n";
    }
  }
  if (a.measure > 0) {
    fuzz::GenOptions g;
    if (a.size >= 0) g.size = a.size;
    if (!a.all_ops) g.op_weights = weights;
    struct Tally {
      int64_t runs = 0, compared = 0, agree = 0, unsupported = 0, internal = 0, eager = 0, failed = 0;
      std::map<std::string, int64_t> reasons;
      std::map<std::string, int64_t> first;  // reason -> its first program
    };
    std::map<std::string, Tally> t;
    for (int64_t k = 0; k < a.measure; ++k) {
      const ir::Program p = fuzz::generate(a.seed, static_cast<uint64_t>(k), g);
      for (const auto& s : a.strategies) {
        const compilers::ExternalResult r = compilers::run_external(p, s);
        using S = compilers::ExternalResult::Status;
        if (r.status == S::Unavailable) continue;
        Tally& x = t[s];
        ++x.runs;
        std::string reason;
        switch (r.status) {
          case S::Ok:
            ++x.compared;
            x.agree += !oracles::compare(p, r.eager, r.actual).has_value();
            break;
          case S::StrategyError:
            if (compilers::is_unsupported_error(r.error_type, r.message)) {
              ++x.unsupported;
              reason = "unsupported " + r.error_type + ": " + r.message;
            } else {
              ++x.internal;
              reason = "internal " + r.error_type + ": " + r.message;
            }
            break;
          case S::EagerError:
            ++x.eager;
            reason = "eager " + r.error_type + ": " + r.message;
            break;
          default:
            ++x.failed;
            reason = "runner " + r.error_type + ": " + r.message;
            break;
        }
        if (!reason.empty()) {
          reason = reason.substr(0, 160);
          if (!x.reasons[reason]++) x.first[reason] = k;
        }
      }
    }
    nlohmann::json m = nlohmann::json::object();
    for (const auto& [s, x] : t) {
      const double frac = x.runs ? static_cast<double>(x.compared) / static_cast<double>(x.runs) : 0.0;
      m[s] = {{"programs", x.runs},      {"compared", x.compared},       {"fraction_compared", frac},
              {"agree", x.agree},        {"unsupported", x.unsupported}, {"internal_errors", x.internal},
              {"eager_raised", x.eager}, {"runner_failed", x.failed},    {"reasons", x.reasons}};
      if (!a.json) {
        std::printf(
            "%s: %lld/%lld programs reached a value comparison (%.1f%%; %lld agree), %lld unsupported, %lld internal "
            "errors, %lld eager-raised, %lld runner failures\n",
            s.c_str(), static_cast<long long>(x.compared), static_cast<long long>(x.runs), 100 * frac,
            static_cast<long long>(x.agree), static_cast<long long>(x.unsupported), static_cast<long long>(x.internal),
            static_cast<long long>(x.eager), static_cast<long long>(x.failed));
        if (a.errors)
          for (const auto& [why, n] : x.reasons)
            std::printf("  %5lld  %s (first: program %lld)\n", static_cast<long long>(n), why.c_str(),
                        static_cast<long long>(x.first.at(why)));
      }
    }
    out["measure"] = {{"seed", a.seed},
                      {"programs", a.measure},
                      {"all_ops", a.all_ops},
                      {"op_weights", g.op_weights},
                      {"strategies", m}};
  }
  if (a.json) std::cout << ir::json_text(out, 2) << "\n";
  return 0;
}

}  // namespace

void register_capabilities(Command& app, int* status) {
  auto a = std::make_shared<CapArgs>();
  auto* c =
      app.add_subcommand("capabilities", "the ops external strategies cannot run (capability probe); --measure N");
  c->add_option("--strategy", a->strategies, "external strategy (repeatable; default: the three thunder ones)");
  c->add_flag("--refresh", a->refresh, "probe again and rewrite the cache");
  c->add_flag("--json", a->json, "print one JSON object");
  c->add_option("--measure", a->measure, "run programs [0, N) of --seed through every strategy");
  c->add_option("--seed", a->seed, "seed of the measured programs (default 31)")->check(unsigned_integer);
  c->add_option("--size", a->size, "statements per measured program (default: the generator's)");
  c->add_flag("--all-ops", a->all_ops, "measure with every op (no capability weights)");
  c->add_flag("--errors", a->errors, "list every distinct error of the measured runs");
  c->callback([a, status] { *status = run(*a); });
}

}  // namespace af::tools
