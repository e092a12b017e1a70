// Format v1 text: parsing (syntax and names) and canonical printing.
// parse(print(p)) == p for every program.
#pragma once
#include <string>

#include "ir/error.h"
#include "ir/program.h"

namespace af::ir {

struct Limits {
  int max_rank = 6;
  int64_t max_numel = int64_t{1} << 22;
  int max_ops = 10000;
  // Elements of all storages together, declared and made by ops (4 bytes
  // each: 256 MiB), so that no program can exhaust a worker's memory.
  int64_t max_total_numel = int64_t{1} << 26;
  // Element operations of the whole program, estimated before it runs
  // (ir::statement_work, docs/format.md "Limits"): every valid program then
  // runs in a few seconds on the interpreter, and an enormous one is a
  // `limit` error at the statement that crosses the budget, not a hang.
  int64_t max_work = int64_t{1} << 25;
};

// Parses the text; checks syntax, names and argument types. Geometry,
// shapes and overlap are checked by analyze() (analysis.h).
Result<Program> parse(const std::string& text, const Limits& limits = Limits());
std::string print(const Program& p);
// An op as the text writes it (view_dtype is spelled view(x, i32)): the
// printer's and every error message's name for it.
const char* op_spelling(OpKind k);
// Shortest text that reads back as the same double, always with '.' or 'e'.
std::string format_number(double v);
std::string format_float32(float v);
// s with every byte that is not part of valid UTF-8 shown as the text \xNN
// (and, with escape_controls, every control character but tab): safe for
// any JSON writer and any terminal.
std::string printable_utf8(const std::string& s, bool escape_controls = true);

}  // namespace af::ir
