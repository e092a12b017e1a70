// Small file helpers with the guarantees campaigns need: a file is either
// its old contents or its complete new contents, never half written.
#pragma once
#include <string>

namespace af::fuzz {

// Writes to PATH.tmp, flushes it to disk, then renames over PATH.
void write_atomic(const std::string& path, const std::string& contents);
// Appends one line (adding '\n') with a single write.
void append_line(const std::string& path, const std::string& line);
bool read_text(const std::string& path, std::string* out);
void make_dirs(const std::string& path);

}  // namespace af::fuzz
