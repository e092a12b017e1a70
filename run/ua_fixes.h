// The fixes that turn Thunder 0.2.6's update_aliases rule into a correct
// strategy (schedulers/update_aliases.cc explains each). A strategy name
// selects a set: `update_aliases` is the rule alone, `update_aliases+war`
// the rule with one fix (any '+'-joined list of fix names), and the two
// must-agree variants are fixed sets.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace af::run {

enum class UaFix : unsigned {
  Inputs = 1,   // aliased inputs keep their own geometry (no pass 1); a storage's inputs share a group
  Args = 2,     // in-place ops thread every tensor argument, not only the written one
  Results = 4,  // a bound in-place result is in its argument's group
  War = 8,      // an edge from every access of a group to its next update (or write)
  Dedupe = 16,  // Thunder PR 2772: an update before a read only when a read name is stale
  Min = 32,     // also no update before a write whose names are all current
  Atomic = 64,  // in-place ops run as one statement (Thunder runs `t = op(x, ...); copy_(x, t)`)
};

struct UaFixes {
  unsigned bits = 0;
  bool has(UaFix f) const { return (bits & static_cast<unsigned>(f)) != 0; }
  bool any() const { return bits != 0; }
  UaFixes with(UaFix f) const { return UaFixes{bits | static_cast<unsigned>(f)}; }
};

// The fix names in the order of the enum: inputs, args, results, war, dedupe, min, atomic.
const std::vector<std::string>& ua_fix_names();
// The fixes a strategy name selects; nothing when it is not an
// update_aliases strategy (or names an unknown fix).
std::optional<UaFixes> ua_fixes_of(const std::string& strategy);
// How a pass of the rule says that the real Thunder raises on the program
// (a prediction, not a bug of the model): the start of the strategy error.
inline constexpr const char* kThunderRaises = "Thunder raises";

// The fixes of update_aliases-ordered (inputs+args+results+war+dedupe+atomic).
UaFixes ua_ordered_fixes();

}  // namespace af::run
