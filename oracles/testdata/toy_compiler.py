"""Toy compilers for the py:MODULE:FUNCTION tests (oracles/external_test.cc):
each FUNCTION takes the program's Python function and returns a callable.

  wrap                 torch.compile with a custom backend that runs the FX
                       graph Dynamo captured as it is (correct; torch 2.x)
  drop_inplace_writes  deliberately wrong: every in-place Tensor method
                       (add_, mul_, copy_, ...) returns its target
                       unchanged, so the writes are lost; the fuzzer must
                       find it (any torch with TorchFunctionMode)
"""
import torch


def _run_graph(gm, example_inputs):
    return gm.forward


def wrap(fn):
    return torch.compile(fn, backend=_run_graph)


class _DropWrites(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name.endswith("_") and not name.startswith("_"):
            return args[0]
        return func(*args, **(kwargs or {}))


def drop_inplace_writes(fn):
    def compiled(*args):
        with _DropWrites():
            return fn(*args)
    return compiled
