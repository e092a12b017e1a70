// The aliasfuzz command-line program: one binary, many subcommands.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tools/commands.h"
#include "tools/target_executor.h"

namespace af::tools {

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "aliasfuzz: cannot read " << path << "\n";
    return false;
  }
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

}  // namespace af::tools

int main(int argc, char** argv) {
  CLI::App app{"aliasfuzz: a differential fuzzer for tensor compilers (views x in-place ops)"};
  app.require_subcommand(1);
  int status = 0;
  af::tools::register_lowering_target();
  af::tools::register_run(app, &status);
  af::tools::register_dot(app, &status);
  af::tools::register_gen(app, &status);
  af::tools::register_fidelity(app, &status);
  af::tools::register_torch(app, &status);
  af::tools::register_fuzz(app, &status);
  af::tools::register_minimize(app, &status);
  af::tools::register_slurm(app, &status);
  af::tools::register_report(app, &status);
  af::tools::register_merge(app, &status);
  af::tools::register_compare(app, &status);
  af::tools::register_convert(app, &status);
  af::tools::register_capabilities(app, &status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;  // usage error
  }
  std::cout.flush();
  return status;
}
