// Helpers for the reports tests: a fresh folder and small file writers.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "check/files.h"

namespace af::reports::testing {

inline std::string fresh_dir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/" + name + "-XXXXXX";
  char* made = ::mkdtemp(tmpl.data());
  if (!made) throw std::runtime_error("mkdtemp failed");
  return made;
}

inline std::string slurp(const std::string& path) {
  std::string s;
  EXPECT_TRUE(fuzz::read_text(path, &s)) << path;
  return s;
}

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

}  // namespace af::reports::testing
