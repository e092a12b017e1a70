// aliasfuzz fidelity: does the update_aliases model predict the real
// Thunder? (studies/fidelity.h)
//
//   aliasfuzz fidelity [--programs N] [--seed S] [--random K] [--size K] --out DIR
#include <iostream>

#include "check/files.h"
#include "studies/fidelity.h"
#include "compilers/table.h"
#include "tools/commands.h"

namespace af::tools {

void register_fidelity(Command& app, int* status) {
  auto o = std::make_shared<fuzz::FidelityOptions>();
  auto* c = app.add_subcommand("fidelity", "measure how well the update_aliases model predicts the real Thunder");
  c->add_option("--programs", o->programs, "programs to generate (default 200)")->range(1, 10000000);
  c->add_option("--seed", o->seed, "generator seed (default 1)")->check(unsigned_integer);
  c->add_option("--random", o->random_reorders, "random reorders of the model per program (default 4)")->range(0, 1000);
  c->add_option("--size", o->gen.size, "statements per program (default 12)")->range(1, 9000);
  c->add_option("--out", o->out, "folder for fidelity.{json,md} and disagreements/");
  c->callback([o, status] {
    if (compilers::find_thunder_python().empty()) {
      std::cerr << "aliasfuzz fidelity: the real Thunder is not installed (./aliasfuzz setup --thunder)\n";
      *status = 2;
      return;
    }
    if (!o->out.empty()) {  // a folder we cannot write is a usage error before the work
      if (auto e = fuzz::check_writable_dir(o->out); !e.empty()) {
        std::cerr << "aliasfuzz fidelity: cannot write to " << o->out << ": " << e << "\n";
        *status = 2;
        return;
      }
    }
    std::cerr << "aliasfuzz fidelity: seed " << o->seed << ", " << o->programs << " programs\n";
    try {
      auto r = fuzz::measure_fidelity(*o);
      std::cout << fuzz::fidelity_markdown(r);
      *status = 0;
    } catch (const std::exception& e) {
      std::cerr << "aliasfuzz fidelity: " << e.what() << "\n";
      *status = 2;
    }
  });
}

}  // namespace af::tools
