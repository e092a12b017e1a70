#!/usr/bin/python3
"""Batch runner for the PyTorch bridge (oracles/torch_bridge.cc).

Started once per batch by /usr/bin/python3 (the Python that has PyTorch).
Protocol, one JSON object per line:
  out: {"ready": true, "torch": VERSION}                      once, at start
  in:  {"id": ID, "code": SCRIPT}                             a script made by torch_script()
  out: {"id": ID, "returns": [...], "storages": {...}, "inputs": [...], "exec_s": S}
       (inputs: each input's sizes, strides and offset after the program)
    or {"id": ID, "error": {"kind": K, "line": N, "message": M}, "exec_s": S}
exec_s is the time of the program itself (storages and statements) in Python,
not the compilation of the script nor the conversion of the observables.
"""
import json
import os
import sys
import time
import warnings

MARKER = "# ---- the program ----\n"


def main():
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing a program prints may corrupt the protocol
    warnings.filterwarnings("ignore")
    import torch
    torch.set_num_threads(int(os.environ.get("AF_TORCH_THREADS", "1")))
    out.write(json.dumps({"ready": True, "torch": torch.__version__}) + "\n")
    out.flush()
    cache = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        rid = None
        exec_s = 0.0
        try:
            req = json.loads(line)
            rid = req.get("id")
            ns = {"__name__": "aliasfuzz_program"}
            code = req["code"]
            # The part before the marker is the same in every script:
            # compile it once (line numbers of the rest stay those of the
            # whole script, so error lines map back to the program).
            cut = code.find(MARKER)
            if cut >= 0:
                prelude = code[:cut]
                compiled = cache.get(prelude)
                if compiled is None:
                    compiled = cache[prelude] = compile(prelude, "<aliasfuzz>", "exec")
                exec(compiled, ns)
                body = "\n" * prelude.count("\n") + code[cut:]
                exec(compile(body, "<aliasfuzz>", "exec"), ns)
            else:
                exec(compile(code, "<aliasfuzz>", "exec"), ns)
            t0 = time.perf_counter()
            try:
                returns, storages, inputs = ns["_program"]()
                exec_s = time.perf_counter() - t0
                res = ns["_observe"](returns, storages, inputs)
            except Exception as e:  # PyTorch refused the program
                exec_s = time.perf_counter() - t0
                res = {"error": ns["_error"](e)}
        except Exception as e:  # a broken request or script
            res = {"error": {"kind": "internal", "line": 0, "message": "%s: %s" % (type(e).__name__, e)}}
        res["id"] = rid
        res["exec_s"] = exec_s
        out.write(json.dumps(res) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
