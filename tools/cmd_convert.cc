// aliasfuzz convert: a libFuzzer input (a crash file, a corpus entry) as
// an .af program. The other way needs no converter: an .af file is itself
// a valid input of both libFuzzer targets (see generate/bytes.h).
#include <iostream>

#include "generate/bytes.h"
#include "check/files.h"
#include "ir/text.h"
#include "tools/commands.h"

namespace af::tools {

namespace {

struct ConvertArgs {
  std::string input, out;
};

int run(const ConvertArgs& a) {
  std::string data;
  if (!read_file(a.input, &data)) return 2;
  const auto* d = reinterpret_cast<const uint8_t*>(data.data());
  auto p = fuzz::decode_input(d, data.size());
  if (!p) {
    std::cerr << a.input << ":" << p.error().line << ": " << ir::kind_name(p.error().kind)
              << " error: " << p.error().message << "\n";
    return 2;
  }
  const std::string text = "# decoded from libFuzzer input " + a.input + " (" +
                           (fuzz::is_text_input(d, data.size()) ? "text" : "decoder bytes") + ")\n" + ir::print(*p);
  if (a.out.empty())
    std::cout << text;
  else
    fuzz::write_atomic(a.out, text);
  return 0;
}

}  // namespace

void register_convert(Command& app, int* status) {
  auto a = std::make_shared<ConvertArgs>();
  auto* c = app.add_subcommand("convert", "turn a libFuzzer input into an .af program");
  c->add_option("input", a->input, "a libFuzzer input (bytes or .af text)")->required();
  c->add_option("--out", a->out, "write the .af here instead of stdout");
  c->callback([a, status] { *status = run(*a); });
}

}  // namespace af::tools
