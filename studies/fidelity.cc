// aliasfuzz fidelity: the update_aliases model against the real Thunder
// (see fidelity.h).
#include "ir/json_text.h"
#include "studies/fidelity.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "check/check.h"
#include "check/files.h"
#include "minimize/minimize.h"
#include "ir/text.h"
#include "compilers/capabilities.h"
#include "compilers/runner.h"
#include "run/ua_fixes.h"
#include "triage/minimize_finding.h"

namespace af::fuzz {

namespace {

struct Outcome {
  bool diverged = false, raised = false, unsupported = false;
  std::string what;  // the first mismatch or the error, for the saved cases
};

Outcome outcome_of(const std::optional<RunRecord>& r) {
  Outcome o;
  if (!r) {
    o.raised = true;
    o.what = "no run";
    return o;
  }
  if (!r->unsupported.empty()) {
    o.raised = o.unsupported = true;
    o.what = r->unsupported;
    return o;
  }
  std::string err = r->error;
  if (err.empty() && r->mismatch && (r->mismatch->observable == "error" || r->mismatch->observable == "schedule"))
    err = r->mismatch->what;
  if (!err.empty()) {
    o.raised = true;
    o.what = err;
    const size_t colon = err.find(": ");
    const std::string type = colon == std::string::npos ? "" : err.substr(0, colon);
    o.unsupported = compilers::is_unsupported_error(type, colon == std::string::npos ? err : err.substr(colon + 2));
    return o;
  }
  o.diverged = !r->agree;
  if (r->mismatch)
    o.what = r->mismatch->observable + "[" + std::to_string(r->mismatch->index) + "] expected " +
             std::to_string(r->mismatch->expected) + " actual " + std::to_string(r->mismatch->actual);
  return o;
}

run::RunSpec spec(const std::string& strategy, const std::string& reorder = "program") {
  return run::spec_of({strategy, "", reorder});
}

void save_case(const FidelityOptions& o, const std::string& pair, const std::string& kind, uint64_t k,
               const ir::Program& p, const Outcome& model, const Outcome& real) {
  if (o.out.empty()) return;
  const std::string dir = o.out + "/disagreements/" + pair;
  std::filesystem::create_directories(dir);
  std::string text = ir::print(p);
  const size_t nl = text.find('\n');
  const std::string header = "# aliasfuzz fidelity --seed " + std::to_string(o.seed) + " (program " +
                             std::to_string(k) + "): " + kind +
                             "\n# model: " + (model.what.empty() ? "agrees" : model.what) +
                             "\n# real:  " + (real.what.empty() ? "agrees" : real.what) + "\n";
  write_atomic(dir + "/" + kind + "-" + std::to_string(k) + ".af",
               text.substr(0, nl + 1) + header + text.substr(nl + 1));
}

}  // namespace

FidelityResult measure_fidelity(const FidelityOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  FidelityResult res;
  GenOptions g = o.gen;
  const std::vector<std::string> reals{"thunder", "thunder-dataflow"};
  if (!o.out.empty()) std::filesystem::remove_all(o.out + "/disagreements");  // no cases of an earlier run
  // Ops the real systems refuse (their capability probes): nothing to predict there.
  for (const auto& r : reals) {
    auto caps = compilers::probe_capabilities(r);
    for (const auto& [op, w] : compilers::unsupported_op_weights(r)) g.op_weights[op] = w;
    const std::string s = compilers::capabilities_summary(caps);
    if (!s.empty() && res.excluded.find(s) == std::string::npos) res.excluded += (res.excluded.empty() ? "" : "; ") + s;
  }
  // Pairs: the model under the policy matching each real mode, and under
  // any of K random reorders (an upper bound: every order the rule allows).
  struct Model {
    std::string name;
    std::vector<run::RunSpec> specs;
  };
  std::vector<Model> models{{"update_aliases reorder=program (Thunder's consecutive fusion)", {spec("update_aliases")}},
                            {"update_aliases reorder=thunder-dataflow", {spec("update_aliases", "thunder-dataflow")}}};
  Model any{"update_aliases, program + thunder-dataflow + " + std::to_string(o.random_reorders) + " random orders", {}};
  any.specs = {spec("update_aliases"), spec("update_aliases", "thunder-dataflow")};
  for (int k = 0; k < o.random_reorders; ++k)
    any.specs.push_back(spec("update_aliases", "random:" + std::to_string(k)));
  models.push_back(any);
  // Which model is paired with which real strategy.
  const std::vector<std::pair<int, int>> pairing{{0, 0}, {1, 1}, {2, 0}, {2, 1}};
  for (const auto& [m, r] : pairing) res.pairs.push_back(FidelityPair{models[m].name, reals[r]});
  for (uint64_t k = 0; k < o.programs; ++k) {
    const ir::Program p = generate(o.seed, k, g);
    Outcome real[2];
    for (int r = 0; r < 2; ++r) real[r] = outcome_of(run_spec(p, spec(reals[r])));
    if (res.versions.empty()) res.versions = compilers::external_versions("thunder");
    // Each model spec runs once per program (the "any order" model reuses
    // the runs of the first two).
    std::map<std::string, Outcome> by_reorder;  // by reorder_name
    std::vector<Outcome> model;
    for (const auto& m : models) {
      Outcome best;
      for (const auto& s : m.specs) {
        auto it = by_reorder.find(s.reorder_name());
        if (it == by_reorder.end()) {
          Outcome x = outcome_of(run_spec(p, s));
          if (x.raised && x.what.find(run::kThunderRaises) == std::string::npos) x.raised = false;  // not a prediction
          it = by_reorder.emplace(s.reorder_name(), x).first;
        }
        const Outcome& x = it->second;
        if ((x.diverged && !best.diverged) || (x.raised && !best.raised && !best.diverged)) best = x;
      }
      model.push_back(best);
    }
    for (size_t i = 0; i < pairing.size(); ++i) {
      FidelityPair& fp = res.pairs[i];
      const Outcome& mo = model[pairing[i].first];
      const Outcome& re = real[pairing[i].second];
      const std::string tag = std::to_string(pairing[i].first) + "-" + fp.real;
      if (mo.raised) {
        fp.model_raises++;
        fp.model_raises_real_too += re.raised;
        continue;
      }
      if (re.raised) {
        (re.unsupported ? fp.real_unsupported : fp.real_internal)++;
        continue;
      }
      if (mo.diverged && re.diverged)
        fp.both++;
      else if (re.diverged) {
        fp.real_only++;
        save_case(o, tag, "missed", k, p, mo, re);
      } else if (mo.diverged) {
        fp.model_only++;
        save_case(o, tag, "extra", k, p, mo, re);
      } else
        fp.neither++;
    }
    res.programs = k + 1;
    if ((k + 1) % 25 == 0 || k + 1 == o.programs) {
      std::fprintf(stderr, "aliasfuzz fidelity: %llu/%llu programs", static_cast<unsigned long long>(k + 1),
                   static_cast<unsigned long long>(o.programs));
      for (const auto& fp : res.pairs) std::fprintf(stderr, " | %s recall %.3f", fp.real.c_str(), fp.recall());
      std::fprintf(stderr, "\n");
    }
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    write_atomic(o.out + "/fidelity.json", fidelity_json(res));
    write_atomic(o.out + "/fidelity.md", fidelity_markdown(res));
  }
  return res;
}

std::string fidelity_json(const FidelityResult& r) {
  nlohmann::json j;
  j["programs"] = r.programs;
  j["versions"] = r.versions;
  j["excluded_ops"] = r.excluded;
  j["seconds"] = r.seconds;
  for (const auto& p : r.pairs)
    j["pairs"].push_back({{"model", p.model},
                          {"real", p.real},
                          {"both", p.both},
                          {"real_only", p.real_only},
                          {"model_only", p.model_only},
                          {"neither", p.neither},
                          {"recall", p.recall()},
                          {"precision", p.precision()},
                          {"real_unsupported", p.real_unsupported},
                          {"real_internal_error", p.real_internal},
                          {"model_predicts_raise", p.model_raises},
                          {"model_predicts_raise_real_raises", p.model_raises_real_too}});
  return ir::json_text(j, 2) + "\n";
}

std::string fidelity_markdown(const FidelityResult& r) {
  std::string s = "# update_aliases model vs the real Thunder\n\n";
  char buf[512];
  std::snprintf(buf, sizeof buf, "%llu programs, %.0f s; real systems: %s\n\n",
                static_cast<unsigned long long>(r.programs), r.seconds,
                r.versions.empty() ? "not installed" : r.versions.c_str());
  s += buf;
  if (!r.excluded.empty()) s += "Left out of generation: " + r.excluded + "\n\n";
  s += "| model | real | both diverge | real only (missed) | model only (extra) | neither | recall | precision | real "
       "unsupported | real internal error | model predicts raise (real raises too) |\n";
  s += "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& p : r.pairs) {
    std::snprintf(buf, sizeof buf,
                  "| %s | %s | %lld | %lld | %lld | %lld | %.3f | %.3f | %lld | %lld | %lld (%lld) |\n",
                  p.model.c_str(), p.real.c_str(), (long long)p.both, (long long)p.real_only, (long long)p.model_only,
                  (long long)p.neither, p.recall(), p.precision(), (long long)p.real_unsupported,
                  (long long)p.real_internal, (long long)p.model_raises, (long long)p.model_raises_real_too);
    s += buf;
  }
  return s;
}

}  // namespace af::fuzz
