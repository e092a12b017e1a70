

# ---- what repro.py does with the data above (aliasfuzz: triage/repro_main.py, tested by
# triage/repro_main_test.py): run eager and the compiler, compare, print the verdict.
def _agree(a, e):
    if isinstance(a, str) or isinstance(e, str):
        a, e = float(a), float(e)
    if e != e:
        return a != a
    if math.isinf(e):
        return a == e
    return abs(a - e) <= 1e-5 + 1e-5 * abs(e)


def _names(obs):
    # the inputs' final geometry (format v1.3): what the caller holds after the call
    # and a training program's gradients (format v1.4), by input
    return (["return %d" % i for i in range(len(obs["returns"]))] + list(obs["storages"].keys()) +
            ["input " + n for n in INPUT_NAMES] +
            (["grad " + n for n in INPUT_NAMES] if obs.get("grads") is not None else []))


def _get(obs, name):
    """One observable: {"sizes": shape (returns; None for storages), "values": [...]},
    or for an input {"geometry": {"sizes", "strides", "offset"}}."""
    if obs is None:
        return None
    if name.startswith("input "):
        i, ins = INPUT_NAMES.index(name[6:]), obs.get("inputs") or []
        return {"geometry": ins[i]} if i < len(ins) else None
    if name.startswith("grad "):  # {"grad": values, or None when the input has no gradient}
        i, grads = INPUT_NAMES.index(name[5:]), obs.get("grads")
        return {"grad": grads[i]} if grads is not None and i < len(grads) else None
    if name.startswith("return "):
        i = int(name.split()[1])
        return obs["returns"][i] if i < len(obs["returns"]) else None
    v = obs["storages"].get(name)
    return None if v is None else {"sizes": None, "values": v}


def _first_diff(a, e):
    """Where observable a first differs from e: ("shape", a's, e's), ("count", ...) or (index, a's, e's)."""
    if a is None or e is None:
        return None
    if "grad" in a or "grad" in e:
        ga, ge = a.get("grad"), e.get("grad")
        if ga is None or ge is None:
            return None if ga is None and ge is None else ("gradient", _fmt(a), _fmt(e))
        a, e = {"sizes": None, "values": ga}, {"sizes": None, "values": ge}
    if "geometry" in a or "geometry" in e:
        # sizes and offset exactly, strides of the dims of size > 1 (aliasfuzz's rule)
        ga, ge = a.get("geometry"), e.get("geometry")
        same = ga is not None and ge is not None and list(ga["sizes"]) == list(ge["sizes"]) and \
            ga["offset"] == ge["offset"] and len(ga["strides"]) == len(ge["strides"]) and \
            all(n <= 1 or x == y for n, x, y in zip(ge["sizes"], ga["strides"], ge["strides"]))
        return None if same else ("geometry", _geometry(ga), _geometry(ge))
    if a["sizes"] is not None and e["sizes"] is not None and list(a["sizes"]) != list(e["sizes"]):
        return ("shape", list(a["sizes"]), list(e["sizes"]))
    if a.get("dtype") != e.get("dtype"):
        return ("dtype", a.get("dtype") or "f32", e.get("dtype") or "f32")
    exact = e.get("dtype") in ("i32", "i64", "f64")  # format v1.5: integers and doubles, bit for bit (NaNs as "nan")
    a, e = a["values"], e["values"]
    if len(a) != len(e):
        return ("count", len(a), len(e))
    for i, (x, y) in enumerate(zip(a, e)):
        if not (x == y if exact else _agree(x, y)):
            return (i, x, y)
    return None


def _geometry(g):
    if g is None:
        return "(unknown)"
    return "sizes %s strides %s offset %d" % (list(g["sizes"]), list(g["strides"]), g["offset"])


def _fmt(o, limit=24):
    if o is None:
        return "(unknown)"
    if "geometry" in o:
        return _geometry(o["geometry"])
    if "grad" in o:
        if o["grad"] is None:
            return "(no gradient)"
        o = {"sizes": None, "values": o["grad"]}
    v = o["values"]
    s = ", ".join("%.8g" % float(x) for x in v[:limit])
    s = "[" + s + (", ... (%d values)" % len(v) if len(v) > limit else "") + "]"
    return s if o["sizes"] is None else s + " (shape %s)" % list(o["sizes"])


def _rerun_aliasfuzz():
    """Runs aliasfuzz's own strategy on the program again (`aliasfuzz run
    --json`); None when no aliasfuzz binary is found ($AF_BIN, the one that
    wrote this script, `aliasfuzz` on PATH)."""
    import json, os, shutil, subprocess, tempfile
    exe = os.environ.get("AF_BIN") or (AF_BIN if AF_BIN and os.path.exists(AF_BIN) else shutil.which("aliasfuzz"))
    if not exe:
        return None
    fd, path = tempfile.mkstemp(suffix=".af")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(AF_PROGRAM)
        out = subprocess.run([exe, "run", path, "--json"] + FINDING["flags"].split(),
                             capture_output=True, text=True, timeout=600)
        runs = json.loads(out.stdout).get("runs") or []
        return runs[0] if runs else None
    except Exception as e:
        print("could not re-run aliasfuzz (%s): %s" % (exe, e))
        return None
    finally:
        os.unlink(path)


def _thunder_trace(cfn):
    """Thunder's final computation trace(s) of the last call, as text (None
    for other compilers): thunder.jit keeps them per function, thunderfx
    per Dynamo subgraph."""
    thunder = sys.modules.get("thunder")
    if thunder is None or cfn is None:
        return None
    try:
        if isinstance(getattr(type(cfn), "last_traces", None), property):
            traces = cfn.last_traces
        else:
            traces = thunder.last_traces(cfn)[-1:]
        return "\n".join(str(t) for t in traces) or None
    except Exception:
        return None


def _this_file_as_module():
    """This file imported as the module `aliasfuzz_program` (its main block
    does not run then): the program's functions as a user's module has them."""
    import importlib.util, os
    spec = importlib.util.spec_from_file_location("aliasfuzz_program", os.path.abspath(__file__))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["aliasfuzz_program"] = mod
    spec.loader.exec_module(mod)
    return mod


def _second_call(cfn, label):
    """--recall: the compiled function called again, on the program's inputs in
    the recall layout (COMPILER["recall"]), against eager on its own copy of
    them. True when the two differ (or the compiled call raised)."""
    import types
    mod = types.ModuleType("aliasfuzz_recall")  # its _setup and eager _fn only: a plain module serves
    exec(compile(COMPILER["recall"], "<aliasfuzz-recall>", "exec"), mod.__dict__)
    print("\nsecond call of the same compiled function, on the inputs moved %s:" % COMPILER["recall_direction"])
    try:
        inputs, storages = mod._setup()
        eager2 = mod._observe(mod._call(mod._fn, inputs), storages, inputs)
    except Exception as e:
        print("  PyTorch eager raised on that layout: %s: %s (nothing to compare)" % (type(e).__name__, e))
        return False
    inputs, storages = mod._setup()
    try:
        compiled2 = mod._observe(mod._call(cfn, inputs), storages, inputs)
    except Exception as e:
        print("  %s raised: %s: %s" % (label, type(e).__name__, e))
        return True
    diverged = False
    for name in _names(eager2):
        eag, act = _get(eager2, name), _get(compiled2, name)
        d = _first_diff(act, eag)
        diverged = diverged or d is not None
        print("%s%s" % (name, "   <-- DIVERGES" if d is not None else ""))
        print("  PyTorch eager (this run)   : %s" % _fmt(eag))
        print("  %-27s: %s" % (label, _fmt(act)))
    return diverged


def main():
    strategy = FINDING["strategy"] or "mutant"
    label = strategy + ("+" + FINDING["inject"] if FINDING["inject"] else "")
    print("aliasfuzz repro of bucket %s" % FINDING["bucket"])
    print("spec: %s" % FINDING["flags"])
    try:
        returns, storages, inputs = _program()
        if _BACKWARD is not None:  # a training program (format v1.4): its gradients are observed too
            _backward(returns, _BACKWARD)
        eager = _observe(returns, storages, inputs)
    except Exception as e:  # PyTorch refused the program
        print("PyTorch eager raised: %s" % (_error(e),))
        if not FINDING["eager_rejects"]:
            return 2
        eager = None  # a program eager rejects: the finding is what the compiler does with it
    actual = STRATEGY_OBSERVABLES
    functional = None
    if FUNCTIONALIZE and COMPILER is None:
        try:
            from functorch.experimental import functionalize
            inputs, storages = _setup()
            rets = functionalize(_fn)(*inputs)
            functional = _observe(list(rets), storages, inputs)
        except Exception as e:
            print("functorch.experimental.functionalize raised: %s: %s" % (type(e).__name__, e))
    compiled = cfn = None
    if COMPILER is not None:
        # The real compiler, as aliasfuzz's table of external strategies
        # runs it: the compiled _fn called on fresh storages with the same
        # aliasing (never on tensors eager mutated).
        try:
            import os, warnings
            warnings.filterwarnings("ignore")
            sys.path.append(os.getcwd())  # a py:MODULE:FUNCTION module beside this script
            ns = {}
            exec(COMPILER["imports"], ns)
            # _setup and _fn are this file's own top-level functions, imported
            # from this file as a module (not __main__'s), as the campaign's
            # runner imports the program's file (compilers/external_runner.py)
            # and as a user's function in a .py file is.
            prog = _this_file_as_module()
            ns["fn"] = prog._fn
            inputs, storages = prog._setup()
            cfn = eval(COMPILER["compile"], ns)
            compiled = _observe(prog._call(cfn, inputs), storages, inputs)  # and a training program's backward
            thunder = sys.modules.get("thunder")
            print("%s: %s (torch %s%s)" % (label, COMPILER["compile"], torch.__version__,
                                          ", thunder %s" % getattr(thunder, "__version__", "?") if thunder else ""))
        except Exception as e:
            print("%s raised: %s: %s" % (COMPILER["compile"], type(e).__name__, e))
        if compiled is not None:
            actual = compiled
        trace = _thunder_trace(cfn)
        if trace:
            print("\n%s: the final trace of the run above (thunder.last_traces):\n%s" % (label, trace))
    if eager is None:
        if compiled is None:
            print("%s refuses it too: the finding no longer reproduces" % label)
            return 0
        print("DIVERGENCE: %s runs a program eager PyTorch rejects (the oracle's error kind: %s)" % (
            label, FINDING["eager_rejects"]))
        return 1
    mm = FINDING["mismatch"]
    print()
    for name in _names(EXPECTED):
        exp, eag = _get(EXPECTED, name), _get(eager, name)
        act = _get(actual, name)
        # External strategies are compared with eager PyTorch of this Python.
        ref = eag if COMPILER is not None else exp
        diverges = (act is not None and _first_diff(act, ref) is not None) or (
            act is None and mm is not None and mm["observable"] == name)
        print("%s%s" % (name, "   <-- DIVERGES" if diverges else ""))
        print("  expected (aliasfuzz oracle): %s" % _fmt(exp))
        print("  PyTorch eager (this run)   : %s" % _fmt(eag))
        if act is not None:
            print("  %-27s: %s" % (label, _fmt(act)))
        elif mm is not None and mm["observable"] == name:
            print("  %-27s: [%d] = %s (first mismatch; other values not recorded)" % (label, mm["index"], mm["actual"]))
        d = _first_diff(eag, exp)
        if d is not None:
            print("  NOTE: PyTorch eager differs from the oracle at %s" % (d,))
        if functional is not None:
            print("  functionalize              : %s" % _fmt(_get(functional, name)))
    print()
    if functional is not None:
        diffs = [(n, _first_diff(_get(functional, n), _get(eager, n))) for n in _names(eager)]
        diffs = [(n, d) for n, d in diffs if d is not None]
        if diffs:
            for n, d in diffs:
                print("functionalize DIFFERS from eager: %s[%s]: functionalized %s, eager %s" % (n, d[0], d[1], d[2]))
        else:
            print("functionalize agrees with eager on every observable")
    if compiled is not None:
        diffs = [(n, _first_diff(_get(compiled, n), _get(eager, n))) for n in _names(eager)]
        diffs = [(n, d) for n, d in diffs if d is not None]
        if diffs:
            for n, d in diffs:
                print("%s DIFFERS from eager: %s[%s]: %s %s, eager %s" % (label, n, d[0], label, d[1], d[2]))
        else:
            print("%s agrees with eager on every observable" % label)
    # The verdict, from the compiler run just now: a real compiler against
    # eager PyTorch of this Python; aliasfuzz's own strategies re-run through
    # `aliasfuzz run`; the recorded result only when neither can run here.
    if COMPILER is not None:
        if compiled is None:
            print("DIVERGENCE: %s raised (see above)" % label)
            return 1
        diverged = any(_first_diff(_get(compiled, n), _get(eager, n)) is not None for n in _names(eager))
        if not diverged and COMPILER.get("recall"):
            if _second_call(cfn, label):
                print("DIVERGENCE: %s differs from eager PyTorch on its second call, with the inputs moved %s "
                      "(the first call agrees)" % (label, COMPILER["recall_direction"]))
                return 1
        print("DIVERGENCE: %s differs from eager PyTorch (see above)" % label if diverged else
              "%s now agrees with eager PyTorch: the finding no longer reproduces" % label)
        return 1 if diverged else 0
    run = _rerun_aliasfuzz()
    if run is not None:
        if run.get("agree"):
            print("aliasfuzz run %s: agrees now: the finding no longer reproduces" % FINDING["flags"])
            return 0
        m = run.get("first_mismatch") or {}
        op = m.get("first_diverging_op")
        if op:  # checked mode named the first statement that differs
            print("DIVERGENCE (aliasfuzz run %s, just now): the checks report statement %s (%s, line %s) first, "
                  "standing for source statement %s; %s elements differ" % (
                      FINDING["flags"], op.get("stmt"), op.get("op"), op.get("line"), op.get("source_stmt"),
                      op.get("count")))
            return 1
        print("DIVERGENCE (aliasfuzz run %s, just now): %s[%s] expected %s, %s produced %s%s" % (
            FINDING["flags"], m.get("observable"), m.get("index"), m.get("expected"), label, m.get("actual"),
            (": " + m["what"]) if m.get("what") else ""))
        return 1
    print("(aliasfuzz not found: the verdict below is the one recorded when the finding was made)")
    if mm is not None:
        if mm.get("what"):
            print("DIVERGENCE: %s under %s: %s" % (mm["observable"], label, mm["what"]))
        else:
            print("DIVERGENCE: %s[%d] expected %s, %s produced %s" % (
                mm["observable"], mm["index"], mm["expected"], label, mm["actual"]))
        return 1
    if FINDING["error"]:
        print("DIVERGENCE: %s failed: %s" % (label, FINDING["error"]))
        return 1
    return 0


def _phase(phase):
    """One process of a stale-from-cache finding (COMPILER["across_processes"]):
    "first" compiles and runs the program in its own layout, "second" the
    recall layout's inputs, over the compiler cache folder AF_RUNNER_CACHE_DIR
    names (the script's prologue turns the caches on there). Exit 1 when
    the second diverges from eager PyTorch (or raises)."""
    import os, types, warnings
    warnings.filterwarnings("ignore")
    sys.path.append(os.getcwd())
    ns = {}
    exec(COMPILER["imports"], ns)
    prog = _this_file_as_module()
    ns["fn"] = prog._fn
    cfn = eval(COMPILER["compile"], ns)
    if phase == "first":
        inputs, storages = prog._setup()
        _observe(prog._call(cfn, inputs), storages, inputs)
        print("first process: compiled and ran the program (inputs %s) with the compiler cache in %s" % (
            "apart" if COMPILER["recall_direction"] == "together" else "together", os.environ["AF_RUNNER_CACHE_DIR"]))
        return 0
    mod = types.ModuleType("aliasfuzz_recall")
    exec(compile(COMPILER["recall"], "<aliasfuzz-recall>", "exec"), mod.__dict__)
    inputs, storages = mod._setup()
    eager = mod._observe(mod._call(mod._fn, inputs), storages, inputs)
    inputs, storages = mod._setup()
    try:
        compiled = mod._observe(mod._call(cfn, inputs), storages, inputs)
    except Exception as e:
        print("  the compiled function raised: %s: %s" % (type(e).__name__, e))
        return 1
    diverged = False
    for name in _names(eager):
        d = _first_diff(_get(compiled, name), _get(eager, name))
        if d is not None:
            diverged = True
            print("  %s DIVERGES: eager %s, compiled %s" % (name, _fmt(_get(eager, name)), _fmt(_get(compiled, name))))
    if not diverged:
        print("  agrees with eager PyTorch on every observable")
    return 1 if diverged else 0


def _across_processes():
    """A stale-from-cache finding: the recall layout compiled in a new
    process over the compiler cache folder a first process left compiling
    the program diverges, where a fresh folder does not. This script runs
    itself three times (phases above) and judges by the second and third."""
    import os, subprocess, tempfile
    label = FINDING["strategy"]
    print("aliasfuzz repro of bucket %s: %s across processes sharing a compiler cache folder" % (
        FINDING["bucket"], COMPILER["compile"]))
    def child(phase, cache):
        env = dict(os.environ, ALIASFUZZ_REPRO_PHASE=phase, AF_RUNNER_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, os.path.abspath(__file__)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace")
        print(out.stdout.rstrip())
        return out.returncode
    shared = tempfile.mkdtemp(prefix="aliasfuzz-cache-")
    if child("first", shared) != 0:
        print("the first process failed: nothing to judge")
        return 2
    print("second process, over that folder, on the inputs moved %s:" % COMPILER["recall_direction"])
    stale = child("second", shared)
    print("a third process, with a fresh cache folder, on the same inputs:")
    fresh = child("second", tempfile.mkdtemp(prefix="aliasfuzz-cache-"))
    if stale == 1 and fresh == 0:
        print("DIVERGENCE: %s serves what an earlier process left in its cache: the second process diverges "
              "from eager PyTorch, a fresh cache folder agrees (stale-from-cache)" % label)
        return 1
    if stale == 1:
        print("%s diverges with a fresh cache folder too: the layout's own bug, not the cache's" % label)
        return 1
    print("%s agrees over the shared cache folder: the finding no longer reproduces" % label)
    return 0


def _crash_check():
    """A finding whose compiler killed the Python process running it (the
    campaign saw the process die): this script runs itself again in a child
    process (main() as above) and judges by how the child ends, so that the
    crash is reported, with the child's last stderr lines, instead of ending
    this script too."""
    import os, signal, subprocess
    label = FINDING["strategy"]
    print("aliasfuzz repro of bucket %s: %s killed the Python process running it in the campaign (%s)" % (
        FINDING["bucket"], COMPILER["compile"], FINDING["error"]))
    print("running this script again in a child process (%s -X faulthandler %s) ..." % (sys.executable, __file__))
    sys.stdout.flush()
    # (-X faulthandler: a crash prints the Python stack it happened under)
    child = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__)],
                           env=dict(os.environ, ALIASFUZZ_REPRO_CHILD="1"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    print(child.stdout, end="")
    tail = "\n".join(child.stderr.rstrip().splitlines()[-40:])
    if child.returncode < 0:
        try:
            how = "signal %d (%s)" % (-child.returncode, signal.Signals(-child.returncode).name)
        except ValueError:
            how = "signal %d" % -child.returncode
    elif child.returncode not in (0, 1, 2):
        how = "exit status %d" % child.returncode
    else:
        print("the child ended normally (exit %d): %s no longer kills the process running it; "
              "the finding (a crash) no longer reproduces" % (child.returncode, label))
        return 0
    print("the child's last stderr lines:\n%s" % (tail or "(none)"))
    print("DIVERGENCE: the Python process running %s died: %s; eager PyTorch %s" % (
        COMPILER["compile"], how, "raises a %s error on the program" % FINDING["eager_rejects"]
        if FINDING["eager_rejects"] else "runs the program"))
    return 1


if __name__ == "__main__":
    # CRASH: the finding is a crash of the compiler's process (see _crash_check);
    # across_processes: a history across processes (see _across_processes).
    _os_env = __import__("os").environ
    if _os_env.get("ALIASFUZZ_REPRO_PHASE"):
        sys.exit(_phase(_os_env["ALIASFUZZ_REPRO_PHASE"]))
    if COMPILER is not None and COMPILER.get("across_processes"):
        sys.exit(_across_processes())
    sys.exit(_crash_check() if CRASH and COMPILER is not None and not _os_env.get("ALIASFUZZ_REPRO_CHILD") else main())
