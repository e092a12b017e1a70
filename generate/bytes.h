// libFuzzer inputs <-> programs. An input is either the text of a program
// (it starts with "aliasfuzz 1"; corpus files are inputs as they are) or
// decoder bytes, turned into a valid program by generate_from_bytes. So a
// libFuzzer crash becomes an .af case, and an .af case is a libFuzzer input.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "ir/error.h"
#include "ir/program.h"

namespace af::fuzz {

bool is_text_input(const uint8_t* data, size_t size);
// The program of an input: text is parsed and validated (and may be an
// error); bytes always decode to a valid program.
ir::Result<ir::Program> decode_input(const uint8_t* data, size_t size);
// Seed for the run settings (reorder seed, fusion policy) of an input.
uint64_t input_seed(const uint8_t* data, size_t size);

}  // namespace af::fuzz
