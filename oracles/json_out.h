// JSON forms of errors, observables and mismatches: the one value encoding
// of every JSON file aliasfuzz writes (run --json, findings, minimize.json).
#pragma once
#include <nlohmann/json_fwd.hpp>

#include "ir/error.h"
#include "oracles/eager.h"

namespace af::oracles {

nlohmann::json error_json(const ir::Error& e);
// Floats as JSON numbers; NaN and infinities as the strings "nan", "inf", "-inf".
nlohmann::json float_json(float v);
// A double (format v1.5's f64 returns): a number, or "nan"/"inf"/"-inf".
nlohmann::json double_json(double v);
nlohmann::json observables_json(const ir::Program& p, const Observables& o);
nlohmann::json mismatch_json(const Mismatch& m);

}  // namespace af::oracles
