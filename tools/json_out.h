// JSON forms of errors, observables and mismatches (the --json contract).
#pragma once
#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "oracles/eager.h"

namespace af::tools {

nlohmann::json error_json(const ir::Error& e);
// Floats as JSON numbers; NaN and infinities as the strings "nan", "inf", "-inf".
nlohmann::json float_json(float v);
nlohmann::json observables_json(const ir::Program& p, const oracles::Observables& o);
nlohmann::json mismatch_json(const oracles::Mismatch& m);

}  // namespace af::tools
