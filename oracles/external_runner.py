#!/usr/bin/env python3
"""Batch runner for the external strategies (oracles/external.cc).

One long-lived process per Python: /usr/bin/python3 (Debian's PyTorch 1.13)
for `torch-functionalize`, the .venv-thunder Python (torch 2.9.1 and
lightning-thunder 0.2.6) for `thunder`, `thunder-dataflow` and
`thunder-no-alias-updates`.

Protocol, one JSON object per line:
  out: {"ready": true, "torch": V, "thunder": V or null, "python": PATH}   once
  in:  {"id": ID, "strategy": S, "code": MODULE}
       MODULE is oracles::torch_function_module(p): it defines _setup()
       (fresh storages and the inputs as views of them), _fn(inputs...)
       (the program; returns the list of returned tensors) and _observe.
  out: {"id": ID, "eager": OBS, "actual": OBS, "exec_s": S}
    or {"id": ID, "eager": OBS, "error": {"type": T, "message": M}}   the strategy raised
    or {"id": ID, "eager_error": {"type": T, "message": M}}           eager PyTorch raised
    or {"id": ID, "internal": M}                                      a broken request
OBS is {"returns": [{"sizes", "values"}], "storages": {name: values}}.
Eager runs _fn on the inputs of one _setup(); the strategy runs the
transformed _fn on the inputs of a second, independent _setup() (fresh
copies with the same aliasing), never on tensors eager mutated.
"""
import gc
import json
import os
import sys
import time
import traceback
import warnings

THUNDER_OPTIONS = {
    "thunder": {},
    "thunder-dataflow": {"fusion_type": "dataflow"},
    "thunder-no-alias-updates": {"skip_inplace_alias_updates": True},
}


def _err(e):
    msg = str(e).strip().splitlines()
    return {"type": type(e).__name__, "message": (msg[0] if msg else "")[:500]}


def transform(strategy, fn):
    if strategy == "torch-functionalize":
        from functorch.experimental import functionalize
        return functionalize(fn)
    if strategy in THUNDER_OPTIONS:
        import thunder
        return thunder.jit(fn, **THUNDER_OPTIONS[strategy])
    if strategy == "eager":  # the runner's own control
        return fn
    raise ValueError("unknown external strategy %r" % strategy)


def handle(req):
    ns = {"__name__": "aliasfuzz_program"}
    exec(compile(req["code"], "<aliasfuzz>", "exec"), ns)
    setup, fn, observe = ns["_setup"], ns["_fn"], ns["_observe"]
    res = {}
    try:
        inputs, storages = setup()
        eager = observe(list(fn(*inputs)), storages)
    except Exception as e:
        return {"eager_error": _err(e)}
    res["eager"] = eager
    inputs, storages = setup()  # fresh storages, same aliasing
    t0 = time.perf_counter()
    try:
        rets = transform(req["strategy"], fn)(*inputs)
        res["exec_s"] = time.perf_counter() - t0
        res["actual"] = observe(list(rets), storages)
    except Exception as e:
        res["exec_s"] = time.perf_counter() - t0
        res["error"] = _err(e)
        if os.environ.get("AF_EXTERNAL_TRACEBACK"):
            traceback.print_exc()
    return res


def main():
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing a program or Thunder prints may corrupt the protocol
    warnings.filterwarnings("ignore")
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
