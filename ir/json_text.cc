#include "ir/json_text.h"
#include <nlohmann/json.hpp>

#include "ir/text.h"

namespace af::ir {
namespace {

nlohmann::json valid_utf8(const nlohmann::json& j) {
  if (j.is_string()) return printable_utf8(j.get_ref<const std::string&>(), false);
  if (j.is_array()) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& v : j) a.push_back(valid_utf8(v));
    return a;
  }
  if (j.is_object()) {
    nlohmann::json o = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) o[printable_utf8(it.key(), false)] = valid_utf8(it.value());
    return o;
  }
  return j;
}

}  // namespace

std::string json_text(const nlohmann::json& j, int indent) {
  try {
    return j.dump(indent);
  } catch (const nlohmann::json::type_error&) {
    // Rare (only hostile input gets here): the walk costs a copy.
    return valid_utf8(j).dump(indent);
  }
}

}  // namespace af::ir
