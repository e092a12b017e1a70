// aliasfuzz gen: placeholder until its implementation lands.
#include <iostream>

#include "tools/commands.h"

namespace af::tools {

void register_gen(CLI::App& app, int* status) {
  auto* c = app.add_subcommand("gen", "(not implemented yet)");
  c->allow_extras();
  c->callback([status] {
    std::cerr << "aliasfuzz gen: not implemented yet\n";
    *status = 2;
  });
}

}  // namespace af::tools
