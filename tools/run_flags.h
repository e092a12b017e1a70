// The run-setting flags that several subcommands take (--strategy
// --inject --reorder --fusion --target --checked), declared here once so
// that every subcommand shows the same help text, built from the name
// tables of run/vocabulary.h. Each declares into the caller's own
// field; the values are parsed once, by run::parse_spec.
#pragma once
#include "tools/command.h"
#include <string>
#include <vector>

namespace af::tools::flags {

// `note` ends the help text: the default or how the command uses the flag.
void strategy(Command* c, std::string& into, const std::string& note);
void strategies(Command* c, std::vector<std::string>& into, const std::string& note);  // repeatable
void inject(Command* c, std::string& into, const std::string& note);
void injects(Command* c, std::vector<std::string>& into, const std::string& note);  // repeatable
void reorder(Command* c, std::string& into, const std::string& note);
void fusion(Command* c, std::string& into, const std::string& note);
void target(Command* c, std::string& into, const std::string& note);
void checked(Command* c, bool& into);
// --recall (format v1.4): external strategies call the compiled function again on another alias layout.
void recall(Command* c, bool& into);
// --torch VERSION: the torch of every torch.compile-family strategy given
// without '@' (inductor, aot-eager, torch-func-functionalize).
void torch(Command* c, std::string& into);
// Spells out the torch version of every such strategy (`torch`, else the
// newest installed) at the edge, so that every finding, bucket, bug and
// repro carries it. "" or why `torch` cannot be used.
std::string resolve_torch(std::vector<std::string>& strategies, const std::string& torch);

}  // namespace af::tools::flags
