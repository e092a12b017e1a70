#!/usr/bin/env python3
"""What defining each program as a module file costs the external runner
(issue #56): the runner's program_module (write PRIVATE/NAME_N.py, import it
by spec_from_file_location) against the exec(compile(...)) it replaced, on
the torch scripts of generated programs, both in one run, alternating.
Not a test.
  bench/program_module_cost.py [PROGRAMS=200] [ROUNDS=3]
(needs ./aliasfuzz built: it writes the programs with `aliasfuzz gen` and
`aliasfuzz torch`)."""
import os, subprocess, sys, tempfile, time, types

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
af = os.environ.get("AF_BIN") or os.path.join(root, "bazel-bin/tools/aliasfuzz")
work = tempfile.mkdtemp()
subprocess.run([af, "gen", "--seed", "5", "--count", str(n), "--out", work], check=True, capture_output=True)
texts = []
for f in sorted(os.listdir(work)):
    if f.endswith(".af"):
        t = subprocess.run([af, "torch", os.path.join(work, f)], capture_output=True, text=True).stdout
        texts.append(t.replace('if __name__ == "__main__":', "if False:"))
sys.path.insert(0, os.path.join(root, "compilers"))
import external_runner as R  # noqa: E402
R._PRIVATE = tempfile.mkdtemp()
sys.dont_write_bytecode = True
import torch  # noqa: E402,F401  (imported once, as in the runner)


def by_exec(code):
    mod = types.ModuleType("aliasfuzz_program")
    sys.modules[mod.__name__] = mod
    exec(compile(code, "<aliasfuzz>", "exec"), mod.__dict__)


def by_file(code):
    R.forget_files()
    R.program_module(code, "aliasfuzz_program")


best = {}
for _ in range(rounds):
    for name, f in (("exec", by_exec), ("module file", by_file)):
        t0 = time.perf_counter()
        for code in texts:
            f(code)
        best[name] = min(best.get(name, 1e9), (time.perf_counter() - t0) / len(texts))
for name, s in best.items():
    print("%-12s %7.1f us per program" % (name, s * 1e6))
print("module file / exec: %.2fx (%d programs, best of %d)" % (best["module file"] / best["exec"], len(texts), rounds))
