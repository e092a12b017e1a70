// aliasfuzz dot PROGRAM.af --strategy S [--inject M] [--reorder P]
//               [--fusion F] [--out FILE.svg] [--text]
// A Graphviz picture of a schedule: nodes in execution order, dataflow
// edges solid, the strategy's added edges dashed red, update_aliases nodes
// and other inserted nodes shaded, regions as clusters. Without --out the
// DOT text goes to stdout; with --out FILE.EXT, /usr/bin/dot renders it
// (EXT: svg, png or pdf). --text prints the transformed program instead
// (.af text, with the order and regions as comments).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

#include "ir/analysis.h"
#include "schedulers/schedulers.h"
#include "tools/commands.h"
#include "tools/run_flags.h"

namespace af::tools {

namespace {

struct DotOptions {
  std::string path, out;
  run::SpelledSpec so{"eager"};
  bool text = false;
};

int dot(const DotOptions& o) {
  if (auto e = run::parse_config(o.so, nullptr)) {
    std::cerr << "aliasfuzz dot: " << *e << "\n";
    return 2;
  }
  std::string text;
  if (!read_file(o.path, &text)) return 2;
  auto prog = ir::parse(text);
  ir::Result<ir::Analysis> an = prog ? ir::analyze(*prog) : ir::Result<ir::Analysis>(prog.error());
  if (!an) {
    std::cerr << o.path << ":" << an.error().line << ": " << ir::kind_name(an.error().kind)
              << " error: " << an.error().message << "\n";
    return 2;
  }
  auto sc = schedulers::make_schedule(*prog, *an, o.so);
  if (!sc) {
    std::cerr << "aliasfuzz dot: " << sc.error().message << "\n";
    return 1;
  }
  if (o.text) {
    std::cout << schedulers::schedule_text(*sc);
    return 0;
  }
  const std::string d = schedulers::to_dot(*sc);
  if (o.out.empty()) {
    std::cout << d;
    return 0;
  }
  std::string fmt = "svg";
  auto dotpos = o.out.rfind('.');
  if (dotpos != std::string::npos) {
    std::string ext = o.out.substr(dotpos + 1);
    if (ext == "png" || ext == "pdf" || ext == "svg" || ext == "dot") fmt = ext;
  }
  if (fmt == "dot") {
    std::ofstream f(o.out);
    f << d;
    return f ? 0 : 2;
  }
  char tmpl[] = "/tmp/aliasfuzz-dot-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) {
    std::cerr << "aliasfuzz dot: cannot create a temporary file\n";
    return 2;
  }
  if (write(fd, d.data(), d.size()) != static_cast<ssize_t>(d.size())) {
    close(fd);
    unlink(tmpl);
    return 2;
  }
  close(fd);
  const std::string cmd = "/usr/bin/dot -T" + fmt + " -o '" + o.out + "' '" + tmpl + "'";
  int rc = std::system(cmd.c_str());
  unlink(tmpl);
  if (rc != 0) {
    std::cerr << "aliasfuzz dot: /usr/bin/dot failed (is graphviz installed?)\n";
    return 2;
  }
  return 0;
}

}  // namespace

void register_dot(Command& app, int* status) {
  auto o = std::make_shared<DotOptions>();
  auto* c = app.add_subcommand("dot", "Graphviz picture of a schedule (nodes, added edges, regions)");
  c->add_option("program", o->path, "the .af program")->required();
  flags::strategy(c, o->so.strategy, "default eager");
  flags::inject(c, o->so.inject, "");
  flags::reorder(c, o->so.reorder, "default program");
  flags::fusion(c, o->so.fusion, "default none");
  c->add_option("--out", o->out, "render to FILE.svg (or .png, .pdf, .dot) with /usr/bin/dot");
  c->add_flag("--text", o->text, "print the transformed program (.af) with its order and regions");
  c->callback([o, status] { *status = dot(*o); });
}

}  // namespace af::tools
