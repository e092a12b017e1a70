// The program as a Python *function* of its inputs, for transforms that
// take a function (functorch's functionalize, thunder.jit): torch_script's
// `_program()` split into `_setup()` (storages with their exact initial
// values and the inputs as torch.as_strided views of them; returns
// `[inputs...], {storage name: storage}`) and `_fn(inputs...)` (the
// statements; returns the list of returned tensors). Calling `_setup()`
// twice gives two independent sets of storages with the same aliasing
// (inputs that share a storage share a fresh one), which is how a
// transformed function is run on fresh copies of the inputs.
#pragma once
#include <string>

#include "ir/program.h"

namespace af::oracles {

// `def _setup(): ...` and `def _fn(...): ...` as Python source, made from
// `script` (the text of torch_script(p)). Empty when the script does not
// have the expected shape.
std::string functional_form(const ir::Program& p, const std::string& script);

// torch_script(p) without its `if __name__ == "__main__":` entry point,
// followed by functional_form(p, ...): a module that defines _setup, _fn,
// _program, _observe and _error. Empty when the split fails.
std::string torch_function_module(const ir::Program& p);

}  // namespace af::oracles
