// aliasfuzz merge DIR... --out DIR: combines shard campaigns of one seed.
#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

#include "reports/report.h"
#include "tools/commands.h"
#include "tools/folder_lock.h"

namespace af::tools {

namespace {
struct MergeArgs {
  std::vector<std::string> sources;
  std::string out;
};
}  // namespace

void register_merge(Command& app, int* status) {
  auto a = std::make_shared<MergeArgs>();
  auto* c = app.add_subcommand("merge", "combine campaign folders (shards of one seed) into one, with reports");
  c->add_option("DIR", a->sources, "campaign folders to merge")->required();
  c->add_option("--out", a->out, "output folder")->required();
  c->callback([a, status] {
    for (const auto& s : a->sources)
      if (s == a->out) {
        std::cerr << "aliasfuzz merge: --out must differ from the sources\n";
        *status = 2;
        return;
      }
    for (const auto& s : a->sources)
      if (!std::filesystem::is_directory(s) || !lock_folder(s, true, "merge")) {
        if (!std::filesystem::is_directory(s)) std::cerr << "aliasfuzz merge: " << s << " is not a folder\n";
        *status = 2;
        return;
      }
    if (!lock_folder(a->out, false, "merge")) {
      *status = 2;
      return;
    }
    try {
      reports::merge_campaigns(a->sources, a->out);
    } catch (const std::exception& e) {
      std::cerr << "aliasfuzz merge: " << e.what() << "\n";
      *status = 2;
      return;
    }
    std::cout << "merged " << a->sources.size() << " campaigns into " << a->out << "\n" << a->out << "/report.html\n";
    *status = 0;
  });
}

}  // namespace af::tools
