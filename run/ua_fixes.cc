// Strategy names of the update_aliases family -> their fixes.
#include "run/ua_fixes.h"

namespace af::run {

const std::vector<std::string>& ua_fix_names() {
  static const std::vector<std::string> v{"inputs", "args", "results", "war", "dedupe", "min", "atomic"};
  return v;
}

UaFixes ua_ordered_fixes() {
  return UaFixes{}
      .with(UaFix::Inputs)
      .with(UaFix::Args)
      .with(UaFix::Results)
      .with(UaFix::War)
      .with(UaFix::Dedupe)
      .with(UaFix::Atomic);
}

std::optional<UaFixes> ua_fixes_of(const std::string& s) {
  if (s == "update_aliases") return UaFixes{};
  if (s == "update_aliases-ordered") return ua_ordered_fixes();
  if (s == "update_aliases-min") return ua_ordered_fixes().with(UaFix::Min);
  const std::string prefix = "update_aliases+";
  if (s.rfind(prefix, 0) != 0) return std::nullopt;
  UaFixes fx;
  size_t pos = prefix.size();
  while (pos <= s.size()) {
    size_t end = s.find('+', pos);
    if (end == std::string::npos) end = s.size();
    const std::string name = s.substr(pos, end - pos);
    bool found = false;
    for (size_t k = 0; k < ua_fix_names().size(); ++k)
      if (ua_fix_names()[k] == name) {
        if (fx.bits & (1u << k)) return std::nullopt;  // named twice
        fx.bits |= 1u << k;
        found = true;
      }
    if (!found) return std::nullopt;
    pos = end + 1;
  }
  return fx;
}

}  // namespace af::run
