// aliasfuzz report DIR: (re)writes DIR/report.{json,md,html} from a campaign folder.
#include <iostream>
#include <memory>

#include "reports/report.h"
#include "tools/commands.h"

namespace af::tools {

void register_report(Command& app, int* status) {
  auto dir = std::make_shared<std::string>();
  auto issues = std::make_shared<bool>(false);
  auto* c = app.add_subcommand("report", "write report.json, report.md and report.html of a campaign folder");
  c->add_option("DIR", *dir, "campaign folder (written by aliasfuzz fuzz or merge)")->required();
  c->add_flag("--issues", *issues,
              "also write DIR/issues/BUG.md per bug of a strategy under study, running each repro.py once");
  c->callback([dir, issues, status] {
    try {
      reports::write_reports(*dir);
      std::cout << *dir << "/report.json\n" << *dir << "/report.md\n" << *dir << "/report.html\n";
      if (*issues)
        for (const auto& w : reports::write_issues(*dir))
          std::cout << w.path
                    << (w.fixed_upstream ? " (fixed upstream: the newest torch does not reproduce it)"
                        : w.reproduces   ? " (reproduces)"
                                         : " (does NOT reproduce)")
                    << "\n";
    } catch (const std::exception& e) {
      std::cerr << "aliasfuzz report: " << e.what() << "\n";
      *status = 2;
      return;
    }
    *status = 0;
  });
}

}  // namespace af::tools
