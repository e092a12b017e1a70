// The aliasfuzz command line: every subcommand registered on one CLI11 app
// (tools/main.cc runs it; tools/fuzz_cli.cc fuzzes it).
#include <cstdio>
#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tools/commands.h"
#include "tools/target_executor.h"

namespace af::tools {

std::string unsigned_integer(const std::string& v) {
  if (v.empty() || v.size() > 19) return "must be a non-negative integer";
  for (char ch : v)
    if (!std::isdigit(static_cast<unsigned char>(ch))) return "must be a non-negative integer";
  return "";
}

bool read_file(const std::string& path, std::string* out) {
  // A program of the largest size the limits allow (10,000 ops, storages of
  // 2^22 listed values) is well under this; /dev/zero or a wrong file is not.
  constexpr size_t kMaxInput = size_t{256} << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "aliasfuzz: cannot read " << path << "\n";
    return false;
  }
  out->clear();
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    out->append(buf, static_cast<size_t>(in.gcount()));
    if (out->size() > kMaxInput) {
      std::cerr << "aliasfuzz: " << path << " is larger than 256 MiB (limit for an input file)\n";
      out->clear();
      return false;
    }
  }
  return true;
}

int cli_main(int argc, const char* const* argv) {
  CLI::App app{"aliasfuzz: a differential fuzzer for tensor compilers (views x in-place ops)"};
  app.require_subcommand(1);
  int status = 0;
  register_lowering_target();
  register_run(app, &status);
  register_dot(app, &status);
  register_gen(app, &status);
  register_fidelity(app, &status);
  register_torch(app, &status);
  register_fuzz(app, &status);
  register_minimize(app, &status);
  register_slurm(app, &status);
  register_report(app, &status);
  register_merge(app, &status);
  register_compare(app, &status);
  register_convert(app, &status);
  register_capabilities(app, &status);
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

}  // namespace af::tools
