// A finding's cheap features (issue #34): what a program does with
// aliases, as a set of short words, so that a campaign can tell a finding
// that may hold a bug it has not met from one more instance of a bug it
// has. Computed from the program and its analysis only (no run):
//   op:NAME              every op the program uses
//   inputs:share         two inputs on one storage;  inputs:overlap  two share an element
//   view:NAME            a view op applied (its result aliases its source)
//   write:PATH           an in-place or out= write, PATH the written
//                        tensor's alias path: its root (input, input~shared
//                        for an input whose storage another input views,
//                        fresh for a result) and the last view op
//                        applied on the way ("input~shared/unfold"), with
//                        ":holes" when the written elements leave gaps in
//                        their span of storage and ":overlap" when two
//                        indices name one element
//   meta:PATH            a metadata op (transpose_, as_strided_, ...) on it
// A campaign adds its run's words (what:values, what:IndexError, ...).
#pragma once
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/program.h"

namespace af::fuzz {

// Sorted and unique. `an` may be null (a program eager rejects): then
// only the op: words.
std::vector<std::string> program_features(const ir::Program& p, const ir::Analysis* an);

// The write:PATH and meta:PATH words alone, in the same spelling.
std::vector<std::string> write_paths(const ir::Program& p, const ir::Analysis& an);

// The alias relations a bug can go through (triage/signature.h's cause),
// sorted: alias:PATH for every view (PATH with a view op) of a storage the
// program writes, whether the write goes through it or it is read;
// alias:input~shared when a write goes through an input another input's
// storage is shared with; alias:input/hidden when an input no other
// input shares storage with is itself (not through a view) written and
// its storage has elements it does not show (a strided or partial input:
// they must stay as they were; a write through a view has the view's
// relation); meta:PATH for a metadata op. No gap marks: they are
// novelty, and one defect's minimized programs differ in them.
std::vector<std::string> alias_relations(const ir::Program& p, const ir::Analysis& an);

// A word without its gap mark ("write:input/unfold:holes" -> "write:input/unfold").
std::string without_marks(const std::string& word);

// Whether the sorted sets a and b share a word.
bool shares_feature(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace af::fuzz
