import os as _os, tempfile as _tempfile  # (before torch is imported)
# A fresh Inductor cache folder, its caches off; AF_RUNNER_CACHE_DIR=DIR: DIR, caches on.
if __name__ == "__main__":  # (not again when _this_file_as_module imports this file)
    _os.environ["TORCHINDUCTOR_CACHE_DIR"] = (_os.environ.get("AF_RUNNER_CACHE_DIR") or
                                             _tempfile.mkdtemp(prefix="aliasfuzz-repro-"))
    _os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = _os.environ["TORCHINDUCTOR_AUTOGRAD_CACHE"] = (
        "1" if _os.environ.get("AF_RUNNER_CACHE_DIR") else "0")
