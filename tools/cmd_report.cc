// aliasfuzz report DIR: (re)writes DIR/report.{json,md,html} from a campaign folder.
#include <iostream>
#include <memory>

#include "reports/report.h"
#include "tools/commands.h"

namespace af::tools {

void register_report(CLI::App& app, int* status) {
  auto dir = std::make_shared<std::string>();
  auto* c = app.add_subcommand("report", "write report.json, report.md and report.html of a campaign folder");
  c->add_option("DIR", *dir, "campaign folder (written by aliasfuzz fuzz or merge)")->required();
  c->callback([dir, status] {
    try {
      reports::write_reports(*dir);
    } catch (const std::exception& e) {
      std::cerr << "aliasfuzz report: " << e.what() << "\n";
      *status = 2;
      return;
    }
    std::cout << *dir << "/report.json\n" << *dir << "/report.md\n" << *dir << "/report.html\n";
    *status = 0;
  });
}

}  // namespace af::tools
