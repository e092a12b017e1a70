// The command line in our own words: every subcommand declares its options
// through Command and Option, and only tools/command.cc includes CLI11,
// which parses. CLI11 (2.1, header-only) costs ~3.3 s of compile in each
// file that includes it: the 20 files that did were ~30 s of the main job's
// cold build on 2 cores. The methods are CLI11's, one for one: help texts,
// errors and exit codes are CLI11's own.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace af::tools {

// A validator: "" when the value is fine, else why it is refused.
using Check = std::function<std::string(const std::string&)>;

class Option {
 public:
  Option* required();
  Option* check(Check f);
  Option* range(int lo, int hi);                            // CLI::Range (its message in integers)
  Option* range(double lo, double hi);                      // CLI::Range
  Option* positive();                                       // CLI::PositiveNumber
  Option* member_of(std::vector<std::string> values);       // CLI::IsMember
  Option* each(std::function<void(const std::string&)> f);  // called with each value given
  Option* excludes(Option* other);                          // not both on one command line

 private:
  friend class Command;
  explicit Option(CLI::Option* o) : o_(o) {}
  CLI::Option* o_;
};

class Command {
 public:
  // The program: its description (`--help`'s first line).
  explicit Command(const std::string& description);
  ~Command();
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  Command* add_subcommand(const std::string& name, const std::string& description);
  void require_subcommand(int n);
  // Runs after a successful parse, when this (sub)command was named.
  void callback(std::function<void()> f);
  // A name with dashes is a flag ("--seed", "-v,--verbose"), without a positional.
  Option* add_option(const std::string& name, std::string& into, const std::string& help);
  Option* add_option(const std::string& name, std::vector<std::string>& into, const std::string& help);
  Option* add_option(const std::string& name, int& into, const std::string& help);
  Option* add_option(const std::string& name, unsigned& into, const std::string& help);
  Option* add_option(const std::string& name, long& into, const std::string& help);
  Option* add_option(const std::string& name, unsigned long& into, const std::string& help);
  Option* add_option(const std::string& name, double& into, const std::string& help);
  // An option whose value goes to `f` instead of a field.
  Option* add_option_function(const std::string& name, std::function<void(const std::string&)> f,
                              const std::string& help);
  Option* add_flag(const std::string& name, bool& into, const std::string& help);
  // How many times a flag was given (after parsing).
  size_t count(const std::string& name) const;

  // Parses argv (argv[0] the program) and runs the callbacks of the commands
  // it names. nullopt when they ran; else the exit status that parsing ended
  // with (0 after --help, 2 for a usage error, printed by CLI11).
  std::optional<int> parse(int argc, const char* const* argv);

 private:
  explicit Command(CLI::App* app);  // a subcommand
  Option* keep(CLI::Option* o);
  struct DeleteApp {  // CLI::App is complete only in command.cc
    void operator()(CLI::App* app) const;
  };
  std::unique_ptr<CLI::App, DeleteApp> owned_;  // the program's; a subcommand's App is its parent's
  CLI::App* app_;
  std::vector<std::unique_ptr<Command>> subcommands_;
  std::vector<std::unique_ptr<Option>> options_;
};

}  // namespace af::tools
