// libFuzzer target: the command line and the parser together. An input is
// a program (.af text or anything) and, after a NUL byte, a subcommand and
// its arguments, one per line; "@" stands for the program's file. Only
// commands with bounded work on small inputs are fuzzed: run, dot, convert,
// torch, gen and `fuzz --check-options` (the campaign itself forks workers
// and runs for seconds). Tokens that would start another process or write
// outside a scratch folder (--out, --run, --target, external strategies)
// are dropped and numbers are capped at 64, so every input is quick; what
// remains must never crash, hang, leak or trip a sanitizer, whatever the
// bytes: usage errors and invalid programs end with an exit status.
//   bazel --output_base=$HOME/.cache/bazel-libfuzzer build --config=libfuzzer //tools:fuzz_cli
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/commands.h"

namespace {

const char* const kCommands[] = {"run", "dot", "convert", "torch", "gen", "fuzz"};

bool dropped(const std::string& t) {
  for (const char* bad : {"--out", "--run", "--target", "--help", "-h", "--jobs", "thunder", "torch-", "inductor",
                          "aot-eager", "py:", "--resume"})
    if (t.find(bad) != std::string::npos) return true;
  return false;
}

char g_dir[] = "/tmp/aliasfuzz-fuzz-cli-XXXXXX";

void remove_scratch() { std::system(("rm -rf " + std::string(g_dir)).c_str()); }

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Scratch folder for the program file (and anything a command writes by
  // default), removed at exit.
  if (!mkdtemp(g_dir) || chdir(g_dir) != 0) std::abort();
  std::atexit(remove_scratch);
  std::freopen("/dev/null", "w", stdout);  // commands print programs and reports
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const size_t nul = in.find('\0');
  const std::string program = in.substr(0, nul);
  const std::string rest = nul == std::string::npos ? "" : in.substr(nul + 1);
  if (FILE* f = std::fopen("p.af", "wb")) {
    std::fwrite(program.data(), 1, program.size(), f);
    std::fclose(f);
  }
  std::vector<std::string> args = {"aliasfuzz", kCommands[rest.empty() ? 0 : static_cast<uint8_t>(rest[0]) % 6]};
  bool named_program = false;
  for (size_t pos = rest.empty() ? 0 : 1; pos < rest.size() && args.size() < 14;) {
    size_t nl = rest.find('\n', pos);
    if (nl == std::string::npos) nl = rest.size();
    std::string t = rest.substr(pos, nl - pos);
    pos = nl + 1;
    if (dropped(t)) continue;
    // Numbers of more than two digits (counts, sizes, seeds) become 64.
    if (t.size() > 2 && t.find_first_not_of("0123456789") == std::string::npos) t = "64";
    if (t == "@") t = "p.af", named_program = true;
    args.push_back(t);
  }
  if (!named_program && args[1] != "gen" && args[1] != "fuzz") args.insert(args.begin() + 2, "p.af");
  if (args[1] == "fuzz") args.push_back("--check-options");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  af::tools::cli_main(static_cast<int>(argv.size()), argv.data());
  return 0;
}
