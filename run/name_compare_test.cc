// No code outside the spelling tables compares a run setting's name as a
// string (issue #35): a strategy, mutant, reorder or fusion policy, target
// or external compiler is parsed once at the edge (run/spec.h) and compared
// as a typed value. This test reads every C++ source of the checkout and
// fails on `== "NAME"`, `!= "NAME"` or `"NAME" ==` for any name the
// tables list. Allowed: the tables themselves (run/, compilers/table.cc)
// and tests, which spell names on purpose.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "compilers/table.h"
#include "oracles/line_process.h"
#include "run/vocabulary.h"

namespace af::run {
namespace {

namespace fs = std::filesystem;

std::set<std::string> table_names() {
  std::set<std::string> names;
  for (const auto* list :
       {&strategy_names(), &mutant_names(), &fusion_policy_names(), &target_names(), &compilers::external_strategies()})
    names.insert(list->begin(), list->end());
  for (const Reorder& r : seedless_reorders()) names.insert(reorder_name(r));
  return names;
}

// The checkout: the real folder behind this test's runfiles copy of a source.
fs::path source_root() {
  const std::string file = oracles::find_source_file("run/vocabulary.h", "");
  if (file.empty()) return {};
  return fs::canonical(file).parent_path().parent_path();
}

bool allowed(const std::string& rel) {
  return rel.rfind("run/", 0) == 0 || rel == "compilers/table.cc" || rel.find("_test.cc") != std::string::npos ||
         rel.find("_test_util.h") != std::string::npos;
}

TEST(NameCompare, NoStringComparisonOfRunNamesOutsideTheTables) {
  const fs::path root = source_root();
  ASSERT_FALSE(root.empty()) << "cannot find the source tree";
  std::string alternatives;
  for (const auto& n : table_names())
    alternatives += (alternatives.empty() ? "" : "|") + std::regex_replace(n, std::regex(R"([.+])"), R"(\$&)");
  const std::regex compare("(==|!=)\\s*\"(" + alternatives + ")\"|\"(" + alternatives + ")\"\\s*(==|!=)");
  int files = 0;
  std::string found;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name[0] == '.' || name.rfind("bazel-", 0) == 0 || name == "runs")) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (!it->is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
    const std::string rel = fs::relative(it->path(), root).string();
    if (allowed(rel)) continue;
    ++files;
    std::ifstream in(it->path());
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      const std::string code = line.substr(0, line.find("//"));
      if (std::regex_search(code, compare)) found += rel + ":" + std::to_string(line_no) + ": " + line + "\n";
    }
  }
  EXPECT_GT(files, 50) << "read too few sources under " << root;
  EXPECT_EQ(found, "") << "compare the typed value (run/spec.h, run/vocabulary.h) instead";
}

}  // namespace
}  // namespace af::run
