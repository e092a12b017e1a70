"""In-process rate of an external strategy (issue #34 item 4), the
baseline a campaign worker is measured against: a warm Python that only
resets Dynamo, compiles and calls each program (`compile`), and the same
plus eager and observing the results, as compilers/external_runner.py
answers a request (`request`). Run by bench/external_rate.sh with the
strategy's Python; argv: IMPORTS COMPILE MODULE.py...
Prints one JSON line: programs, and seconds per phase."""
import json
import os
import sys
import time
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compilers"))
import external_runner  # noqa: E402  (its compile_fn and handle: the very code a campaign runs)

import torch  # noqa: E402

torch.set_num_threads(1)
imports, compile_expr, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
modules = [open(p).read() for p in paths]


def load(code):
    mod = types.ModuleType("aliasfuzz_program")
    sys.modules[mod.__name__] = mod
    exec(compile(code, "<aliasfuzz>", "exec"), mod.__dict__)
    return mod.__dict__


def compile_and_call(code):
    ns = load(code)
    inputs, _ = ns["_setup"]()
    try:
        external_runner.compile_fn({"imports": imports, "compile": compile_expr}, ns["_fn"])(*inputs)
    except Exception:
        pass  # a refusal costs its compile too


def request(code):
    external_runner.handle({"imports": imports, "compile": compile_expr, "code": code})


out = {"programs": len(modules)}
for name, f in (("compile_s", compile_and_call), ("request_s", request)):
    for code in modules[:3]:  # warm: first compiles import the backend's modules
        f(code)
    t0 = time.perf_counter()
    for code in modules:
        f(code)
    out[name] = time.perf_counter() - t0
print(json.dumps(out))
