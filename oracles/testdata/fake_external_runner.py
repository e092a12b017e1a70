#!/usr/bin/env python3
"""A stand-in compiler for the capability-probe tests (compilers/external_test.cc,
campaign/campaign_test.cc): compilers/external_runner.py with every strategy run as
plain eager PyTorch, except that it "does not support" some spellings.

Set AF_EXTERNAL_RUNNER to this file and AF_REAL_RUNNER_DIR to the folder of
external_runner.py. In the body of _fn:
  `.exp_()`      raises NotImplementedError (unsupported: the probe lists exp_)
  `torch.tanh(`  raises AssertionError (an internal error: not listed)
  `x.add_(1.0)`  raises NotImplementedError in every program that has it, so
                 the probe's after-inplace control fails and that context
                 judges no op
  `.abs_()`      raises NotImplementedError when _fn has more than 10 lines:
                 longer than any probe program, so the probe does not list
                 abs_ and a campaign meets it as unsupported runs
With AF_FAKE_ALIASED_SIZES=1, two inputs of one storage with different
sizes raise RuntimeError (as thunder 0.2.6's replace_args_with_alias_map
does): the probe's form check finds it.
"""
import os
import re
import sys

sys.path.insert(0, os.environ["AF_REAL_RUNNER_DIR"])
import external_runner as R  # noqa: E402

_real_handle = R.handle


def _aliased_sizes_differ(code):
    setup = code[code.index("def _setup("):code.index("def _fn(")]
    sizes = {}
    for storage, size in re.findall(r"torch\.as_strided\((\w+), (\[[^\]]*\])", setup):
        sizes.setdefault(storage, set()).add(size)
    return any(len(v) > 1 for v in sizes.values())


def handle(req):
    code = req["code"]
    body = code[code.index("def _fn("):]
    res = _real_handle(dict(req, imports="", compile="fn"))  # eager
    if "eager" not in res:
        return res
    err = None
    fn_lines = body[:body.find("\n\n") if "\n\n" in body else len(body)].count("\n") + 1
    if os.environ.get("AF_FAKE_ALIASED_SIZES") == "1" and _aliased_sizes_differ(code):
        err = {"type": "RuntimeError", "message": "Attempting to reshape (the fake compiler)"}
    elif ".exp_()" in body or "x.add_(1.0)" in body:
        err = {"type": "NotImplementedError", "message": "not supported by the fake compiler"}
    elif ".abs_()" in body and fn_lines > 10:
        err = {"type": "NotImplementedError", "message": "abs_ in a long function is not supported by the fake compiler"}
    elif "torch.tanh(" in body:
        err = {"type": "AssertionError", "message": ""}
    if err:
        res.pop("actual", None)
        res["error"] = err
    return res


R.handle = handle

if __name__ == "__main__":
    R.main()
