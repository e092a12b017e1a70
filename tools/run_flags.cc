#include "tools/run_flags.h"

#include <algorithm>

#include <fmt/format.h>

#include "compilers/table.h"
#include "run/vocabulary.h"
#include "tools/commands.h"

namespace af::tools::flags {

namespace {
using run::join_names;

std::string with_note(const std::string& help, const std::string& note) {
  return note.empty() ? help : help + " (" + note + ")";
}
std::string strategy_help() {
  return "strategy: " + join_names(run::strategy_names()) + ", update_aliases+FIX[+FIX...] with FIX one of " +
         join_names(run::ua_fix_names());
}
std::string inject_help() { return "bug-zoo mutant: " + join_names(run::mutant_names()); }
}  // namespace

void strategy(Command* c, std::string& into, const std::string& note) {
  c->add_option("--strategy", into, with_note(strategy_help(), note));
}
void strategies(Command* c, std::vector<std::string>& into, const std::string& note) {
  c->add_option("--strategy", into, with_note(strategy_help(), "repeatable; " + note));
}
void inject(Command* c, std::string& into, const std::string& note) {
  c->add_option("--inject", into, with_note(inject_help(), note));
}
void injects(Command* c, std::vector<std::string>& into, const std::string& note) {
  c->add_option("--inject", into, with_note(inject_help(), "repeatable; " + note));
}
void reorder(Command* c, std::string& into, const std::string& note) {
  c->add_option("--reorder", into, with_note("reorder policy: " + join_names(run::reorder_policy_names()), note));
}
void fusion(Command* c, std::string& into, const std::string& note) {
  c->add_option("--fusion", into, with_note("fusion policy: " + join_names(run::fusion_policy_names()), note));
}
void target(Command* c, std::string& into, const std::string& note) {
  c->add_option(
      "--target", into,
      with_note("where schedules run (interp: the reference kernels; the others: Halide): " + target_help(), note));
}
void checked(Command* c, bool& into) {
  c->add_flag("--checked", into,
              "compare every statement with the source program's value (device-side async asserts on Halide "
              "targets, the same checks on interp); a finding names the first diverging source statement");
}
void recall(Command* c, bool& into) {
  c->add_flag("--recall", into,
              "external strategies: call the compiled function a second time, on the same inputs in another "
              "alias layout (aliased inputs moved apart, separate ones into one storage), and compare that call "
              "with eager PyTorch too (format v1.4)");
}

void torch(Command* c, std::string& into) {
  c->add_option("--torch", into,
                "torch version of inductor, aot-eager and torch-func-functionalize given without @VERSION "
                "(default: the newest installed; ./aliasfuzz setup --torch VERSION installs one)");
}

std::string resolve_torch(std::vector<std::string>& strategies, const std::string& torch) {
  if (!torch.empty() && !compilers::is_torch_version(torch))
    return "--torch takes a version like 2.15.0, not '" + torch + "'";
  if (!torch.empty()) {
    std::vector<std::string> have;
    for (const auto& t : compilers::installed_torches()) have.push_back(t.version);
    if (std::find(have.begin(), have.end(), torch) == have.end())
      return "--torch " + torch + " is not installed (./aliasfuzz setup --torch " + torch +
             "; installed: " + (have.empty() ? std::string("none") : fmt::format("{}", fmt::join(have, ", "))) + ")";
  }
  for (auto& s : strategies) s = compilers::with_torch_version(s, torch);
  return "";
}

}  // namespace af::tools::flags
