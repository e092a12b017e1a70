// The aliasfuzz command line: every subcommand registered on one CLI11 app
// (tools/main.cc runs it; tools/fuzz_cli.cc fuzzes it).
#include <cstdio>
#include <cstdlib>
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

namespace {
std::string g_command_line;

std::string shell_quote(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%") ==
                        std::string::npos)
    return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// First line of a command's output ("" when it fails).
std::string first_line_of(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r")) {
    char buf[256];
    if (std::fgets(buf, sizeof buf, p)) out = buf;
    if (pclose(p) != 0) out.clear();
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}
}  // namespace

const std::string& command_line() { return g_command_line; }

std::map<std::string, std::string> tool_versions() {
  std::string commit = "unknown";
  if (const char* root = std::getenv("AF_ROOT"); root && *root) {
    const std::string git = "git -C " + shell_quote(root);
    const std::string c = first_line_of(git + " rev-parse --short HEAD");
    if (!c.empty())
      commit = c + (first_line_of(git + " status --porcelain --untracked-files=no").empty() ? "" : "-dirty");
  }
  std::string halide = first_line_of("dpkg-query -W -f='${Version}' libhalide14-0-dev");
  return {{"aliasfuzz", commit}, {"halide", halide.empty() ? "unknown" : halide}};
}

int cli_main(int argc, const char* const* argv) {
  g_command_line.clear();
  for (int i = 0; i < argc; ++i) g_command_line += (i ? " " : "") + shell_quote(i == 0 ? "aliasfuzz" : argv[i]);
  Command app{"aliasfuzz: a differential fuzzer for tensor compilers (views x in-place ops)"};
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
  register_cache(app, &status);
  register_kit(app, &status);
  register_ledger(app, &status);
  if (const std::optional<int> ended = app.parse(argc, argv)) return *ended;
  std::cout.flush();
  return status;
}

}  // namespace af::tools
