#!/usr/bin/env python3
"""The PyTorch behaviours format v1.1 encodes (docs/format.md), probed case by case.

Run with both Pythons and diff the outputs (only the version line differs
on 1 Dec 2026: PyTorch 1.13 and torch 2.9.1 agree on every case):
    /usr/bin/python3 tools/probe_format_v11.py > a; .venv-thunder/bin/python tools/probe_format_v11.py > b; diff a b
"""
import torch, warnings, sys
warnings.simplefilter("always")
def t(name, f):
    try:
        with warnings.catch_warnings(record=True) as w:
            r = f()
        print(name, "OK", r if not isinstance(r, torch.Tensor) else r.flatten()[:6].tolist(), [str(x.message)[:60] for x in w])
    except Exception as e:
        print(name, "ERR", type(e).__name__, str(e).split("\n")[0][:120])
print(torch.__version__)
s = torch.arange(12.)
a = s[0:6]; b = s[3:9]
t("out partial overlap", lambda: torch.add(a, 1.0, out=s[1:7]))
s = torch.arange(12.)
t("out identical input", lambda: torch.add(s[0:6], s[0:6], out=s[0:6]))
s = torch.arange(12.); x = s[0:6]
t("out is same impl", lambda: torch.add(x, x, out=x))
s = torch.arange(12.); x = s[0:6]
t("out alias same geom", lambda: torch.add(x, 1.0, out=s[0:6]))
s = torch.arange(12.)
t("out internal overlap", lambda: torch.add(torch.ones(3), 1.0, out=s[0:1].expand(3)))
s = torch.arange(12.)
t("out wrong shape bigger numel view", lambda: torch.add(torch.ones(8), 1.0, out=s[0:3]))
s = torch.arange(12.)
t("out wrong shape same numel", lambda: (torch.add(torch.ones(2,3), 1.0, out=s[0:6]), s))
s = torch.arange(12.)
t("out wrong shape, empty", lambda: torch.add(torch.ones(3), 1.0, out=s[0:0]))
s = torch.arange(12.)
t("out wrong shape, smaller", lambda: (torch.add(torch.ones(2), 1.0, out=s[0:6]), s))
s = torch.arange(12.)
t("out noncontig", lambda: (torch.mul(torch.ones(3), 2.0, out=s[0:6:2]), s))
s = torch.arange(12.)
t("out reads other input partially, disjoint", lambda: torch.sub(s[0:4], s[4:8], out=s[8:12]))
s = torch.arange(12.)
t("unary out partial", lambda: torch.exp(s[0:6], out=s[2:8]))
s = torch.arange(12.)
t("unary out transposed same storage", lambda: torch.neg(s[0:6].view(2,3), out=s[0:6].view(3,2).t()))
s = torch.arange(12.)
t("out broadcasting input into out", lambda: torch.add(s[0:3], s[0:1], out=s[0:3]))
s = torch.arange(12.)
t("out step input partial TOO_HARD", lambda: (torch.add(s[0:12:2], 1.0, out=s[1:7]), s))
s = torch.arange(12.)
t("returns out", lambda: torch.add(s[0:3], 1.0, out=s[3:6]) .data_ptr()== s[3:6].data_ptr())
s = torch.arange(12.)
t("out 0-d number second", lambda: torch.div(2.0, s[0:3], out=s[3:6]) )
# addcmul
s = torch.arange(12.)
x = s[0:4]
t("addcmul_ t1 partial", lambda: x.addcmul_(s[2:6], torch.ones(4), value=2))
s = torch.arange(12.); x = s[0:4]
t("addcmul_ t2 partial", lambda: x.addcmul_(torch.ones(4), s[2:6], value=2))
s = torch.arange(12.); x = s[0:4]
t("addcmul_ t1 is self", lambda: x.addcmul_(x, x, value=0.5))
s = torch.arange(12.); x = s[0:4]
t("addcmul_ t1 same geom other impl", lambda: x.addcmul_(s[0:4], torch.ones(4), value=0.5))
s = torch.arange(12.); x = s[0:4]
t("addcmul_ broadcast t1", lambda: x.addcmul_(torch.ones(1), torch.ones(4), value=0.5))
s = torch.arange(12.); x = s[0:1]
t("addcmul_ broadcast self", lambda: x.addcmul_(torch.ones(4), torch.ones(4), value=0.5))
s = torch.arange(12.); x = s[0:1].expand(4)
t("addcmul_ internal overlap", lambda: x.addcmul_(torch.ones(4), torch.ones(4), value=0.5))
s = torch.arange(12.); x = s[0:4]
t("addcmul_ value huge", lambda: x.addcmul_(torch.ones(4), torch.ones(4), value=1e300))
s = torch.arange(12.); x = s[0:4]
t("addcdiv_ t2 partial", lambda: x.addcdiv_(torch.ones(4), s[3:7], value=2))
s = torch.arange(12.); x = s[0:4]
t("addcdiv_ int value", lambda: x.addcdiv_(torch.ones(4), torch.ones(4), value=2))
s = torch.arange(12.); x = s[0:4]
t("lerp_ end partial", lambda: x.lerp_(s[1:5], 0.3))
s = torch.arange(12.); x = s[0:4]
t("lerp_ weight partial", lambda: x.lerp_(torch.ones(4), s[1:5]))
s = torch.arange(12.); x = s[0:4]
t("lerp_ weight broadcast", lambda: x.lerp_(torch.ones(4), torch.tensor([0.25])))
s = torch.arange(12.); x = s[0:4]
t("lerp_ weight bigger", lambda: x.lerp_(torch.ones(4), torch.ones(2,4)))
s = torch.arange(12.); x = s[0:4]
t("lerp_ weight huge", lambda: x.lerp_(torch.ones(4), 1e300))
s = torch.arange(12.); x = s[0:4]
t("lerp_ weight 0-d tensor", lambda: x.lerp_(torch.ones(4), torch.tensor(0.7)))
s = torch.arange(12.); x = s[0:4]
t("clamp_ tensor lo partial", lambda: x.clamp_(s[2:6], torch.ones(4)*20))
s = torch.arange(12.); x = s[0:4]
t("clamp_ tensor lo>hi", lambda: x.clamp_(torch.ones(4)*5, torch.ones(4)*2))
s = torch.arange(12.); x = s[0:4]
t("clamp_ tensor nan lo", lambda: x.clamp_(torch.tensor([float('nan'),0,0,0]), torch.ones(4)*2))
s = torch.arange(12.); x = s[0:4]
t("clamp_ tensor nan self", lambda: s[0:4].fill_(float('nan')).clamp_(torch.ones(4), torch.ones(4)*2))
s = torch.arange(12.); x = s[0:4]
t("clamp_ mixed", lambda: x.clamp_(torch.ones(4), 2.0))
s = torch.arange(12.); x = s[0:4]
t("clamp_ mixed kw", lambda: x.clamp_(min=torch.ones(4), max=2.0))
s = torch.arange(12.); x = s[0:4]
t("clamp_ bcast", lambda: x.clamp_(torch.ones(1), torch.ones(2,4)))
t("lerp formula", lambda: torch.lerp(torch.tensor([1.0, 1.0]), torch.tensor([3.0, -7.0]), torch.tensor([0.3, 0.9])).tolist())
def t2(name, f):
    try:
        r = f(); print(name, "OK", r.shape if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(name, "ERR", type(e).__name__, str(e).split("\n")[0][:110])
for op in ['abs','neg','exp','tanh','sigmoid']:
    t(op+" mm-out bigger", lambda: getattr(torch,op)(torch.ones(1,1,1), out=torch.mm(torch.ones(1,1), torch.ones(1,1))))
    t(op+" fresh out bigger", lambda: getattr(torch,op)(torch.ones(1,1,1), out=torch.ones(1,1)))
    t(op+" fresh out smaller", lambda: getattr(torch,op)(torch.ones(3), out=torch.ones(4)))
for op in ['add','sub','mul','div']:
    t(op+" fresh out bigger", lambda: getattr(torch,op)(torch.ones(1,1,1), 2.0, out=torch.ones(1,1)))
    t(op+" out is input, bcast", lambda: (lambda a: getattr(torch,op)(a, torch.ones(3,1), out=a))(torch.ones(1,3)))
    t(op+" fresh out, other storage view", lambda: getattr(torch,op)(torch.ones(3,3), 2.0, out=torch.ones(12)[0:3]))
s = torch.zeros(12)
t("resize view same storage grows?", lambda: torch.add(torch.ones(3,3), 1.0, out=s[0:3]))
print(s)
