#include "oracles/torch_function.h"

#include <sstream>
#include <vector>

#include "oracles/torch_bridge.h"

namespace af::oracles {

std::string functional_form(const ir::Program& p, const std::string& script) {
  const std::string def = "\ndef _program():\n";
  const size_t d = script.find(def);
  if (d == std::string::npos) return "";
  const size_t body = d + def.size();
  const size_t tail = script.find("\n\n# script line -> program line", body);
  const size_t ret = script.rfind("\n    return [", tail == std::string::npos ? std::string::npos : tail);
  if (ret == std::string::npos || ret < body) return "";
  std::vector<std::string> lines;
  {
    std::istringstream in(script.substr(body, ret + 1 - body));
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  const size_t ret_end = script.find('\n', ret + 1);
  const std::string ret_line = script.substr(ret + 1, ret_end - ret - 1);  // "    return [a, b], {...}"
  const size_t close = ret_line.find("], ");
  if (close == std::string::npos) return "";
  const std::string kRet = "    return ";
  const std::string rets = ret_line.substr(kRet.size(), close + 1 - kRet.size());
  // "{...}, [inputs]": _setup returns the storages; the inputs are _fn's arguments.
  const size_t ins = ret_line.rfind("}, [");
  if (ins == std::string::npos || ins < close) return "";
  const std::string stores = ret_line.substr(close + 3, ins + 1 - (close + 3));
  const size_t nsetup = p.storages.size() + p.inputs.size();
  if (lines.size() < nsetup) return "";
  std::vector<std::string> inputs;
  for (size_t k = p.storages.size(); k < nsetup; ++k) {
    const size_t eq = lines[k].find(" = ");
    if (eq == std::string::npos) return "";
    size_t b = lines[k].find_first_not_of(' ');
    inputs.push_back(lines[k].substr(b, eq - b));
  }
  std::string args;
  for (size_t i = 0; i < inputs.size(); ++i) args += (i ? ", " : "") + inputs[i];
  std::string out = "def _setup():\n    # storages with their exact initial values, inputs by torch.as_strided\n";
  for (size_t k = 0; k < nsetup; ++k) out += lines[k] + "\n";
  out += "    return [" + args + "], " + stores + "\n\n\n";
  out += "def _fn(" + args + "):\n    # the program as a function of its inputs\n";
  for (size_t k = nsetup; k < lines.size(); ++k) out += lines[k] + "\n";
  out += "    return " + rets + "\n";
  return out;
}

std::string torch_function_module(const ir::Program& p) {
  std::string script = torch_script(p);
  const std::string fn = functional_form(p, script);
  if (fn.empty()) return "";
  const size_t m = script.rfind("\nif __name__ == \"__main__\":");
  if (m != std::string::npos) script.erase(m + 1);
  return script + "\n\n" + fn;
}

}  // namespace af::oracles
