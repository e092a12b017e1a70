# Which operands (and the result) does autograd save for backward, per op
# of the format? The table behind generate/training.cc saved_for_backward.
# For every choice of which operands require grad, one operand's (or the
# result's) version is bumped after the op, then backward: "modified by an
# inplace operation" means it was saved. Prints, per op, the argument
# positions and/or "result" saved under some choice.
#   .venvs/torch-VERSION/bin/python bench/autograd_saved.py
import torch, itertools
I = torch.tensor([0, 2]); M = torch.tensor([True, False, True, False])
def T(n=4): return torch.randn(n)
ops = {
 'add_': (lambda a, b: a.add_(b), 2), 'sub_': (lambda a, b: a.sub_(b), 2), 'mul_': (lambda a, b: a.mul_(b), 2),
 'div_': (lambda a, b: a.div_(b), 2), 'exp_': (lambda a: a.exp_(), 1), 'neg_': (lambda a: a.neg_(), 1),
 'abs_': (lambda a: a.abs_(), 1), 'relu_': (lambda a: a.relu_(), 1), 'tanh_': (lambda a: a.tanh_(), 1),
 'sigmoid_': (lambda a: a.sigmoid_(), 1), 'sin_': (lambda a: a.sin_(), 1), 'clamp_': (lambda a: a.clamp_(-0.5, 0.5), 1),
 'fill_': (lambda a: a.fill_(1.0), 1), 'zero_': (lambda a: a.zero_(), 1), 'copy_': (lambda a, b: a.copy_(b), 2),
 'setitem_': (lambda a, b: (a.__setitem__(slice(0, 2), b[:2]), a)[1], 2),
 'addcmul_': (lambda a, b, c: a.addcmul_(b, c, value=0.5), 3), 'addcdiv_': (lambda a, b, c: a.addcdiv_(b, c + 3, value=0.5), 3),
 'lerp_': (lambda a, b: a.lerp_(b, 0.3), 2), 'lerp_t': (lambda a, b, c: a.lerp_(b, c), 3),
 'clamp_tensor_': (lambda a, b, c: a.clamp_(b, c), 3),
 'index_put_': (lambda a, b: a.index_put_((I,), b[:2]), 2), 'index_add_': (lambda a, b: a.index_add_(0, I, b[:2]), 2),
 'index_copy_': (lambda a, b: a.index_copy_(0, I, b[:2]), 2), 'scatter_': (lambda a, b: a.scatter_(0, I, b[:2]), 2),
 'scatter_add_': (lambda a, b: a.scatter_add_(0, I, b[:2]), 2), 'masked_fill_': (lambda a: a.masked_fill_(M, 2.0), 1),
 'add': (lambda a, b: torch.add(a, b), 2), 'sub': (lambda a, b: torch.sub(a, b), 2), 'mul': (lambda a, b: torch.mul(a, b), 2),
 'div': (lambda a, b: torch.div(a, b), 2), 'mul_s': (lambda a: torch.mul(a, 2.0), 1), 'div_s': (lambda a: torch.div(a, 2.0), 1),
 'mul__s': (lambda a: a.mul_(2.0), 1), 'div__s': (lambda a: a.div_(2.0), 1), 'add_s': (lambda a: a.add_(2.0), 1),
 'exp': (lambda a: torch.exp(a), 1), 'neg': (lambda a: torch.neg(a), 1), 'abs': (lambda a: torch.abs(a), 1),
 'relu': (lambda a: torch.relu(a), 1), 'tanh': (lambda a: torch.tanh(a), 1), 'sigmoid': (lambda a: torch.sigmoid(a), 1),
 'sin': (lambda a: torch.sin(a), 1), 'clone': (lambda a: a.clone(), 1), 'sum': (lambda a: a.sum(0, True), 1),
 'amax': (lambda a: a.amax(0, True), 1), 'softmax': (lambda a: a.softmax(0), 1),
 'matmul': (lambda a, b: a.view(2, 2) @ b.view(2, 2), 2), 'cat': (lambda a, b: torch.cat([a, b]), 2),
 'slice_scatter': (lambda a, b: torch.slice_scatter(a, b[:2], 0, 0, 2), 2),
 'select_scatter': (lambda a, b: torch.select_scatter(a, b[0], 0, 1), 2),
 'diagonal_scatter': (lambda a, b: torch.diagonal_scatter(a.view(2, 2), b[:2]), 2),
 'as_strided_scatter': (lambda a, b: torch.as_strided_scatter(a, b[:2], [2], [2], 0), 2),
}
def run(f, n, grads, bump):
    ws = [torch.ones(4, requires_grad=g) for g in grads]
    xs = [T() * w if g else T() for w, g in zip(ws, grads)]  # non-leaves when grad
    r = f(*xs)
    if not any(grads): return None
    victim = r if bump == 'result' else xs[bump]
    with torch.no_grad(): victim.add_(0.0)
    try:
        r.sum().backward(); return False
    except RuntimeError as e:
        if 'modified by an inplace' in str(e): return True
        raise
for name, (f, n) in ops.items():
    saved = set()
    for grads in itertools.product([False, True], repeat=n):
        if not any(grads): continue
        for bump in list(range(n)) + ['result']:
            try:
                if run(f, n, grads, bump): saved.add((bump, grads))
            except RuntimeError as e:
                saved.add(('err', str(e)[:60]))
    pos = sorted({str(b) for b, g in saved})
    print(f"{name:20s} {' '.join(pos) or '-'}   {sorted(saved, key=str)[:6] if len(pos) else ''}")
