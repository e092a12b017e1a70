// The one file that includes CLI11 (tools/command.h says why).
#include "tools/command.h"

#include <CLI/CLI.hpp>

namespace af::tools {

Option* Option::required() {
  o_->required();
  return this;
}
Option* Option::check(Check f) {
  o_->check(std::move(f));
  return this;
}
Option* Option::range(int lo, int hi) {
  o_->check(CLI::Range(lo, hi));
  return this;
}
Option* Option::range(double lo, double hi) {
  o_->check(CLI::Range(lo, hi));
  return this;
}
Option* Option::positive() {
  o_->check(CLI::PositiveNumber);
  return this;
}
Option* Option::member_of(std::vector<std::string> values) {
  o_->check(CLI::IsMember(std::move(values)));
  return this;
}
Option* Option::each(std::function<void(const std::string&)> f) {
  o_->each(std::move(f));
  return this;
}
Option* Option::excludes(Option* other) {
  o_->excludes(other->o_);
  return this;
}

void Command::DeleteApp::operator()(CLI::App* app) const { delete app; }

Command::Command(const std::string& description) : owned_(new CLI::App(description)), app_(owned_.get()) {}
Command::Command(CLI::App* app) : app_(app) {}
Command::~Command() = default;

Command* Command::add_subcommand(const std::string& name, const std::string& description) {
  subcommands_.push_back(std::unique_ptr<Command>(new Command(app_->add_subcommand(name, description))));
  return subcommands_.back().get();
}
void Command::require_subcommand(int n) { app_->require_subcommand(n); }
void Command::callback(std::function<void()> f) { app_->callback(std::move(f)); }

Option* Command::keep(CLI::Option* o) {
  options_.push_back(std::unique_ptr<Option>(new Option(o)));
  return options_.back().get();
}
Option* Command::add_option(const std::string& name, std::string& into, const std::string& help) {
  return keep(app_->add_option(name, into, help));
}
Option* Command::add_option(const std::string& name, std::vector<std::string>& into, const std::string& help) {
  return keep(app_->add_option(name, into, help));
}
Option* Command::add_option(const std::string& name, int& into, const std::string& help) {
  return keep(app_->add_option(name, into, help));
}
Option* Command::add_option(const std::string& name, unsigned& into, const std::string& help) {
  return keep(app_->add_option(name, into, help));
}
Option* Command::add_option(const std::string& name, long& into, const std::string& help) {
  return keep(app_->add_option(name, into, help));
}
Option* Command::add_option(const std::string& name, unsigned long& into, const std::string& help) {
  return keep(app_->add_option(name, into, help));
}
Option* Command::add_option(const std::string& name, double& into, const std::string& help) {
  return keep(app_->add_option(name, into, help));
}
Option* Command::add_option_function(const std::string& name, std::function<void(const std::string&)> f,
                                     const std::string& help) {
  return keep(app_->add_option_function<std::string>(name, std::move(f), help));
}
Option* Command::add_flag(const std::string& name, bool& into, const std::string& help) {
  return keep(app_->add_flag(name, into, help));
}
size_t Command::count(const std::string& name) const { return app_->count(name); }

std::optional<int> Command::parse(int argc, const char* const* argv) {
  try {
    app_->parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app_->exit(e);
  } catch (const CLI::ParseError& e) {
    app_->exit(e);
    return 2;  // usage error
  }
  return std::nullopt;
}

}  // namespace af::tools
