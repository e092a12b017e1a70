// Each subcommand of the `aliasfuzz` program lives in its own cmd_*.cc and
// registers itself here. A command's callback stores its exit status in
// *status: 0 success, 1 a disagreement or finding, 2 invalid input or usage.
#pragma once
#include "tools/command.h"
#include <map>
#include <string>

namespace af::tools {

void register_run(Command& app, int* status);
void register_dot(Command& app, int* status);
void register_gen(Command& app, int* status);
void register_torch(Command& app, int* status);
void register_fuzz(Command& app, int* status);
void register_minimize(Command& app, int* status);
void register_slurm(Command& app, int* status);
void register_report(Command& app, int* status);
void register_merge(Command& app, int* status);
void register_compare(Command& app, int* status);
void register_convert(Command& app, int* status);
void register_capabilities(Command& app, int* status);
void register_fidelity(Command& app, int* status);
void register_cache(Command& app, int* status);
void register_kit(Command& app, int* status);
void register_ledger(Command& app, int* status);
// --kernel-cache DIR, --kernel-cache-max SIZE (tools/cmd_cache.cc).
void add_kernel_cache_flags(Command* c);

// Parses argv (argv[0] the program name) and runs the subcommand it names;
// returns the exit status (2 for a usage error).
int cli_main(int argc, const char* const* argv);
// The command line cli_main was given, shell-quoted (for campaign.json and reports).
const std::string& command_line();
// Versions of what a run used: aliasfuzz (the source commit, "-dirty" when
// changed), Halide (the Debian package); "unknown" where not found.
std::map<std::string, std::string> tool_versions();

// CLI11 check for seeds and counts: decimal digits only, at most 19 (so
// "-1" is refused instead of wrapping to 2^64-1).
std::string unsigned_integer(const std::string& v);

// "interp, host, opencl, cuda, ptx": the valid --target values for help
// texts and errors (fuzz::target_names(); tools/target_executor.cc).
std::string target_help();

// Reads a whole file; false (and a message on stderr) when it cannot.
bool read_file(const std::string& path, std::string* out);

}  // namespace af::tools
