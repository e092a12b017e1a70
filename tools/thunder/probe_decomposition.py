#!/usr/bin/env python3
"""How many executable statements Thunder 0.2.6 makes of each op on the CPU.

Thunder's dataflow fusion orders the *executable* trace (torch-level ops
after decomposition: sigmoid -> neg, exp, add, reciprocal; an in-place op ->
its out-of-place op + copy_) breadth-first, so the length of each op's chain
decides which of two independent ops runs first. The weights in
schedulers/thunder_dataflow.cc come from this probe; run it with the venv's
Python to re-measure after a Thunder upgrade:
    .venv-thunder/bin/python tools/thunder/probe_decomposition.py
"""
import warnings
warnings.filterwarnings("ignore")
import torch
import thunder

OPS = {
    "view": lambda x, y: x.view(2, 4),
    "reshape": lambda x, y: x.reshape(2, 4),
    "flatten": lambda x, y: x.flatten(),
    "contiguous": lambda x, y: x.contiguous(),
    "t": lambda x, y: x.view(2, 4).t(),
    "transpose": lambda x, y: x.view(2, 4).transpose(0, 1),
    "permute": lambda x, y: x.view(2, 4).permute([1, 0]),
    "slice": lambda x, y: x[1:5:2],
    "narrow": lambda x, y: x.narrow(0, 1, 3),
    "select": lambda x, y: x.select(0, 1),
    "unsqueeze": lambda x, y: x.unsqueeze(0),
    "squeeze": lambda x, y: x.view(1, 8).squeeze(0),
    "expand": lambda x, y: x.view(1, 8).expand([2, 8]),
    "diagonal": lambda x, y: x.view(2, 4).diagonal(0, 0, 1),
    "as_strided": lambda x, y: x.as_strided([2, 2], [2, 1], 1),
    "alias": lambda x, y: x.view_as(x),
    "chunk": lambda x, y: x.chunk(2, 0)[0],
    "split": lambda x, y: x.split(4, 0)[0],
    "unbind": lambda x, y: x.view(2, 4).unbind(0)[0],
    "add_": lambda x, y: x.add_(y), "sub_": lambda x, y: x.sub_(y),
    "mul_": lambda x, y: x.mul_(y), "div_": lambda x, y: x.div_(y),
    "exp_": lambda x, y: x.exp_(), "neg_": lambda x, y: x.neg_(),
    "abs_": lambda x, y: x.abs_(), "relu_": lambda x, y: x.relu_(),
    "tanh_": lambda x, y: x.tanh_(), "sigmoid_": lambda x, y: x.sigmoid_(),
    "clamp_": lambda x, y: x.clamp_(-1.0, 1.0), "fill_": lambda x, y: x.fill_(2.0),
    "zero_": lambda x, y: x.zero_(), "copy_": lambda x, y: x.copy_(y),
    "setitem_": lambda x, y: x.__setitem__(slice(0, 2), 1.0),
    # format v1.1
    "addcmul_": lambda x, y: x.addcmul_(y, y, value=0.5), "addcdiv_": lambda x, y: x.addcdiv_(y, y, value=0.5),
    "lerp_": lambda x, y: x.lerp_(y, 0.25), "clamp_tensor_": lambda x, y: x.clamp_(y, y),
    "add_out": lambda x, y: torch.add(x, y, out=x[0:8]), "exp_out": lambda x, y: torch.exp(y, out=x),
    "add": lambda x, y: torch.add(x, y), "sub": lambda x, y: torch.sub(x, y),
    "mul": lambda x, y: torch.mul(x, y), "div": lambda x, y: torch.div(x, y),
    "exp": lambda x, y: torch.exp(x), "neg": lambda x, y: torch.neg(x),
    "abs": lambda x, y: torch.abs(x), "relu": lambda x, y: torch.relu(x),
    "tanh": lambda x, y: torch.tanh(x), "sigmoid": lambda x, y: torch.sigmoid(x),
    "clone": lambda x, y: x.clone(), "sum": lambda x, y: torch.sum(x.view(2, 4), 1, keepdim=False),
    "amax": lambda x, y: torch.amax(x.view(2, 4), 1, keepdim=False),
    "softmax": lambda x, y: torch.softmax(x.view(2, 4), 1),
    "matmul": lambda x, y: torch.mm(x.view(2, 4), y.view(4, 2)),
    "cat": lambda x, y: torch.cat([x, y], 0), "full": lambda x, y: torch.full([3], 1.0, dtype=torch.float32),
}
SKIP = {"update_aliases", "unpack_trivial", "del", "return", "python_return", "python_del", "comment", "unpack_sequence"}


def count(name, op):
    def fn(x, y):
        r = op(x, y)
        return r if r is not None else x
    jf = thunder.jit(fn, fusion_type="dataflow")
    try:
        jf(torch.arange(8.0) + 1, torch.arange(8.0) + 2)
    except Exception as e:
        return "unsupported: %s" % type(e).__name__
    trace = thunder.last_traces(jf)[-1]
    n = 0
    for b in trace.bound_symbols:
        if b.sym.name in SKIP or b.sym.name.startswith("unpack"):
            continue
        n += 1
    return n


if __name__ == "__main__":
    for name, op in OPS.items():
        print("%-12s %s" % (name, count(name, op)), flush=True)
