// The aliasfuzz program: one binary, many subcommands (tools/cli.cc).
#include "tools/commands.h"

int main(int argc, char** argv) { return af::tools::cli_main(argc, argv); }
