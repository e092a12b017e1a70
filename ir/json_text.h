// JSON text that every reader can parse: nlohmann::json's writer throws
// (type_error 316) on a string that is not valid UTF-8, and a program's
// names, messages and file names can carry any bytes. Every JSON text the
// tool writes goes through json_text.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace af::ir {

// j.dump(indent), with every invalid UTF-8 byte of every string and key
// shown as the text \xNN (ir::printable_utf8).
std::string json_text(const nlohmann::json& j, int indent = -1);

}  // namespace af::ir
