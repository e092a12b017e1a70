#!/usr/bin/python3
"""Independent check of the oracle's `undefined` rule against PyTorch (issue #38).

Run with the Python that has PyTorch (Debian: /usr/bin/python3, torch 1.13):

    /usr/bin/python3 bench/partial_alias_check.py --programs 10000 --variants \
        --aliasfuzz bazel-bin/tools/aliasfuzz [--keep DIR] [--seed S] [--jobs 2]

It generates random partial-alias programs with its own generator (nothing
is shared with fuzz/): two to four `as_strided` inputs over one storage
with different sizes, strides and offsets, and one or two statements of a
multi-operand in-place op (add_, sub_, mul_, div_, copy_, setitem_,
addcmul_, addcdiv_, lerp_, clamp_tensor_), an out= op (add_out, mul_out,
neg_out) or an indexed write (index_put_, index_add_, index_copy_,
scatter_, scatter_add_), whose operands are views of the target's storage.
With --variants, each program also gets one variant (an input's offset or
a stride moved by one, or an index value changed).

For each program it
  1. runs it in PyTorch (`torch.as_strided` views, the Python API);
  2. decides, statement by statement, whether the result depends on the
     kernel's order, empirically: it executes the statement with a scalar
     model of every position (read the operands, compute, write) in six
     orders (all reads first, forward, reverse, three random permutations;
     the accumulating indexed ops read-modify-write each position, so
     their "all reads first" order is left out) and calls the statement
     order-dependent when two orders leave different memory;
  3. runs the oracle (`aliasfuzz run --json --strategy eager`) and compares:
     - PyTorch raises at line L: the oracle must give the same kind at L;
     - order-dependent at L (PyTorch ran): the oracle must say `undefined`
       at L (anything else is a miss);
     - order-independent and PyTorch ran: the oracle must run it with
       PyTorch's values (every storage); `undefined` is counted as a
       refusal of an order-independent program (the issue's measure).
It also checks that PyTorch's memory equals the model's on every
order-independent statement (a check of the model itself).

Prints one JSON summary; exit status 1 on any disagreement.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch

F32 = np.float32
# Distinct nonzero quarters in [-16, 16]: a storage never holds one value
# twice, so two orders that read different elements leave different memory.
VALUES = [q / 4.0 for q in range(-64, 65) if q != 0]

ELEMENTWISE = ["add_", "sub_", "mul_", "div_", "copy_", "setitem_", "addcmul_", "addcdiv_", "lerp_",
               "clamp_tensor_", "add_out", "mul_out", "neg_out"]
INDEXED = ["index_put_", "index_add_", "index_copy_", "scatter_", "scatter_add_"]


# ---- geometry -------------------------------------------------------------

def offsets(sizes, strides, offset):
    """Storage offsets of every element, row-major."""
    out = [offset]
    for n, st in zip(sizes, strides):
        out = [o + i * st for o in out for i in range(n)]
    return out if all(n > 0 for n in sizes) else []


def need(sizes, strides, offset):
    if any(n == 0 for n in sizes):
        return 0
    return offset + 1 + sum((n - 1) * s for n, s in zip(sizes, strides))


def broadcast(sizes, strides, to):
    """A view broadcast to shape `to` (new or size-1 dims get stride 0)."""
    k = len(to) - len(sizes)
    rs, rt = [], []
    for d, n in enumerate(to):
        if d < k:
            rs.append(n)
            rt.append(0)
        else:
            m, st = sizes[d - k], strides[d - k]
            rs.append(n)
            rt.append(st if m == n else 0)
    return rs, rt


# ---- the program generator --------------------------------------------------

class Prog:
    def __init__(self):
        self.storages = []   # (name, dtype, values)
        self.inputs = []     # (name, storage, sizes, strides, offset) ; sizes None: whole
        self.stmts = []      # (op, args): args are ("t", name) | ("i", int) | ("f", float)
        self.ret = None

    def text(self):
        lines = ["aliasfuzz 1"]
        for name, dt, vals in self.storages:
            lits = ", ".join(str(int(v)) if dt == "i64" else repr(float(v)) for v in vals)
            lines.append("storage %s %s[%d] = [%s]" % (name, dt, len(vals), lits))
        for name, s, sz, st, off in self.inputs:
            if sz is None:
                lines.append("input %s = %s" % (name, s))
            else:
                lines.append("input %s = as_strided(%s, %s, %s, %d)" % (name, s, list(sz), list(st), off))
        for op, args in self.stmts:
            a = []
            for kind, v in args:
                a.append(v if kind == "t" else str(v) if kind == "i" else repr(float(v)))
            lines.append("%s(%s)" % (op, ", ".join(a)))
        lines.append("return %s" % self.ret)
        return "\n".join(lines) + "\n"

    def line_of(self, k):  # program line of statement k
        return 2 + len(self.storages) + len(self.inputs) + k

    def input(self, name):
        for i in self.inputs:
            if i[0] == name:
                return i
        raise KeyError(name)


def rand_view(rng, numel, sizes, partner=None):
    """A random as_strided layout of `sizes` inside `numel` elements: often
    dense, often strided, sometimes with a zero or overlapping stride;
    `partner` (a layout) makes it a near copy with another offset or stride."""
    for _ in range(20):
        if partner is not None and rng.random() < 0.5:
            st = list(partner[1])
            off = partner[2]
            r = rng.random()
            if r < 0.4:
                off = max(0, off + rng.choice([-2, -1, 1, 2, 3]))
            elif st:
                d = rng.randrange(len(st))
                st[d] = max(0, st[d] + rng.choice([-1, 1, 2]))
                if r < 0.7:
                    off = max(0, off + rng.choice([-1, 0, 1]))
        else:
            st = []
            acc = rng.choice([1, 1, 1, 2, 3])
            for n in reversed(sizes):
                st.insert(0, acc)
                acc = acc * n + (rng.choice([0, 1, 2]) if rng.random() < 0.3 else 0)
            if len(sizes) > 1 and rng.random() < 0.25:
                rng.shuffle(st)
            if rng.random() < 0.08:
                st[rng.randrange(len(st))] = 0
            if rng.random() < 0.15:
                st = [rng.randrange(0, 5) for _ in sizes]
            off = rng.randrange(0, max(1, numel // 2))
        if need(sizes, st, off) <= numel:
            return (list(sizes), st, off)
    return None


def rand_shape(rng):
    r = rng.choice([1, 1, 2, 2, 3])
    return [rng.randint(1, 4) if r < 3 else rng.randint(1, 3) for _ in range(r)]


def gen_program(rng, variant_of=None):
    p = Prog()
    n = rng.randint(8, 28)
    p.storages.append(("s0", "f32", rng.sample(VALUES, n)))
    other = rng.random() < 0.15
    if other:
        p.storages.append(("s1", "f32", rng.sample(VALUES, rng.randint(4, 12))))
    names = []

    def add_input(sizes, partner=None, storage="s0"):
        numel = len([s for s in p.storages if s[0] == storage][0][2])
        lay = rand_view(rng, numel, sizes, partner)
        if lay is None:
            return None
        name = "x%d" % len(p.inputs)
        p.inputs.append((name, storage, lay[0], lay[1], lay[2]))
        names.append(name)
        return name

    def operand_shape(xs):
        if xs and rng.random() < 0.2:  # broadcasting: drop leading dims or set size 1
            s = list(xs[rng.randint(0, len(xs) - 1):]) if rng.random() < 0.5 else list(xs)
            if s and rng.random() < 0.5:
                s[rng.randrange(len(s))] = 1
            return s
        return list(xs)

    nst = 1 if rng.random() < 0.7 else 2
    idx_count = 0
    for k in range(nst):
        op = rng.choice(ELEMENTWISE + INDEXED)
        xs = rand_shape(rng)
        if op in INDEXED and rng.random() < 0.3:
            xs = [rng.randint(2, 5)]
        x = add_input(xs)
        if x is None:
            return None
        xl = p.input(x)[2:]

        def tensor_like(shape):
            st = "s1" if other and rng.random() < 0.2 else "s0"
            return add_input(shape, xl if st == "s0" and shape == xs else None, st)

        args = None
        if op in ("add_", "sub_", "mul_", "div_", "copy_"):
            y = tensor_like(operand_shape(xs))
            args = [("t", x), ("t", y)] if y else None
        elif op == "setitem_":
            d = rng.randrange(len(xs))
            s0 = rng.randrange(xs[d])
            e0 = rng.randint(s0 + 1, xs[d])
            ds = list(xs)
            ds[d] = e0 - s0
            v = tensor_like(operand_shape(ds))
            args = [("t", x), ("i", d), ("i", s0), ("i", e0), ("t", v)] if v else None
        elif op in ("addcmul_", "addcdiv_", "clamp_tensor_"):
            a = tensor_like(operand_shape(xs))
            b = tensor_like(operand_shape(xs))
            if a and b:
                args = [("t", x), ("t", a), ("t", b)]
                if op != "clamp_tensor_":
                    args.append(("f", rng.choice([0.5, -1.0, 2.0, 0.25])))
        elif op == "lerp_":
            e = tensor_like(operand_shape(xs))
            if e:
                if rng.random() < 0.5:
                    w = tensor_like(operand_shape(xs))
                    args = [("t", x), ("t", e), ("t", w)] if w else None
                else:
                    args = [("t", x), ("t", e), ("f", rng.choice([0.25, 0.75, -0.5, 1.5]))]
        elif op in ("add_out", "mul_out"):
            a = tensor_like(list(xs))
            b = tensor_like(operand_shape(xs))
            args = [("t", x), ("t", a), ("t", b)] if a and b else None
        elif op == "neg_out":
            a = tensor_like(list(xs))
            args = [("t", x), ("t", a)] if a else None
        else:
            dim = rng.randrange(len(xs))
            bad = rng.random() < 0.05  # an index out of range: arg before undefined

            def idx_input(vals, shape):
                nonlocal idx_count
                nm = "ix%d" % idx_count
                idx_count += 1
                p.storages.append((nm, "i64", vals))
                name = "i%d" % (idx_count - 1)
                if len(shape) == 1:
                    p.inputs.append((name, nm, None, None, 0))
                else:
                    st, acc = [], 1
                    for m in reversed(shape):
                        st.insert(0, acc)
                        acc *= m
                    p.inputs.append((name, nm, list(shape), st, 0))
                return name

            def draw(count, hi, dups):
                if dups or count > hi:
                    v = [rng.randrange(hi) for _ in range(count)]
                else:
                    v = rng.sample(range(hi), count)
                if bad:
                    v[rng.randrange(count)] = rng.choice([hi, hi + 1, -hi - 1])
                return v

            if op == "index_put_":
                acc = rng.random() < 0.5
                kk = rng.randint(1, min(3, xs[0]) if not acc else 3)
                vals = draw(kk, xs[0], acc and rng.random() < 0.5)
                if rng.random() < 0.3:
                    vals = [v - xs[0] if 0 <= v < xs[0] and rng.random() < 0.5 else v for v in vals]
                i = idx_input(vals, [kk])
                v = tensor_like(operand_shape([kk] + xs[1:]))
                args = [("t", x), ("t", i), ("t", v), ("i", 1 if acc else 0)] if v else None
            elif op in ("index_add_", "index_copy_"):
                acc = op == "index_add_"
                kk = rng.randint(1, min(3, xs[dim]) if not acc else 3)
                vals = draw(kk, xs[dim], acc and rng.random() < 0.5)
                i = idx_input(vals, [kk])
                ss = list(xs)
                ss[dim] = kk
                src = tensor_like(ss)
                args = [("t", x), ("i", dim), ("t", i), ("t", src)] if src else None
            else:
                acc = op == "scatter_add_"
                ishape = [rng.randint(1, xs[k]) for k in range(len(xs))]
                ishape[dim] = rng.randint(1, 3) if acc else rng.randint(1, xs[dim])
                outer = 1
                for m in ishape[:dim]:
                    outer *= m
                inner = 1
                for m in ishape[dim + 1:]:
                    inner *= m
                vals = [0] * (outer * ishape[dim] * inner)
                for o in range(outer):
                    for j in range(inner):
                        col = draw(ishape[dim], xs[dim], acc and rng.random() < 0.5) if not bad else \
                            [rng.randrange(xs[dim]) for _ in range(ishape[dim])]
                        for t in range(ishape[dim]):
                            vals[(o * ishape[dim] + t) * inner + j] = col[t]
                if bad:
                    vals[rng.randrange(len(vals))] = xs[dim] + rng.randint(0, 1)
                i = idx_input(vals, ishape)
                ss = [m + (rng.randint(0, 1) if rng.random() < 0.3 else 0) for m in ishape]
                src = tensor_like(ss)
                args = [("t", x), ("i", dim), ("t", i), ("t", src)] if src else None
        if args is None:
            return None
        p.stmts.append((op, args))
        p.ret = x
    return p


def variant(rng, p):
    """One input's offset or a stride moved by one, or an index value changed."""
    q = Prog()
    q.storages = [(a, b, list(c)) for a, b, c in p.storages]
    q.inputs = [tuple(list(i)) for i in p.inputs]
    q.stmts = list(p.stmts)
    q.ret = p.ret
    f32_inputs = [k for k, i in enumerate(q.inputs) if i[2] is not None and i[1].startswith("s")]
    ix = [k for k, s in enumerate(q.storages) if s[1] == "i64"]
    if ix and rng.random() < 0.25:
        k = rng.choice(ix)
        vals = q.storages[k][2]
        vals[rng.randrange(len(vals))] += rng.choice([-1, 1])
        return q
    if not f32_inputs:
        return None
    k = rng.choice(f32_inputs)
    name, s, sz, st, off = q.inputs[k]
    st = list(st)
    if rng.random() < 0.5 or not st:
        off = max(0, off + rng.choice([-1, 1]))
    else:
        d = rng.randrange(len(st))
        st[d] = max(0, st[d] + rng.choice([-1, 1]))
    numel = len([x for x in q.storages if x[0] == s][0][2])
    if need(sz, st, off) > numel:
        return None
    q.inputs[k] = (name, s, sz, st, off)
    return q


# ---- PyTorch ---------------------------------------------------------------

def classify(e):
    m = str(e)
    if "unsupported operation" in m:
        return "overlap"
    if re.search(r"must match the size|doesn't match the broadcast shape|shape mismatch|Expected index"
                 r"|same number of dimensions|source tensor shape must match|Number of indices"
                 r"|dimensionality must match|must one or zero", m):
        return "shape"
    if isinstance(e, IndexError) or re.search(r"out of bounds|out of range|index .* is out", m):
        return "arg"
    return "other: " + m.splitlines()[0][:120] if m else "other"


def run_torch(p):
    """(memory by storage name, error (kind, line) or None)."""
    st = {}
    for name, dt, vals in p.storages:
        st[name] = torch.tensor(vals, dtype=torch.int64 if dt == "i64" else torch.float32)
    env = {}
    for name, s, sz, strd, off in p.inputs:
        env[name] = st[s] if sz is None else torch.as_strided(st[s], sz, strd, off)
    T = lambda a: env[a[1]] if a[0] == "t" else a[1]
    err = None
    for k, (op, args) in enumerate(p.stmts):
        a = [T(x) for x in args]
        try:
            if op in ("add_", "sub_", "mul_", "div_", "copy_"):
                getattr(a[0], op)(a[1])
            elif op == "setitem_":
                x, d, s0, e0, v = a
                x[(slice(None),) * d + (slice(s0, e0),)] = v
            elif op in ("addcmul_", "addcdiv_"):
                getattr(a[0], op)(a[1], a[2], value=a[3])
            elif op == "clamp_tensor_":
                a[0].clamp_(a[1], a[2])
            elif op == "lerp_":
                a[0].lerp_(a[1], a[2])
            elif op in ("add_out", "mul_out"):
                getattr(torch, op[:-4])(a[1], a[2], out=a[0])
            elif op == "neg_out":
                torch.neg(a[1], out=a[0])
            elif op == "index_put_":
                a[0].index_put_((a[1],), a[2], accumulate=bool(a[3]))
            else:
                getattr(a[0], op)(a[1], a[2], a[3])
        except Exception as e:  # noqa: BLE001 (PyTorch refused it)
            err = (classify(e), p.line_of(k), str(e).splitlines()[0][:160] if str(e) else type(e).__name__)
            break
    mem = {name: t.tolist() for name, t in st.items()}
    return mem, err


# ---- the position model ----------------------------------------------------

def lerp(x, e, w):
    return x + w * (e - x) if abs(w) < F32(0.5) else e - (e - x) * (F32(1) - w)


def clamp(x, lo, hi):
    if np.isnan(lo) or np.isnan(hi):
        return F32("nan")
    if np.isnan(x):
        return x
    return min(max(x, lo), hi)


def positions(p, k):
    """The statement's positions: (write address, storage, [(storage, read address)], f(values, old)),
    and whether it accumulates (read-modify-write of the target)."""
    op, args = p.stmts[k]
    geo = {}
    for name, s, sz, st, off in p.inputs:
        geo[name] = (s, sz, st, off)
    ivals = {}
    for name, s, sz, st, off in p.inputs:
        if s.startswith("ix"):
            vals = [x for x in p.storages if x[0] == s][0][2]
            ivals[name] = [vals[o] for o in (range(len(vals)) if sz is None else offsets(sz, st, off))]
            geo[name] = (s, [len(vals)] if sz is None else sz, None, None)
    pos = []
    if op in INDEXED:
        x = args[0][1]
        s, xs, xst, xo = geo[x]
        acc = (op == "index_put_" and args[3][1] == 1) or op in ("index_add_", "scatter_add_")
        if op == "index_put_":
            idx = ivals[args[1][1]]
            vs, vsz, vst, vo = geo[args[2][1]]
            slot = [len(idx)] + xs[1:]
            bs, bt = broadcast(vsz, vst, slot)
            vaddr = offsets(bs, bt, vo)
            inner = 1
            for m in xs[1:]:
                inner *= m
            inner_off = offsets(xs[1:], xst[1:], 0) if len(xs) > 1 else [0]
            for kk, i in enumerate(idx):
                i = i + xs[0] if i < 0 else i
                for j in range(inner):
                    pos.append((xo + i * xst[0] + inner_off[j], s, [(vs, vaddr[kk * inner + j])]))
        elif op in ("index_add_", "index_copy_"):
            dim = args[1][1]
            idx = ivals[args[2][1]]
            ss, ssz, sst, so = geo[args[3][1]]
            for c in np.ndindex(*ssz):
                w = xo + sum((idx[c[d]] if d == dim else c[d]) * xst[d] for d in range(len(xs)))
                r = so + sum(c[d] * sst[d] for d in range(len(ssz)))
                pos.append((w, s, [(ss, r)]))
        else:
            dim = args[1][1]
            iname = args[2][1]
            idx = ivals[iname]
            ishape = geo[iname][1]
            ss, ssz, sst, so = geo[args[3][1]]
            for n, c in enumerate(np.ndindex(*ishape)):
                w = xo + sum((idx[n] if d == dim else c[d]) * xst[d] for d in range(len(xs)))
                r = so + sum(c[d] * sst[d] for d in range(len(ssz)))
                pos.append((w, s, [(ss, r)]))
        f = (lambda v, old: old + v[0]) if acc else (lambda v, old: v[0])
        return [(w, s, reads, f) for w, s, reads in pos], acc
    # elementwise: the written view, the operands broadcast to it
    if op == "setitem_":
        x, d, s0, e0 = args[0][1], args[1][1], args[2][1], args[3][1]
        s, xs, xst, xo = geo[x]
        ws = list(xs)
        ws[d] = e0 - s0
        wsz, wst, wo = ws, xst, xo + s0 * xst[d]
        operands = [args[4]]
    else:
        s, wsz, wst, wo = geo[args[0][1]]
        operands = args[1:] if op in ("add_out", "mul_out", "neg_out", "copy_") else args
    waddr = offsets(wsz, wst, wo)
    reads = []
    consts = []
    for a in operands:
        if a[0] == "t":
            os_, osz, ost, oo = geo[a[1]]
            bs, bt = broadcast(osz, ost, wsz)
            reads.append((os_, offsets(bs, bt, oo)))
        else:
            consts.append(F32(a[1]))
    base = op[:-4] if op.endswith("_out") else op.rstrip("_")
    c = consts[0] if consts else None

    def fn(v, old):
        if base == "add":
            return v[0] + v[1]
        if base == "sub":
            return v[0] - v[1]
        if base == "mul":
            return v[0] * v[1]
        if base == "div":
            return v[0] / v[1]
        if base in ("copy", "setitem"):
            return v[0]
        if base == "neg":
            return -v[0]
        if base == "addcmul":
            return v[0] + c * v[1] * v[2]
        if base == "addcdiv":
            return v[0] + c * v[1] / v[2]
        if base == "lerp":
            return lerp(v[0], v[1], v[2] if len(v) > 2 else c)
        if base == "clamp_tensor":
            return clamp(v[0], v[1], v[2])
        raise ValueError(op)
    for n, w in enumerate(waddr):
        pos.append((w, s, [(rs, ra[n]) for rs, ra in reads], fn))
    return pos, False


def simulate(mem, pos, order, snapshot, acc):
    m = {k: list(v) for k, v in mem.items()}
    if snapshot:
        vals = [[m[s][a] for s, a in reads] for _, _, reads, _ in pos]
        for n in order:
            w, s, reads, f = pos[n]
            m[s][w] = f(vals[n], m[s][w])
    else:
        for n in order:
            w, s, reads, f = pos[n]
            m[s][w] = f([m[rs][a] for rs, a in reads], m[s][w])
    return m


def same_mem(a, b, tol=0.0):
    for k in a:
        for x, y in zip(a[k], b[k]):
            if x != y and not (x != x and y != y):
                if tol and abs(float(x) - float(y)) <= tol * (1 + abs(float(y))):
                    continue
                return False
    return True


def model(p, rng, upto):
    """Memory after the first `upto` statements, or ('dependent', line) at
    the first order-dependent one."""
    mem = {}
    for name, dt, vals in p.storages:
        mem[name] = [F32(v) for v in vals] if dt == "f32" else list(vals)
    for k in range(upto):
        pos, acc = positions(p, k)
        n = len(pos)
        orders = [list(range(n)), list(reversed(range(n)))]
        for _ in range(3):
            o = list(range(n))
            rng.shuffle(o)
            orders.append(o)
        results = [simulate(mem, pos, o, False, acc) for o in orders]
        if not acc:
            results.append(simulate(mem, pos, list(range(n)), True, acc))
        if any(not same_mem(results[0], r) for r in results[1:]):
            return ("dependent", p.line_of(k)), k
        mem = results[0]
    return mem, len(p.stmts)


# ---- the oracle ------------------------------------------------------------

def run_oracle(binary, text, tmpdir, tag):
    path = os.path.join(tmpdir, "p%s.af" % tag)
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([binary, "run", path, "--json", "--strategy", "eager"], capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {"crash": (r.stdout + r.stderr)[-400:]}


def perturbed(p, rng, how):
    """p with other storage values (distinct; `how`: one element 0, inf or NaN)."""
    q = Prog()
    q.inputs, q.stmts, q.ret = p.inputs, p.stmts, p.ret
    for name, dt, vals in p.storages:
        if dt == "f32":
            vals = rng.sample(VALUES, len(vals))
            if how is not None:  # about a third of the elements
                for i in rng.sample(range(len(vals)), max(1, len(vals) // 3)):
                    vals[i] = how
        q.storages.append((name, dt, vals))
    return q


def value_dependent(p, rng, line):
    """Whether the statement at `line`, order-independent with p's values, is
    order-dependent with other values (a coincidence or an identity of the
    arithmetic such as t / t or clamp(x, lo, x), which fails for 0, inf or
    NaN): 18 trials."""
    k = line - p.line_of(0)
    for how in [None] * 6 + [0.0] * 4 + [float("inf")] * 4 + [float("nan")] * 4:
        m, _ = model(perturbed(p, rng, how), rng, k + 1)
        if isinstance(m, tuple) and m[1] == line:
            return True
    return False


def refusal(p, rng, oerr):
    """The category of the oracle's `undefined` at a statement the model found
    order-independent with the program's values."""
    if value_dependent(p, rng, oerr["line"]):
        return "refused-value-dependent", "line %d: %s" % (oerr["line"], oerr["message"])
    return "refused-independent", "line %d: %s" % (oerr["line"], oerr["message"])


def judge(p, rng, oracle):
    """(category, detail): category in agree-valid, agree-error, agree-undefined,
    refused-independent (the oracle says `undefined` where no values make the
    statement order-dependent), refused-value-dependent (where only the
    program's values make it order-independent), model-error, disagree."""
    if "crash" in oracle:
        return "disagree", "oracle crashed: " + oracle["crash"]
    tmem, terr = run_torch(p)
    # the model runs the statements before the one PyTorch raises at
    m, upto = model(p, rng, len(p.stmts) if not terr else terr[1] - p.line_of(0))
    dep = isinstance(m, tuple)
    oerr = oracle.get("error")
    okind = (oerr["kind"], oerr["line"]) if oerr else None
    # the oracle refuses a statement before the first one that PyTorch
    # raises at or the model finds order-dependent
    first = m[1] if dep else terr[1] if terr else 1 << 30
    if okind and okind[0] == "undefined" and okind[1] < first:
        return refusal(p, rng, oerr)
    # PyTorch raised before any order-dependent statement
    if terr and not dep:
        if okind == terr[:2]:
            return "agree-error", terr[0]
        return "disagree", "PyTorch raises %s at line %d (%s); oracle %s" % (terr[0], terr[1], terr[2], okind)
    if dep:
        if okind == ("undefined", m[1]):
            return "agree-undefined", None
        return "disagree", "order-dependent at line %d (model); oracle %s" % (m[1], okind)
    # order-independent, PyTorch ran: the model must equal PyTorch, the oracle both
    if not same_mem({k: m[k] for k in tmem}, tmem, 1e-5):
        return "model-error", "the position model differs from PyTorch: %s vs %s" % (m, tmem)
    if okind:
        return "disagree", "PyTorch runs it; oracle %s %s" % (okind, oerr["message"])
    ost = oracle["oracle"]["storages"]
    for name, dt, _ in p.storages:
        if dt == "f32" and not same_mem({name: ost[name]}, {name: tmem[name]}, 1e-5):
            return "disagree", "storage %s: oracle %s, PyTorch %s" % (name, ost[name], tmem[name])
    return "agree-valid", None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=1000)
    ap.add_argument("--variants", action="store_true", help="also one variant per program")
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--aliasfuzz", default="bazel-bin/tools/aliasfuzz")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", help="write the refused and disagreeing programs here")
    ap.add_argument("--show", type=int, default=5, help="print this many examples per category")
    ap.add_argument("--by-op", action="store_true", help="print the counts per op sequence")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    progs = []
    while len(progs) < a.programs:
        p = gen_program(rng)
        if p is None:
            continue
        progs.append(("program", p))
        if a.variants:
            for _ in range(10):
                q = variant(rng, p)
                if q is not None:
                    progs.append(("variant", q))
                    break
    tmp = tempfile.mkdtemp(prefix="af_partial_alias_")
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        outs = list(ex.map(lambda kp: run_oracle(a.aliasfuzz, kp[1][1].text(), tmp, kp[0]), enumerate(progs)))
    counts, examples = {}, {}
    by_op = {}
    for (kind, p), o in zip(progs, outs):
        cat, detail = judge(p, random.Random(a.seed), o)
        counts.setdefault(kind, {}).setdefault(cat, 0)
        counts[kind][cat] += 1
        ops = "+".join(op for op, _ in p.stmts)
        if cat != "agree-valid" and cat != "agree-error":
            examples.setdefault(cat, [])
            if len(examples[cat]) < a.show:
                examples[cat].append({"program": p.text(), "detail": detail})
            if a.keep:
                os.makedirs(os.path.join(a.keep, cat), exist_ok=True)
                with open(os.path.join(a.keep, cat, "%d.af" % len(os.listdir(os.path.join(a.keep, cat)))), "w") as f:
                    f.write("# " + str(detail).replace("\n", " ") + "\n" + p.text())
        if cat in ("refused-independent", "refused-value-dependent", "agree-valid", "agree-undefined"):
            b = by_op.setdefault(ops, {})
            b[cat] = b.get(cat, 0) + 1
    total = sum(sum(c.values()) for c in counts.values())
    ran = sum(c.get("agree-valid", 0) + c.get("refused-independent", 0) + c.get("refused-value-dependent", 0)
              for c in counts.values())
    refused = sum(c.get("refused-independent", 0) for c in counts.values())
    refused_v = sum(c.get("refused-value-dependent", 0) for c in counts.values())
    bad = sum(c.get("disagree", 0) + c.get("model-error", 0) for c in counts.values())
    summary = {
        "torch": torch.__version__,
        "programs": total,
        "counts": counts,
        "order_independent_and_run_by_torch": ran,
        "refused_as_undefined": refused,
        "refused_share": (refused / ran) if ran else 0.0,
        "refused_value_dependent": refused_v,
        "refused_value_dependent_share": (refused_v / ran) if ran else 0.0,
        "disagreements": bad,
        "examples": examples,
    }
    if a.by_op:
        summary["by_op"] = by_op
    print(json.dumps(summary, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
