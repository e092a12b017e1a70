#include "tools/run_flags.h"

#include "schedulers/run_config.h"
#include "tools/commands.h"

namespace af::tools::flags {

namespace {
using schedulers::join_names;

std::string with_note(const std::string& help, const std::string& note) {
  return note.empty() ? help : help + " (" + note + ")";
}
std::string strategy_help() {
  return "strategy: " + join_names(schedulers::strategy_names()) + ", update_aliases+FIX[+FIX...] with FIX one of " +
         join_names(schedulers::ua_fix_names());
}
std::string inject_help() { return "bug-zoo mutant: " + join_names(schedulers::mutant_names()); }
}  // namespace

void strategy(CLI::App* c, std::string& into, const std::string& note) {
  c->add_option("--strategy", into, with_note(strategy_help(), note));
}
void strategies(CLI::App* c, std::vector<std::string>& into, const std::string& note) {
  c->add_option("--strategy", into, with_note(strategy_help(), "repeatable; " + note));
}
void inject(CLI::App* c, std::string& into, const std::string& note) {
  c->add_option("--inject", into, with_note(inject_help(), note));
}
void injects(CLI::App* c, std::vector<std::string>& into, const std::string& note) {
  c->add_option("--inject", into, with_note(inject_help(), "repeatable; " + note));
}
void reorder(CLI::App* c, std::string& into, const std::string& note) {
  c->add_option("--reorder", into,
                with_note("reorder policy: " + join_names(schedulers::reorder_policy_names()), note));
}
void fusion(CLI::App* c, std::string& into, const std::string& note) {
  c->add_option("--fusion", into, with_note("fusion policy: " + join_names(schedulers::fusion_policy_names()), note));
}
void target(CLI::App* c, std::string& into, const std::string& note) {
  c->add_option("--target", into,
                with_note("where schedules run (interp: the reference kernels; the others: Halide): " + target_help(),
                          note));
}
void checked(CLI::App* c, bool& into) {
  c->add_flag("--checked", into,
              "compare every statement with the source program's value (device-side async asserts on Halide "
              "targets, the same checks on interp); a finding names the first diverging source statement");
}

}  // namespace af::tools::flags
