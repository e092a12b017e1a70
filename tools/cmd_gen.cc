// aliasfuzz gen: print generated programs, or write them as DIR/prog-K.af.
//
//   aliasfuzz gen [--seed S] [--count N] [--start K0] [--size K] [--max-rank R]
//                 [--max-numel M] [--weight OP=W]... [--out DIR]
//
// Program K of seed S is generate(S, K): the same on every machine. Without
// --seed a seed is drawn from the clock; the seed is always printed (a
// comment line in every program, and on stderr).
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "generate/generator.h"
#include "ir/text.h"
#include "tools/commands.h"

namespace af::tools {

namespace {

struct GenArgs {
  uint64_t seed = 0;
  bool seed_given = false;
  uint64_t count = 1, start = 0;
  std::string out;
  std::vector<std::string> weights;
  std::string format;
  fuzz::GenOptions o;
};

// The program text with a provenance comment after the header line.
std::string text_of(const ir::Program& p, uint64_t seed, uint64_t index) {
  std::string t = ir::print(p);
  const size_t nl = t.find('\n');
  return t.substr(0, nl + 1) + "# aliasfuzz gen --seed " + std::to_string(seed) + " (program " + std::to_string(index) +
         ")\n" + t.substr(nl + 1);
}

int run(GenArgs& a) {
  for (const std::string& w : a.weights)
    if (const std::string e = fuzz::set_op_weight(w, &a.o); !e.empty()) {
      std::cerr << "aliasfuzz gen: " << e << "\n";
      return 2;
    }
  if (const std::string e = fuzz::use_format(a.format, &a.o); !e.empty()) {
    std::cerr << "aliasfuzz gen: " << e << "\n";
    return 2;
  }
  if (a.o.size < 0 || a.o.max_rank < 1 || a.o.max_rank > 6 || a.o.max_numel < 1 || a.o.max_numel > (1 << 22)) {
    std::cerr << "aliasfuzz gen: need --size >= 0, 1 <= --max-rank <= 6, 1 <= --max-numel <= 4194304\n";
    return 2;
  }
  if (!a.seed_given)
    a.seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ULL;
  std::cerr << "aliasfuzz gen: seed " << a.seed << ", programs " << a.start << ".." << a.start + a.count << "\n";
  if (!a.out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.out, ec);
    if (ec) {
      std::cerr << "aliasfuzz gen: cannot create " << a.out << ": " << ec.message() << "\n";
      return 2;
    }
  }
  for (uint64_t k = a.start; k < a.start + a.count; ++k) {
    const std::string text = text_of(fuzz::generate(a.seed, k, a.o), a.seed, k);
    if (a.out.empty()) {
      if (k != a.start) std::cout << "\n";
      std::cout << text;
    } else {
      const std::string path = a.out + "/prog-" + std::to_string(k) + ".af";
      std::ofstream f(path, std::ios::binary);
      f << text;
      if (!f) {
        std::cerr << "aliasfuzz gen: cannot write " << path << "\n";
        return 2;
      }
    }
  }
  if (!a.out.empty()) std::cout << "seed " << a.seed << ": wrote " << a.count << " programs to " << a.out << "\n";
  return 0;
}

}  // namespace

void register_gen(Command& app, int* status) {
  auto a = std::make_shared<GenArgs>();
  auto* c = app.add_subcommand("gen", "print generated programs (or write DIR/prog-K.af)");
  c->add_option("--seed", a->seed, "campaign seed (default: from the clock; printed)")
      ->check(unsigned_integer)
      ->each([a](const std::string&) { a->seed_given = true; });
  c->add_option("--count", a->count, "number of programs (default 1)");
  c->add_option("--start", a->start, "index of the first program (default 0)");
  c->add_option("--size", a->o.size, "statements per program (default 12)");
  c->add_option("--max-rank", a->o.max_rank, "largest tensor rank (default 3)");
  c->add_option("--max-numel", a->o.max_numel, "largest storage / tensor (default 64)");
  c->add_option("--weight", a->weights, "op weight multiplier OP=W (repeatable; 0 disables an op)");
  c->add_option("--format", a->format, fuzz::kFormatHelp);
  c->add_option("--invalid-rate", a->o.invalid_rate,
                "fraction of programs made ones eager PyTorch rejects (as `fuzz --invalid-rate`; default 0)")
      ->range(0.0, 1.0);
  c->add_option("--out", a->out, "write DIR/prog-K.af instead of printing");
  c->callback([a, status] { *status = run(*a); });
}

}  // namespace af::tools
