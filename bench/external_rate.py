"""In-process rate of an external strategy (issue #34 item 4), the
baseline a campaign worker is measured against: a warm Python that only
resets Dynamo, compiles and calls each program (`compile`), and the same
plus eager and observing the results, as compilers/external_runner.py
answers a request (`request`). Run by bench/external_rate.sh with the
strategy's Python; argv: PASS IMPORTS COMPILE WARM MODULE.py..., PASS one
of compile, request; the first WARM modules only warm the process up. Each pass is a process of its own with an empty Inductor
cache (Dynamo's reset keeps Inductor's caches, on disk and in memory: a
second pass over the same programs would only load them). Prints one JSON
line: programs and the pass's seconds."""
import json
import os
import shutil
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compilers"))
import external_runner  # noqa: E402  (its compile_fn and handle: the very code a campaign runs)

import torch  # noqa: E402

torch.set_num_threads(1)
which, imports, compile_expr, n_warm, paths = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
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


f = {"compile": compile_and_call, "request": request}[which]
cache = tempfile.mkdtemp(prefix="af_rate_")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
# Warm-up: the first compiles import the backend's modules. Other
# programs, so that nothing measured is in a cache.
warm, modules = modules[:n_warm], modules[n_warm:]
for code in warm:
    f(code)
t0 = time.perf_counter()
for code in modules:
    f(code)
seconds = time.perf_counter() - t0
shutil.rmtree(cache, ignore_errors=True)
print(json.dumps({"programs": len(modules), "seconds": seconds}))
