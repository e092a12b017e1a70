// aliasfuzz torch PROGRAM.af: prints the standalone PyTorch eager script of
// a program (oracles/torch_bridge.h). A program that parses but fails
// analysis still gets its script: the point is to ask PyTorch. With --run
// it also runs the script through PyTorch and prints its JSON answer.
#include <iostream>
#include <nlohmann/json.hpp>

#include "ir/json_text.h"
#include "ir/text.h"
#include "oracles/torch_bridge.h"
#include "tools/commands.h"
#include "oracles/json_out.h"

namespace af::tools {

namespace {

struct TorchOptionsCli {
  std::string path;
  bool run = false;
};

int torch_cmd(const TorchOptionsCli& o) {
  std::string text;
  if (!read_file(o.path, &text)) return 2;
  auto prog = ir::parse(text);
  if (!prog) {
    const ir::Error& e = prog.error();
    std::cerr << o.path << ":" << e.line << ": " << ir::kind_name(e.kind) << " error: " << e.message << "\n";
    return 2;
  }
  const std::string script = oracles::torch_script(*prog);
  if (!o.run) {
    std::cout << script;
    return 0;
  }
  oracles::TorchRunner runner;
  oracles::TorchResult r = runner.run(*prog, script);
  nlohmann::json j;
  if (r.ok) {
    j = oracles::observables_json(*prog, r.obs);
  } else {
    j = {{"error", {{"kind", r.kind}, {"line", r.line}, {"message", r.message}}}};
  }
  std::cout << ir::json_text(j) << "\n";
  return r.ok ? 0 : (r.kind == "internal" || r.kind == "crash" || r.kind == "timeout" ? 2 : 1);
}

}  // namespace

void register_torch(Command& app, int* status) {
  auto o = std::make_shared<TorchOptionsCli>();
  auto* c = app.add_subcommand("torch", "print the PyTorch eager script of a program");
  c->add_option("program", o->path, "the .af program")->required();
  c->add_flag("--run", o->run, "run it through PyTorch (/usr/bin/python3) and print its observables as JSON");
  c->callback([o, status] { *status = torch_cmd(*o); });
}

}  // namespace af::tools
