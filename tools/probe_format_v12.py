#!/usr/bin/env python3
"""The PyTorch behaviours format v1.2 encodes (docs/format.md, "Format v1.2"), probed case by case.

Run with both Pythons and diff the outputs:
    /usr/bin/python3 tools/probe_format_v12.py > a; .venv-thunder/bin/python tools/probe_format_v12.py > b; diff a b
On 1 Dec 2026 (PyTorch 1.13 vs torch 2.9.1) the differences are: index_add_'s
out-of-range index (1.13 IndexError "index out of range in self", 2.9
RuntimeError "index N is out of bounds": both `arg`); index_add_'s source
that only broadcasts into the target's slices, or is 0-d for a 1-d target
(1.13 runs it, 2.9 raises: the format's kind `version`); index_add_ with a
source of too high a rank overlapping the target (1.13 overlap, 2.9 shape:
`version`); masked_fill_ with an i64 mask (1.13 runs it, 2.9 raises: the
format has only bool masks, `dtype`); the wording of the float-index and
scatter shape messages (same kinds); warnings' source lines.
"""
import warnings

import torch

warnings.simplefilter("ignore")


def t(name, f):
    try:
        r = f()
        print(name, "OK", r if not isinstance(r, torch.Tensor) else r.tolist())
    except Exception as e:
        print(name, type(e).__name__, str(e).splitlines()[0][:150])


print(torch.__version__)
I=lambda *v: torch.tensor(v, dtype=torch.int64)
x=lambda: torch.arange(8.)
t("ip oob", lambda: x().index_put_((I(0,8),), torch.ones(2)))
t("ip neg", lambda: x().index_put_((I(0,-1),), torch.ones(2)))
t("ip negoob", lambda: x().index_put_((I(0,-9),), torch.ones(2)))
t("ip dup acc", lambda: x().index_put_((I(1,1),), torch.ones(2), True))
t("ip v bcast", lambda: x().index_put_((I(1,2),), torch.ones(1)))
t("ip v 0d", lambda: x().index_put_((I(1,2),), torch.tensor(5.)))
t("ip v bad", lambda: x().index_put_((I(1,2),), torch.ones(3)))
t("ip 2d idx", lambda: x().index_put_((I(1,2).view(2,1),), torch.ones(2,1)))
t("ip 2d x", lambda: torch.zeros(3,2).index_put_((I(1,2),), torch.ones(2)))
t("ip 0d x", lambda: torch.zeros(()).index_put_((I(0),), torch.ones(1)))
t("ip 0d idx", lambda: x().index_put_((torch.tensor(3),), torch.tensor(1.)))
t("ip empty idx", lambda: x().index_put_((I(),), torch.ones(0)))
t("ip expand x", lambda: torch.zeros(1).expand(4).index_put_((I(1,2),), torch.ones(2)))
def ov1():
    a=x(); return a.index_put_((I(0,1),), a[1:3])
t("ip v partial overlap", ov1)
def ov2():
    a=x(); return a[:2].index_put_((I(0,1),), a[:2])
t("ip v full overlap", ov2)
def ov3():
    a=x(); return a.index_put_((I(0,1),), a[6:8])
t("ip v disjoint same storage", ov3)
def ov3b():
    a=x(); return a.index_put_((I(0,1,2),), a[0:3])
t("ip v src is slot", ov3b)
t("ip float idx", lambda: x().index_put_((torch.tensor([1.,2.]),), torch.ones(2)))
t("ip bool idx", lambda: x().index_put_((torch.tensor([True]+[False]*7),), torch.ones(1)))
# index_add
t("ia", lambda: torch.zeros(3,2).index_add_(0, I(0,0,2), torch.ones(3,2)))
t("ia oob", lambda: torch.zeros(3,2).index_add_(0, I(0,3), torch.ones(2,2)))
t("ia neg", lambda: torch.zeros(3,2).index_add_(0, I(0,-1), torch.ones(2,2)))
t("ia 2d idx", lambda: torch.zeros(3,2).index_add_(0, I(0,1).view(2,1), torch.ones(2,2)))
t("ia 0d idx", lambda: torch.zeros(3,2).index_add_(0, torch.tensor(1), torch.ones(1,2)))
t("ia src bad", lambda: torch.zeros(3,2).index_add_(0, I(0,1), torch.ones(2,3)))
t("ia src bad n", lambda: torch.zeros(3,2).index_add_(0, I(0,1), torch.ones(3,2)))
t("ia src bcast", lambda: torch.zeros(3,2).index_add_(0, I(0,1), torch.ones(2,1)))
t("ia src rank", lambda: torch.zeros(3,2).index_add_(0, I(0,1), torch.ones(4)))
t("ia dim1", lambda: torch.zeros(3,2).index_add_(1, I(1,1), torch.ones(3,2)))
t("ia dim oob", lambda: torch.zeros(3,2).index_add_(2, I(1,1), torch.ones(3,2)))
t("ia 0d x", lambda: torch.zeros(()).index_add_(0, I(0), torch.ones(())))
t("ia 0d x 1src", lambda: torch.zeros(()).index_add_(0, I(0), torch.ones(1)))
t("ia expand", lambda: torch.zeros(1,2).expand(3,2).index_add_(0, I(0), torch.ones(1,2)))
def ia_ov():
    a=torch.zeros(4,2); return a.index_add_(0, I(0,1), a[1:3])
t("ia src partial overlap", ia_ov)
def ia_ov2():
    a=torch.zeros(4,2); return a[0:2].index_add_(0, I(0,1), a[0:2])
t("ia src full overlap", ia_ov2)
def ia_ov3():
    a=torch.zeros(4,2); return a[0:2].index_add_(0, I(0,1), a[2:4])
t("ia src disjoint", ia_ov3)
t("ia float idx", lambda: torch.zeros(3,2).index_add_(0, torch.tensor([0.]), torch.ones(1,2)))
t("ia int32 idx", lambda: torch.zeros(3,2).index_add_(0, torch.tensor([0],dtype=torch.int32), torch.ones(1,2)))
# index_copy
t("ic", lambda: torch.zeros(3,2).index_copy_(0, I(2,0), torch.ones(2,2)))
t("ic oob", lambda: torch.zeros(3,2).index_copy_(0, I(0,3), torch.ones(2,2)))
t("ic neg", lambda: torch.zeros(3,2).index_copy_(0, I(0,-1), torch.ones(2,2)))
t("ic src bad", lambda: torch.zeros(3,2).index_copy_(0, I(0,1), torch.ones(3,2)))
t("ic src bcast", lambda: torch.zeros(3,2).index_copy_(0, I(0,1), torch.ones(2,1)))
t("ic 2d idx", lambda: torch.zeros(3,2).index_copy_(0, I(0,1).view(2,1), torch.ones(2,2)))
t("ic 0d idx", lambda: torch.zeros(3,2).index_copy_(0, torch.tensor(1), torch.ones(1,2)))
t("ic 0d idx src", lambda: torch.zeros(3,2).index_copy_(0, torch.tensor(1), torch.ones(2)))
t("ic expand", lambda: torch.zeros(1,2).expand(3,2).index_copy_(0, I(0), torch.ones(1,2)))
def ic_ov():
    a=torch.zeros(4,2); return a.index_copy_(0, I(0,1), a[1:3])
t("ic src partial overlap", ic_ov)
t("ic 0d x", lambda: torch.zeros(()).index_copy_(0, I(0), torch.ones(())))
# scatter
t("sc", lambda: torch.zeros(3,2).scatter_(0, I(2,0).view(1,2), torch.ones(2,2)))
t("sc oob", lambda: torch.zeros(3,2).scatter_(0, I(3,0).view(1,2), torch.ones(2,2)))
t("sc neg", lambda: torch.zeros(3,2).scatter_(0, I(-1,0).view(1,2), torch.ones(2,2)))
t("sc idx too big", lambda: torch.zeros(3,2).scatter_(0, I(0,0,0).view(1,3), torch.ones(2,3)))
t("sc src small", lambda: torch.zeros(3,2).scatter_(0, I(0,0).view(1,2), torch.ones(1,1)))
t("sc rank", lambda: torch.zeros(3,2).scatter_(0, I(0,0), torch.ones(2,2)))
t("sc src rank", lambda: torch.zeros(3,2).scatter_(0, I(0,0).view(1,2), torch.ones(4)))
t("sc idx dim big", lambda: torch.zeros(3,2).scatter_(0, I(0,1,2,0,1,2,0,0).view(4,2), torch.ones(4,2)))
t("sc empty idx", lambda: torch.zeros(3,2).scatter_(0, I().view(0,2), torch.ones(2,2)))
t("sc 0d", lambda: torch.zeros(()).scatter_(0, torch.tensor(0), torch.ones(())))
t("sc expand", lambda: torch.zeros(1,2).expand(3,2).scatter_(0, I(0,1).view(1,2), torch.ones(1,2)))
def sc_ov():
    a=torch.zeros(4,2); return a.scatter_(0, I(0,1).view(1,2), a[1:3])
t("sc src partial overlap", sc_ov)
def sc_ov2():
    a=torch.zeros(4,2); return a.scatter_(0, I(0,1).view(1,2), a)
t("sc src same", sc_ov2)
t("sca", lambda: torch.zeros(3,2).scatter_add_(0, I(0,0,0,0).view(2,2), torch.ones(2,2)))
t("sca oob", lambda: torch.zeros(3,2).scatter_add_(0, I(5,0).view(1,2), torch.ones(2,2)))
t("sca neg", lambda: torch.zeros(3,2).scatter_add_(0, I(-1,0).view(1,2), torch.ones(2,2)))
# masked_fill
M=lambda *v: torch.tensor(v, dtype=torch.bool)
t("mf", lambda: x().masked_fill_(M(*[1,0]*4), 5.))
t("mf bcast", lambda: torch.zeros(2,3).masked_fill_(M(1,0,1), 5.))
t("mf bcast bad", lambda: torch.zeros(3).masked_fill_(M(1,0,1).view(1,3).expand(2,3), 5.))
t("mf bad", lambda: torch.zeros(3).masked_fill_(M(1,0), 5.))
t("mf 0d mask", lambda: torch.zeros(3).masked_fill_(torch.tensor(True), 5.))
t("mf expand", lambda: torch.zeros(1).expand(3).masked_fill_(M(1,0,1), 5.))
t("mf expand none", lambda: torch.zeros(1).expand(3).masked_fill_(M(0,0,0), 5.))
t("mf overflow", lambda: torch.zeros(3).masked_fill_(M(1,0,1), 1e300))
t("mf inf", lambda: torch.zeros(3).masked_fill_(M(1,0,1), float('inf')))
t("mf int mask", lambda: torch.zeros(3).masked_fill_(I(1,0,1), 1.))
t("mf value int", lambda: torch.zeros(3).masked_fill_(M(1,0,1), 3))
def mf_ov():
    a=torch.zeros(3,3); d=a.as_strided((3,3),(1,1)); return d.masked_fill_(M(1,0,1), 1.)
t("mf internal overlap partial strided", mf_ov)

t("sc src0d", lambda: torch.zeros(3).scatter_add_(0, I(1), torch.tensor(5.)))
t("sc src0d scatter_", lambda: torch.zeros(3).scatter_(0, I(1), torch.tensor(5.)))
t("sc src higher rank", lambda: torch.zeros(3).scatter_(0, I(1,2), torch.ones(2,2)))
t("sc src lower rank", lambda: torch.zeros(3,2).scatter_(0, I(1,2).view(1,2), torch.ones(2)))
t("sc idx0d self1d", lambda: torch.zeros(3).scatter_(0, torch.tensor(1), torch.ones(1)))
t("sc idx1d self0d", lambda: torch.zeros(()).scatter_(0, I(0), torch.ones(1)))
t("sc idx rank bad & oob", lambda: torch.zeros(3,2).scatter_(0, I(7), torch.ones(2)))
t("sc idx too big & overlap", lambda: (lambda a: a[:2].scatter_(0, I(0,1,0).view(3,1), a[1:3]))(torch.zeros(4,1)))
t("sc shape & oob", lambda: torch.zeros(3,2).scatter_(0, I(9,9,9).view(1,3), torch.ones(2,2)))
t("sc overlap & oob", lambda: (lambda a: a.scatter_(0, I(9).view(1,1), a))(torch.zeros(4,1)))
t("sc expand & shape", lambda: torch.zeros(1,2).expand(3,2).scatter_(0, I(0,1,1).view(1,3), torch.ones(2,2)))
t("ic overlap&shape", lambda: (lambda a: a[:3].index_copy_(0, I(0,1), a[1:4]))(torch.zeros(4)))
t("ia overlap&shape", lambda: (lambda a: a[:3].index_add_(0, I(0,1), a[1:4]))(torch.zeros(4)))
t("ia expand&shape", lambda: torch.zeros(1).expand(3).index_add_(0, I(0,1), torch.ones(3)))
t("ic expand&shape", lambda: torch.zeros(1).expand(3).index_copy_(0, I(0,1), torch.ones(3)))
t("ia oob & overlap", lambda: (lambda a: a[:2].index_add_(0, I(0,7), a[1:3]))(torch.zeros(4)))
t("ic oob & overlap", lambda: (lambda a: a[:2].index_copy_(0, I(0,7), a[1:3]))(torch.zeros(4)))
t("ia dim vs src rank", lambda: torch.zeros(3,1,1).index_add_(2, I(0,0), torch.ones(9)))
t("ic dim vs src rank", lambda: torch.zeros(3,1,1).index_copy_(2, I(0,0), torch.ones(9)))
t("ia src 0d", lambda: torch.zeros(3).index_add_(0, I(1), torch.tensor(2.)))
t("ic src 0d", lambda: torch.zeros(3).index_copy_(0, I(1), torch.tensor(2.)))
t("ia idx 2d & shape", lambda: torch.zeros(3).index_add_(0, I(1).view(1,1), torch.ones(5)))
t("ia src bigger rank", lambda: torch.zeros(3).index_add_(0, I(1,2), torch.ones(2,1)))
t("ic src bigger rank", lambda: torch.zeros(3).index_copy_(0, I(1,2), torch.ones(2,1)))
t("ip shape & overlap", lambda: (lambda a: a.index_put_((I(0,1),), a[0:3]))(torch.zeros(4)))
t("ip oob & overlap", lambda: (lambda a: a.index_put_((I(0,9),), a[0:2]))(torch.zeros(4)))
t("ip shape & oob", lambda: torch.zeros(4).index_put_((I(0,9),), torch.ones(3)))
t("ip v higher rank lead1", lambda: torch.zeros(4).index_put_((I(0,1),), torch.ones(1,2)))
t("ip acc dup expand", lambda: torch.zeros(1).expand(4).index_put_((I(0,1),), torch.ones(2), True))
t("ip idx 2d", lambda: torch.zeros(4,2).index_put_((I(0,1,2,3).view(2,2),), torch.ones(2,2,2)))
t("ip empty idx oob?", lambda: torch.zeros(4,0).index_put_((I(9),), torch.ones(1,0)))
t("mf shape & overflow", lambda: torch.zeros(3).masked_fill_(torch.tensor([True,False]), 1e39))
t("mf bcast bigger", lambda: torch.zeros(3).masked_fill_(torch.ones(2,3,dtype=torch.bool), 1.))
