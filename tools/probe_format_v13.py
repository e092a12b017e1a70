#!/usr/bin/env python3
"""The PyTorch behaviours format v1.3 encodes (docs/format.md, "Format v1.3"), probed case by case.

Run with both Pythons and diff the outputs:
    /usr/bin/python3 tools/probe_format_v13.py > a; .venv-thunder/bin/python tools/probe_format_v13.py > b; diff a b
On 1 Dec 2026 (PyTorch 1.13 vs torch 2.9.1) the differences are: unfold with
a negative window size (1.13 "Storage size calculation overflowed" from
as_strided, 2.9 "size is -1 but must be >= 0": both `arg`), and the
functionalization probes at the end, which need torch.func (2.x only), and
setitem on a tensor squeeze_ made 0-d (1.13 slices it as the 1-d tensor it
was: z[0:1] = v runs; 2.9 raises; the format's kind `version`), and
z[0:0] = v on any other 0-d tensor (1.13 runs it, 2.9 raises: format v1's
0-d setitem_ rule, not changed by v1.3).
Everything else (results, geometry, errors) is the same.
"""
import warnings

import torch

warnings.simplefilter("ignore")


def t(name, f):
    try:
        r = f()
        print(name, "OK", r)
    except Exception as e:
        print(name, type(e).__name__, str(e).splitlines()[0][:150])


def geo(x):
    return (tuple(x.shape), x.stride(), x.storage_offset())


print(torch.__version__)
mk = lambda: torch.arange(12.).reshape(3, 4)

# The metadata ops change the tensor object and return it.
def same(op, make=mk):
    x = make()
    y = op(x)
    return (y is x, geo(x))
t("transpose_", lambda: same(lambda x: x.transpose_(0, 1)))
t("t_", lambda: same(lambda x: x.t_()))
t("t_ 1d", lambda: same(lambda x: x.t_(), lambda: torch.arange(3.)))
t("squeeze_ of 1", lambda: same(lambda x: x.squeeze_(0), lambda: torch.zeros(1, 3)))
t("squeeze_ not 1 (no-op)", lambda: same(lambda x: x.squeeze_(0)))
t("unsqueeze_", lambda: same(lambda x: x.unsqueeze_(-1)))
t("swapdims_", lambda: same(lambda x: x.swapdims_(1, 0)))
t("as_strided_", lambda: same(lambda x: x.as_strided_([2, 2], [1, 2], 3)))
t("as_strided_ of a view: absolute offset", lambda: same(lambda x: x.as_strided_([2], [1], 0), lambda: mk()[1]))
# Errors (kinds: arg, view).
t("transpose_ bad dim", lambda: mk().transpose_(0, 2))
t("t_ 3d", lambda: torch.zeros(2, 2, 2).t_())
t("squeeze_ bad dim", lambda: mk().squeeze_(5))
t("unsqueeze_ bad dim", lambda: mk().unsqueeze_(3))
t("swapdims_ bad dim", lambda: mk().swapdims_(-3, 0))
t("as_strided_ out of storage", lambda: mk().as_strided_([4, 4], [4, 1], 0))
t("as_strided_ view out of storage", lambda: mk()[1].as_strided_([3, 3], [1, 1], 9))
t("as_strided_ negative offset", lambda: mk().as_strided_([2], [1], -1))
# Views of x taken before keep their geometry; other names of x follow it.
def views():
    x = mk(); v = x[1]; r = x.relu_(); x.t_()
    return geo(v), geo(r), r is x
t("view before, in-place alias", views)
# Multi-output views and inputs: no check in eager (only autograd's leaf rule).
for nm, op in [("transpose_", lambda c: c.transpose_(0, 1)), ("t_", lambda c: c.t_()),
               ("squeeze_", lambda c: c.squeeze_(0)), ("unsqueeze_", lambda c: c.unsqueeze_(0)),
               ("swapdims_", lambda c: c.swapdims_(0, 1)), ("as_strided_", lambda c: c.as_strided_([2], [1], 0))]:
    t("chunk piece " + nm, lambda: geo(op(mk().chunk(2, 0)[0])))
    t("split piece " + nm, lambda: geo(op(mk().split(2, 0)[0])))
    t("unbind piece " + nm, lambda: geo(op(mk().unbind(0)[0][None])))
    t("leaf requiring grad " + nm, lambda: geo(op(torch.zeros(1, 3, requires_grad=True))))
# An input's metadata after the call: the caller sees it.
def caller():
    x = mk()
    def f(a):
        a.transpose_(0, 1)
        return a + 1
    f(x)
    return geo(x)
t("input after the call", caller)
# Python indexing of a tensor squeeze_ made 0-d (kind `version`): 1.13 slices it
# as the 1-d tensor it was, 2.x raises; any other 0-d tensor takes z[0:0].
def sq0(s, e):
    z = torch.arange(4.)[1:2].squeeze_(0)
    z[s:e] = 5.0
    return z.item()
t("squeeze_ to 0-d, z[0:1] = v", lambda: sq0(0, 1))
t("squeeze_ to 0-d, z[0:0] = v", lambda: sq0(0, 0))
def plain0(s, e):
    z = torch.arange(4.)[1:2].squeeze(0)
    z[s:e] = 5.0
    return z.item()
t("squeeze view 0-d, z[0:1] = v", lambda: plain0(0, 1))
t("squeeze view 0-d, z[0:0] = v", lambda: plain0(0, 0))
# unfold: geometry, errors, writes through overlapping windows.
x = torch.arange(10.)
t("unfold 3/2", lambda: geo(x.unfold(0, 3, 2)))
t("unfold 2d", lambda: geo(mk().unfold(1, 2, 1)))
t("unfold 0d", lambda: geo(torch.tensor(3.).unfold(0, 1, 1)))
t("unfold size 0", lambda: geo(x.unfold(0, 0, 1)))
t("unfold empty", lambda: geo(torch.zeros(0).unfold(0, 0, 1)))
t("unfold neg dim", lambda: geo(x.unfold(-1, 2, 1)))
t("unfold size > n", lambda: x.unfold(0, 11, 1))
t("unfold 0d size 2", lambda: torch.tensor(3.).unfold(0, 2, 1))
t("unfold step 0", lambda: x.unfold(0, 2, 0))
t("unfold bad dim", lambda: x.unfold(1, 2, 1))
t("unfold negative size", lambda: x.unfold(0, -1, 1))
t("unfold overlapping add_ (unchecked: undefined)", lambda: torch.arange(10.).unfold(0, 3, 1).add_(1).sum().item())
t("unfold overlapping fill_", lambda: torch.arange(10.).unfold(0, 3, 1).fill_(1).sum().item())
t("unfold overlapping copy_ (unchecked: undefined)", lambda: torch.arange(10.).unfold(0, 3, 1).copy_(torch.ones(8, 3)).sum().item())
t("unfold disjoint add_", lambda: torch.arange(10.).unfold(0, 2, 2).add_(1).sum().item())
t("unfold read", lambda: (torch.arange(10.).unfold(0, 3, 1) * 2).sum().item())
# Functionalization (torch.func, 2.x): the input's new geometry is replayed on it.
if hasattr(torch, "func"):
    def g(a):
        b = a.transpose_(0, 1)
        return b * 2
    def fn():
        a = mk()
        r = torch.func.functionalize(g)(a)
        return geo(a), tuple(r.shape)
    t("torch.func.functionalize transpose_ on an input", fn)
    def fn2():
        a = mk()
        r = torch.compile(g, backend="aot_eager")(a)
        return geo(a), tuple(r.shape)
    t("aot_eager transpose_ on an input", fn2)
