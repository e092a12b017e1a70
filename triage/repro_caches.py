import os as _os, sys as _sys, tempfile as _tempfile  # (before torch is imported)
# Python's hash seed as the campaign's runner had it: a compiler that
# iterates a set of strings can depend on it. Python reads it at start-up
# only, so the script starts again under it (once: it is then set).
if __name__ == "__main__" and _os.environ.get("PYTHONHASHSEED") != globals().get("_AF_HASH_SEED", "0"):
    _os.environ["PYTHONHASHSEED"] = globals().get("_AF_HASH_SEED", "0")
    # sys.orig_argv (3.10+) keeps the interpreter's own flags (`python -u`).
    _os.execv(_sys.executable, [_sys.executable] + (getattr(_sys, "orig_argv", None) or [""] + _sys.argv)[1:])
# A fresh Inductor cache folder, its caches off; AF_RUNNER_CACHE_DIR=DIR: DIR, caches on.
if __name__ == "__main__":  # (not again when _this_file_as_module imports this file)
    _os.environ["TORCHINDUCTOR_CACHE_DIR"] = (_os.environ.get("AF_RUNNER_CACHE_DIR") or
                                             _tempfile.mkdtemp(prefix="aliasfuzz-repro-"))
    _os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = _os.environ["TORCHINDUCTOR_AUTOGRAD_CACHE"] = (
        "1" if _os.environ.get("AF_RUNNER_CACHE_DIR") else "0")
