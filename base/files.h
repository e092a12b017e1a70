// Whole-file I/O with the one guarantee every writer here needs: a reader
// sees a file's old contents or its complete new contents, never half of
// it (campaign state, findings, kernel caches, capability caches, kits).
#pragma once
#include <string>

namespace af::base {

// Writes `bytes` to a temporary file of this writer's own (process, thread,
// counter: two workers storing the same path never share one), flushes it
// to disk and renames it over `path`. False, with the reason in *why, when
// any step fails (the temporary file is removed).
bool write_file_atomic(const std::string& path, const std::string& bytes, std::string* why = nullptr);

// The whole file into *out; false when it cannot be opened or read.
bool read_file(const std::string& path, std::string* out);

}  // namespace af::base
