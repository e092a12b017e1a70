#include "oracles/json_out.h"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "ir/text.h"

namespace af::oracles {

nlohmann::json error_json(const ir::Error& e) {
  return {{"kind", ir::kind_name(e.kind)}, {"line", e.line}, {"message", e.message}};
}

nlohmann::json float_json(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The shortest decimal that reads back as this float ("0.1", not 0.10000000149011612).
  return std::strtod(ir::format_float32(v).c_str(), nullptr);
}

nlohmann::json double_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;  // nlohmann writes the shortest decimal that reads back as v
}

namespace {
nlohmann::json values_json(const std::vector<float>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (float x : v) a.push_back(float_json(x));
  return a;
}

// A return: its sizes and values; an i32, i64 or f64 one (format v1.5)
// says so and holds integers or doubles (an i64 or f64 element is two
// words of r.v).
nlohmann::json return_json(const Dense& r) {
  if (r.dtype != ir::Dtype::I32 && r.dtype != ir::Dtype::I64 && r.dtype != ir::Dtype::F64)
    return {{"sizes", r.sizes}, {"values", values_json(r.v)}};
  nlohmann::json a = nlohmann::json::array();
  if (r.dtype == ir::Dtype::I32)
    for (float x : r.v) a.push_back(i32_value(x));
  else
    for (size_t i = 0; i + 1 < r.v.size(); i += 2)
      a.push_back(r.dtype == ir::Dtype::F64 ? double_json(f64_value(r.v.data() + i))
                                            : nlohmann::json(i64_value(r.v.data() + i)));
  return {{"sizes", r.sizes}, {"dtype", ir::dtype_name(r.dtype)}, {"values", a}};
}
}  // namespace

nlohmann::json observables_json(const ir::Program& p, const Observables& o) {
  nlohmann::json rets = nlohmann::json::array();
  for (const auto& r : o.returns) rets.push_back(return_json(r));
  nlohmann::json st = nlohmann::json::object();
  for (size_t s = 0; s < o.storages.size(); ++s) st[p.storages[s].name] = values_json(o.storages[s]);
  nlohmann::json ins = nlohmann::json::array();
  for (const auto& g : o.inputs)
    ins.push_back({{"sizes", std::vector<int64_t>(g.sizes.begin(), g.sizes.end())},
                   {"strides", std::vector<int64_t>(g.strides.begin(), g.strides.end())},
                   {"offset", g.offset}});
  nlohmann::json out = {{"returns", rets}, {"storages", st}, {"inputs", ins}};
  if (!o.grads.empty()) {  // format v1.4 training, as PyTorch computed them
    nlohmann::json grads = nlohmann::json::array();
    for (const auto& g : o.grads) grads.push_back(g ? values_json(*g) : nlohmann::json(nullptr));
    out["grads"] = grads;
  }
  return out;
}

nlohmann::json mismatch_json(const Mismatch& m) {
  nlohmann::json j = {{"observable", m.observable},
                      {"index", m.index},
                      {"expected", m.integer ? nlohmann::json(m.expected_int) : float_json(m.expected)},
                      {"actual", m.integer ? nlohmann::json(m.actual_int) : float_json(m.actual)}};
  if (m.f64) {
    j["expected"] = double_json(m.expected_f64);
    j["actual"] = double_json(m.actual_f64);
  }
  if (!m.what.empty()) j["what"] = m.what;
  return j;
}

}  // namespace af::oracles
