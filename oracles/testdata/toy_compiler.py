"""Toy compilers for the py:MODULE:FUNCTION tests (compilers/external_test.cc):
each FUNCTION takes the program's Python function and returns a callable.

  wrap                 torch.compile with a custom backend that runs the FX
                       graph Dynamo captured as it is (correct; torch 2.x)
  drop_inplace_writes  deliberately wrong: every in-place Tensor method
                       (add_, mul_, copy_, ...) returns its target
                       unchanged, so the writes are lost; the fuzzer must
                       find it (any torch with TorchFunctionMode)
  swallow_errors       deliberately wrong: runs the program and, when
                       PyTorch raises, returns the inputs instead: it
                       accepts every program eager rejects (the
                       accepts-invalid class of --invalid-rate)
  as_is                the program itself (correct: refuses what eager
                       refuses)
  forget_input_metadata  deliberately wrong: runs the program, then gives
                       every input back its sizes, strides and offset from
                       before the call (a functionalization that does not
                       replay format v1.3's metadata ops on its inputs);
                       values are right (a returned input object comes
                       back as a view with the new geometry)
  segfault_on_exp_     kills its own process with SIGSEGV (after a line on
                       stderr) when the program calls exp_, else runs it:
                       a compiler crash, the runner-crash bucket kind
  two_defects          deliberately wrong twice, the ground truth of the
                       bug-counting checks (issues #34, #40): (1) frequent:
                       an in-place op whose target shares its storage with
                       another tensor argument of the call does not write;
                       (2) rare: exp with out= (the generator makes exp_out
                       in well under 1% of programs) writes exp(x) + 1
  custom_op_on_copies  deliberately wrong (format v1.4; torch >= 2.4): a
                       custom op whose mutated argument is not contiguous
                       runs on a contiguous copy of it, and the write is
                       lost (the shape of pytorch#153389: custom ops on
                       views of one tensor); aten ops run as they are
  graph_break_drops_writes  deliberately wrong (format v1.4; torch 2.x):
                       torch.compile whose backend runs every graph after
                       the first (what a graph break starts) on clones of
                       its tensor inputs, so that region's writes to the
                       caller's tensors are lost; one graph runs right
  caches_alias_layout  deliberately wrong across calls (format v1.4's
                       --recall; any torch): the first call decides how to
                       run and the decision is cached, never guarded
                       (pytorch#139789's shape). Inputs that alias on the
                       first call: the program as it is, ever after.
                       Separate inputs: on clones of the inputs, each
                       changed input copied back after the call, which is
                       right only while the inputs do not alias; called
                       again with aliased inputs, a copy-back overwrites
                       the write through another input
  drops_gradients      deliberately wrong under autograd (format v1.4
                       training; any torch): runs the program on detached
                       copies of the inputs that require grad (the same
                       memory), so the values are right and no gradient
                       reaches a leaf
  hangs_on_call        a compiler that never returns: the compiled
                       callable sleeps for good (issue #60: a hang is the
                       compiler's finding, and never stalls a campaign)
  hangs_in_compile     the same, in the compile call itself
  exits_on_call        the process running it exits (status 3) mid-case
  kills_itself_on_call the process running it dies of SIGSEGV mid-case
  two_error_defects    deliberately wrong twice with the same error (issue
                       #57's ground truth: root defects by the compiler's
                       frames, not by exception type or message): an
                       in-place op on a view made in the call (select,
                       narrow, transpose, ...) raises IndexError "list index
                       out of range" in _replay_view; exp_ raises the same
                       IndexError in _lower_exp
"""
import os
import signal
import sys

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


def wrong_under_odd_string_hash(fn):
    """A compiler whose result depends on Python's hash seed, as one that
    iterates a set of names: it loses in-place writes when
    hash("aliasfuzz") is odd (PYTHONHASHSEED=4 on CPython 3.11; 0 is even)."""
    return drop_inplace_writes(fn) if hash("aliasfuzz") % 2 else fn


def segfault_on_exp_(fn):
    def compiled(*args):
        if "exp_" in fn.__code__.co_names:
            sys.stderr.write("toy compiler: exp_ is where I crash\n")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
        return fn(*args)
    return compiled


def swallow_errors(fn):
    def compiled(*args):
        try:
            return fn(*args)
        except Exception:
            return list(args[:1])
    return compiled


def as_is(fn):
    return fn


def forget_input_metadata(fn):
    def compiled(*args):
        before = [(a.size(), a.stride(), a.storage_offset()) for a in args]
        rets = fn(*args)
        # returned tensors that are an input's object: a view with the new geometry
        rets = [torch.as_strided(r, r.size(), r.stride(), r.storage_offset())
                if any(r is a for a in args) else r for r in rets]
        for a, (size, stride, offset) in zip(args, before):
            a.as_strided_(size, stride, offset)
        return rets
    return compiled


def _storage_ptr(t):
    try:
        return t.untyped_storage().data_ptr()
    except AttributeError:  # torch 1.x
        return t.storage().data_ptr()


class _TwoDefects(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name.endswith("_") and not name.startswith("_") and args and isinstance(args[0], torch.Tensor):
            target = args[0]
            others = [a for a in list(args[1:]) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
            if any(_storage_ptr(a) == _storage_ptr(target) for a in others):
                return target  # defect 1: the write is lost
        result = func(*args, **kwargs)
        if name == "exp" and isinstance(kwargs.get("out"), torch.Tensor):
            with torch.no_grad():
                kwargs["out"].add_(1.0)  # defect 2: off by one
        return result


def two_defects(fn):
    def compiled(*args):
        with _TwoDefects():
            return fn(*args)
    return compiled


def custom_op_on_copies(fn):
    from torch.utils._python_dispatch import TorchDispatchMode

    class _Copies(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func.namespace == "aliasfuzz" and not args[0].is_contiguous():
                return func(args[0].contiguous(), *args[1:], **kwargs)  # the write goes to the copy
            return func(*args, **kwargs)

    def compiled(*args):
        with _Copies():
            return fn(*args)
    return compiled


def dtype_view_copies(fn):
    # Format v1.5: x.view(torch.int32) made as a copy, not a view: a write
    # through it never reaches x, and x's later writes never reach it.
    from torch.utils._python_dispatch import TorchDispatchMode

    class _Copies(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func == torch.ops.aten.view.dtype:
                return func(args[0].clone(), *args[1:], **kwargs)
            return func(*args, **kwargs)

    def compiled(*args):
        with _Copies():
            return fn(*args)
    return compiled


def graph_break_drops_writes(fn):
    graphs = [0]

    def backend(gm, example_inputs):
        graphs[0] += 1
        if graphs[0] == 1:
            return gm.forward

        def on_clones(*args):
            return gm.forward(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
        return on_clones
    return torch.compile(fn, backend=backend)


def caches_alias_layout(fn):
    decided = []

    def compiled(*args):
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if not decided:
            ptrs = [_storage_ptr(t) for t in tensors]
            decided.append("as-is" if len(set(ptrs)) < len(ptrs) else "on-clones")
        if decided[0] == "as-is":
            return fn(*args)
        clones = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        before = [(c.size(), c.stride(), c.storage_offset()) for c in clones if isinstance(c, torch.Tensor)]
        rets = fn(*clones)
        after = [(c.size(), c.stride(), c.storage_offset()) for c in clones if isinstance(c, torch.Tensor)]
        if before != after:  # a metadata op on an input: clones cannot replay it, run the program itself
            return fn(*args)
        with torch.no_grad():
            for a, c in zip(args, clones):
                if isinstance(a, torch.Tensor) and not torch.equal(a, c):
                    a.copy_(c)
        return rets
    return compiled


def drops_gradients(fn):
    def compiled(*args):
        return fn(*[a.detach() if isinstance(a, torch.Tensor) and a.requires_grad else a for a in args])
    return compiled


def hangs_on_call(fn):
    import time
    return lambda *args: time.sleep(10 ** 6)


def hangs_in_compile(fn):
    import time
    time.sleep(10 ** 6)


def exits_on_call(fn):
    return lambda *args: os._exit(3)


def kills_itself_on_call(fn):
    def call(*args):
        sys.stderr.write("toy compiler: SIGSEGV on purpose\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    return call


_VIEW_OPS = {"select", "narrow", "transpose", "t", "view", "reshape", "permute", "unsqueeze", "squeeze",
             "expand", "diagonal", "as_strided", "chunk", "split", "unbind", "alias", "unfold", "flatten"}


def _replay_view(t):
    # defect 1: the toy "replays" the view chain of a written view and indexes past its list
    chain = []
    return chain[t.dim()]


def _lower_exp(t):
    # defect 2: the toy "lowers" exp_ through an empty table
    table = []
    return table[0]


class _TwoErrorDefects(torch.overrides.TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.views = []  # tensors a view op made in this call

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name == "exp_":
            _lower_exp(args[0])
        if name.endswith("_") and not name.startswith("_") and args and any(args[0] is v for v in self.views):
            _replay_view(args[0])
        out = func(*args, **(kwargs or {}))
        if name in _VIEW_OPS:
            self.views.extend(out if isinstance(out, (tuple, list)) else [out])
        return out


def two_error_defects(fn):
    def compiled(*args):
        with _TwoErrorDefects():
            return fn(*args)
    return compiled
