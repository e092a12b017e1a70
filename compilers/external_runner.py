#!/usr/bin/env python3
"""Batch runner for the external strategies (compilers/table.cc).

One long-lived process per Python: /usr/bin/python3 (Debian's PyTorch 1.13)
for `torch-functionalize`, the .venv-thunder Python (torch 2.9.1 and
lightning-thunder 0.2.6) for the others, a py: spec's own Python.
Which compiler a strategy is comes with each request, from the one table of
external strategies in compilers/table.cc: statements to run (`imports`)
and an expression in `fn` that gives the compiled callable (`compile`).
The working directory is on sys.path (after the installed packages), so a
py:MODULE:FUNCTION module beside the user's campaign is importable.

Protocol, one JSON object per line:
  out: {"ready": true, "torch": V, "thunder": V or null, "python": PATH}   once
  in:  {"id": ID, "strategy": S, "imports": STMTS, "compile": EXPR, "fallbacks": EXPR2, "code": MODULE}
       MODULE is oracles::torch_function_module(p): it defines _setup()
       (fresh storages and the inputs as views of them), _fn(inputs...)
       (the program; returns the list of returned tensors) and _observe.
  out: {"id": ID, "eager": OBS, "actual": OBS, "exec_s": S[, "fallbacks": [STR]]}
       (EXPR2, when not empty, is evaluated in `cfn`, the compiled callable,
       after the call: what the compiler handed back to eager PyTorch)
    or {"id": ID, "eager": OBS, "error": {"type": T, "message": M}}   the strategy raised
    or {"id": ID, "eager_error": {"type": T, "message": M}}           eager PyTorch raised
  A request with "recall": MODULE2 (format v1.4's --recall; MODULE2 is the
  module of the program's recall layout, ir/relayout.h: the same inputs in
  another alias layout) calls the compiled callable a second time, after a
  first call that returned, on MODULE2's _setup() inputs; eager runs _fn on
  another _setup() of MODULE2. The answer then has
  "recall": {"eager": OBS2, "actual": OBS2} or {"eager": OBS2, "error": E}
  (the second call raised) or {"eager_error": E} (eager refuses that layout).
  A request with "evidence": true or "ops" (issue #57, triage/evidence.h) also
  answers "frames": the compiler's frames of the exception the strategy
  raised (outermost first; the deepest __cause__), and "coverage": every
  function of the compiler (not the program, not Python's own library) that
  ran while compiling and calling, each as PATH:QUALNAME with PATH relative
  to site-packages (torch/_functorch/_aot_autograd/functional_utils.py);
  with "ops" (a compiler whose transform is C++) also the aten ops it
  dispatched, as aten:OP; and "producers": for each returned tensor the
  compiler function that first returned it (where a wrong output was
  made), or null.
  A request with "bisect": true (issue #57: where in torch.compile a wrong
  value is made) runs torch._inductor.compiler_bisector over the program
  instead: the compiled function (torch.compile(_fn), whose backend the
  bisector picks) is right when its observables equal eager's within 1e-3
  or it raises (an error is not the wrong value bisected); the answer is
  {"stage": TEXT}, the first backend that is wrong and the subsystem of it
  ("inductor: post_grad_passes #14 (decompose_auto_functionalized)",
  "aot_eager"), "" when every backend was right, or {"stage_error": M}
  (no bisector in this torch, eager raised).
  A request with "invalid": true carries a program the oracle rejects (the
  accepts-invalid class): when eager raises, the compiled fn still runs on
  fresh inputs and the answer has "eager_error" and "actual" (the compiler
  accepted it) or "eager_error" and "error" (it refused too).
    or {"id": ID, "unavailable": M}        the compiler's imports failed (ImportError)
    or {"id": ID, "unsupported": {"type", "message"}}  this torch lacks what the program needs
       (format v1.4's custom ops before torch 2.4): counted as unsupported, never a finding
    or {"id": ID, "internal": M}                                      a broken request
OBS is {"returns": [{"sizes", "values"}], "storages": {name: values},
"inputs": [{"sizes", "strides", "offset"}]}: the input tensors' geometry
after the call, what a compiler must replay of format v1.3's metadata ops;
a training program (format v1.4) adds "grads": [values or null] by input,
after its backward, which _call runs after the function (eager or compiled).
Eager runs _fn on the inputs of one _setup(); the strategy runs the
compiled _fn on the inputs of a second, independent _setup() (fresh
copies with the same aliasing), never on tensors eager mutated.

A run is the user's run (issue #56):
- Each program is a module imported from its own file (PRIVATE/
  aliasfuzz_program_N.py), as repro.py imports itself: inspect.getsourcefile
  finds it, so Dynamo traces _fn as it traces a function of a user's .py
  file (an exec'd function is wrapped in external_utils.wrap_inline, which
  takes the graph's inputs by position, not in order of first use).
- A verdict is a function of its program: Dynamo's caches are reset before
  each program; Inductor's cache folder is private to this process and its
  FX-graph and AOTAutograd caches are off, so no program is served another's
  artifact. AF_RUNNER_CACHE_DIR=DIR instead uses DIR with the caches on:
  the `stale-from-cache` history check runs a second process over the
  folder a first one filled.
"""
import gc
import importlib.util
import inspect
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
import types
import warnings
import weakref

# This process's private folder: the program files, and Inductor's cache
# unless AF_RUNNER_CACHE_DIR names a shared one (set in isolate_caches()).
_PRIVATE = None
_files = []  # the files of the request in hand (removed at the next one)
_count = 0

def _unwrap(e):
    # torch.compile wraps a backend's exception (BackendCompilerFailed:
    # "backend='inductor' raised:"); what decides unsupported or internal
    # is the compiler's own exception.
    while getattr(e, "inner_exception", None) is not None:
        e = e.inner_exception
    return e


def _err(e):
    e = _unwrap(e)
    msg = str(e).strip().splitlines()
    return {"type": type(e).__name__, "message": (msg[0] if msg else "")[:500]}


_STDLIB = os.path.dirname(os.__file__)
_HERE = os.path.abspath(__file__)


def _where(filename, packages):
    """PATH of PATH:QUALNAME, or None for a file that is not the compiler's:
    outside `packages` (the top-level modules its imports name, and torch),
    the program's own file, this runner, Python's library, <frozen ...>."""
    if filename.startswith("<") or _PRIVATE and filename.startswith(_PRIVATE):
        return None
    if os.path.abspath(filename) == _HERE:
        return None
    for marker in ("site-packages" + os.sep, "dist-packages" + os.sep):
        i = filename.rfind(marker)
        if i >= 0:
            path = filename[i + len(marker):]
            return path if path.split(os.sep, 1)[0] in packages else None
    if filename.startswith(_STDLIB + os.sep):
        return None
    parts = filename.split(os.sep)  # a py: compiler beside the campaign: from its package on
    for i, part in enumerate(parts):
        if part in packages or i == len(parts) - 1 and part[:-3] in packages:
            return "/".join(parts[i:])
    return None


def _packages(imports):
    """The top-level modules a strategy's imports name, and torch."""
    import ast
    out = {"torch"}
    for node in ast.walk(ast.parse(imports)):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module.split(".")[0])
    return out


def _frames(e, packages):
    """The compiler's frames of the innermost cause of e, outermost first."""
    seen = set()
    while id(e) not in seen:
        seen.add(id(e))
        nxt = e.__cause__ or e.__context__ or getattr(e, "inner_exception", None)
        if nxt is None or nxt.__traceback__ is None:
            break
        e = nxt
    out = []
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        path = _where(code.co_filename, packages)
        if path:
            out.append("%s:%s" % (path, getattr(code, "co_qualname", code.co_name)))
        tb = tb.tb_next
    return out


class _Coverage:
    """The compiler's functions that ran between start() and stop() (a
    'call' trace event per Python frame, no line events); with `ops` (a
    compiler whose transform is C++, functionalization) also the aten ops
    it dispatched, as aten:OP (aten:aten.sum.dim_IntList: an inverse of
    expand that sums)."""
    def __init__(self, imports, ops):
        self.codes = set()
        self.packages = _packages(imports)
        self.ops = set() if ops else None
        self.mode = None
        # Producers: for each tensor a compiler function returned, the
        # first that did (id -> (weakref, code)); set track = True to note them.
        self.track = False
        self.returned = {}
        self._mine = {}
        import torch
        self._tensor = torch.Tensor

    def _trace(self, frame, event, arg):
        code = frame.f_code
        self.codes.add(code)
        if self.track:
            mine = self._mine.get(code)
            if mine is None:
                mine = self._mine[code] = bool(code.co_flags & inspect.CO_OPTIMIZED) and \
                    _where(code.co_filename, self.packages) is not None
            if mine:
                frame.f_trace_lines = False
                return self._local
        return None

    def _local(self, frame, event, arg):
        if event == "return" and arg is not None:
            for t in (arg if isinstance(arg, (list, tuple)) else (arg,)):
                if isinstance(t, self._tensor):
                    old = self.returned.get(id(t))
                    if old is None or old[0]() is not t:
                        self.returned[id(t)] = (weakref.ref(t), frame.f_code)
        return None

    def producers(self, tensors):
        """The compiler function that first returned each of `tensors`
        (PATH:QUALNAME), None where none did."""
        out = []
        for t in tensors:
            rec = self.returned.get(id(t))
            code = rec[1] if rec is not None and rec[0]() is t else None
            out.append(None if code is None else "%s:%s" % (
                _where(code.co_filename, self.packages), getattr(code, "co_qualname", code.co_name)))
        return out

    def start(self):
        import threading
        if self.ops is not None:
            from torch.utils._python_dispatch import TorchDispatchMode
            seen = self.ops

            class _Ops(TorchDispatchMode):
                def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                    seen.add(str(func))
                    return func(*args, **(kwargs or {}))
            self.mode = _Ops()
            self.mode.__enter__()
        threading.settrace(self._trace)
        sys.settrace(self._trace)

    def stop(self):
        """Idempotent: the runner stops it before observing and again after."""
        import threading
        sys.settrace(None)
        threading.settrace(None)
        if self.mode is not None:
            self.mode.__exit__(None, None, None)
            self.mode = None

    def names(self):
        out = set("aten:" + op for op in self.ops or ())
        for code in self.codes:
            if not code.co_flags & inspect.CO_OPTIMIZED:
                continue  # a module's or a class body's import-time code: no one's fault
            path = _where(code.co_filename, self.packages)
            if path:
                out.add("%s:%s" % (path, getattr(code, "co_qualname", code.co_name)))
        return sorted(out)


def reset_dynamo():
    """A fresh Dynamo: no cache from an earlier program."""
    dynamo = sys.modules.get("torch._dynamo")
    if dynamo is not None:
        dynamo.reset()


def compile_fn(req, fn):
    """The compiled fn: the table entry's `compile` expression, evaluated
    after its `imports` (after reset_dynamo())."""
    ns = _imported(req["imports"])
    ns["fn"] = fn
    return eval(req["compile"], ns)


def _imported(imports):
    ns = {}
    exec(imports, ns)
    return ns


def _second_call(code, cfn, coverage=None):
    """The compiled callable called again, on the inputs of the recall
    layout, against eager on its own copy of them."""
    mod = program_module(code, "aliasfuzz_recall")
    setup, fn, observe, call = mod._setup, mod._fn, mod._observe, mod._call
    out = {}
    try:
        inputs, storages = setup()
        out["eager"] = observe(call(fn, inputs), storages, inputs)
    except Exception as e:
        return {"eager_error": _err(e)}
    inputs, storages = setup()
    if coverage:
        coverage.start()  # eager's second run is not the compiler's
    try:
        rets = call(cfn, inputs)
        if coverage:
            coverage.stop()  # reading the results is ours (_observe's aten ops are no suspects)
        out["actual"] = observe(rets, storages, inputs)
    except Exception as e:
        out["error"] = _err(e)
        if coverage:
            out["frames"] = _frames(e, coverage.packages)
        if os.environ.get("AF_EXTERNAL_TRACEBACK"):
            traceback.print_exc()
    if coverage:
        coverage.stop()
    return out


def isolate_caches():
    """Before torch is imported: this process's private folder, and
    Inductor's caches in it and off (or in AF_RUNNER_CACHE_DIR and on)."""
    global _PRIVATE
    _PRIVATE = tempfile.mkdtemp(prefix="aliasfuzz-runner-")
    import atexit
    atexit.register(shutil.rmtree, _PRIVATE, True)
    shared = os.environ.get("AF_RUNNER_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = shared or os.path.join(_PRIVATE, "inductor")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(shared or _PRIVATE, "triton")
    caches = "1" if shared else "0"
    os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = caches
    os.environ["TORCHINDUCTOR_AUTOGRAD_CACHE"] = caches


def program_module(code, name):
    """The program as a module imported from a file of its own, as a user's
    function in a .py file is (AOTAutograd treats a function of __main__
    otherwise, so the program is not __main__'s; repro.py imports itself
    under the same name). A fresh file per program: no line cache or code
    object of an earlier program is met."""
    global _count
    _count += 1
    if os.environ.get("AF_RUNNER_EXEC") == "1":
        # The runner before issue #56, kept for the before/after measure
        # (docs/real-compilers.md): the code exec'd, so that Dynamo wraps
        # _fn in wrap_inline; never for a verdict a finding is filed on.
        mod = types.ModuleType(name)
        exec(compile(code, "<aliasfuzz>", "exec"), mod.__dict__)
        sys.modules[name] = mod
        return mod
    path = os.path.join(_PRIVATE or tempfile.gettempdir(), "%s_%d.py" % (name, _count))
    with open(path, "w") as f:
        f.write(code)
    _files.append(path)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def forget_files():
    while _files:
        try:
            os.unlink(_files.pop())
        except OSError:
            pass


def _same(a, b, tol=1e-3):
    """Observables equal within tol (absolute and relative): the bisector's
    test. Loose on purpose: a fused kernel's rounding is not the fault."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        return abs(a - b) <= tol * (1 + abs(b))
    return a == b


def _stage(ns):
    """The torch.compile stage that makes the program's result differ from
    eager, by torch._inductor.compiler_bisector: backends eager (Dynamo
    alone), aot_eager, aot_eager_decomp_partition, inductor, then the
    subsystem and the application of it within the first wrong one."""
    try:
        from torch._inductor.compiler_bisector import CompilerBisector
    except ImportError:
        import torch
        return {"stage_error": "torch %s has no torch._inductor.compiler_bisector" % torch.__version__}
    import torch
    setup, fn, observe, call = ns["_setup"], ns["_fn"], ns["_observe"], ns["_call"]
    try:
        inputs, storages = setup()
        eager = observe(call(fn, inputs), storages, inputs)
    except Exception as e:
        return {"stage_error": "eager raised %s" % _err(e)["type"]}

    def right():
        reset_dynamo()
        inputs, storages = setup()
        try:
            return _same(observe(call(torch.compile(fn), inputs), storages, inputs), eager)
        except Exception:
            # Not the wrong value bisected: the crossref backend raises on
            # a fake tensor's mismatch, a pass switched off may not compile.
            return True

    r = CompilerBisector.do_bisect(right)
    reset_dynamo()
    if r is None:
        return {"stage": ""}
    text = r.backend
    if r.subsystem:
        text += ": " + r.subsystem
        if r.bisect_number is not None and r.debug_info != r.subsystem:
            text += " #%d" % r.bisect_number
        if r.debug_info and r.debug_info != r.subsystem:
            text += " (%s)" % " ".join(str(r.debug_info).split())[:160]
    return {"stage": text}


def handle(req):
    forget_files()  # the previous request's program files
    try:
        mod = program_module(req["code"], "aliasfuzz_program")
    except NotImplementedError as e:  # what the program needs is not in this torch (custom ops before 2.4)
        return {"unsupported": _err(e)}
    ns = mod.__dict__
    if req.get("bisect"):
        return _stage(ns)
    # _call runs a function on the inputs, then a training program's backward (format v1.4).
    setup, fn, observe, call = ns["_setup"], ns["_fn"], ns["_observe"], ns["_call"]
    res = {}
    try:
        inputs, storages = setup()
        res["eager"] = observe(call(fn, inputs), storages, inputs)
    except Exception as e:
        res["eager_error"] = _err(e)
        # A program the oracle accepts: eager's error is the answer. One it
        # rejects ("invalid"): does the compiler accept what eager refused?
        if not req.get("invalid"):
            return res
    try:  # a compiler that cannot even be imported is not installed, not a finding
        _imported(req["imports"])
    except ImportError as e:
        return {"unavailable": "%s: %s" % (type(e).__name__, e)}
    inputs, storages = setup()  # fresh storages, same aliasing
    reset_dynamo()
    coverage = _Coverage(req["imports"], req["evidence"] == "ops") if req.get("evidence") else None
    if coverage:
        coverage.start()
    t0 = time.perf_counter()
    cfn = None
    try:
        cfn = compile_fn(req, fn)
        if coverage:
            coverage.track = True  # which compiler function made each returned tensor
        rets = call(cfn, inputs)
        res["exec_s"] = time.perf_counter() - t0
        if coverage:
            coverage.track = False
            res["producers"] = coverage.producers(rets)
            coverage.stop()  # reading the results is ours (_observe's aten ops are no suspects)
        res["actual"] = observe(rets, storages, inputs)
    except Exception as e:
        res["exec_s"] = time.perf_counter() - t0
        res["error"] = _err(e)
        if coverage:
            res["frames"] = _frames(e, coverage.packages)
        if os.environ.get("AF_EXTERNAL_TRACEBACK"):
            traceback.print_exc()
    if coverage:
        coverage.stop()
    if req.get("recall") and "eager" in res and "actual" in res:
        res["recall"] = _second_call(req["recall"], cfn, coverage)
    if coverage:
        res["coverage"] = coverage.names()
    if req.get("fallbacks") and cfn is not None:
        try:
            res["fallbacks"] = [str(x) for x in eval(req["fallbacks"], {"cfn": cfn})]
        except Exception:
            pass  # the compiler keeps no such record for this program
    return res


def main():
    # A compiler that kills this process (a segfault in generated code) leaves
    # the Python stack of the crash on stderr: its finding's stderr tail.
    import faulthandler
    faulthandler.enable()
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing a program or Thunder prints may corrupt the protocol
    warnings.filterwarnings("ignore")
    sys.path.append(os.getcwd())
    sys.dont_write_bytecode = True  # no __pycache__ of the program files
    isolate_caches()
    import torch
    torch.set_num_threads(int(os.environ.get("AF_TORCH_THREADS", "1")))
    try:
        import thunder
        thunder_version = getattr(thunder, "__version__", "unknown")
    except Exception:
        thunder_version = None
    out.write(json.dumps({"ready": True, "torch": torch.__version__, "thunder": thunder_version,
                          "python": sys.executable}) + "\n")
    out.flush()
    n = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        rid = None
        try:
            req = json.loads(line)
            rid = req.get("id")
            res = handle(req)
        except Exception as e:
            res = {"internal": "%s: %s" % (type(e).__name__, e)}
        res["id"] = rid
        out.write(json.dumps(res) + "\n")
        out.flush()
        n += 1
        if n % 200 == 0:
            gc.collect()


if __name__ == "__main__":
    main()
