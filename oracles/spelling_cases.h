// Programs rich in the ops the PyTorch script spells as users write them
// (slice as indexing, alias as x[...], as_strided, clone, setitem_ along
// negative dims): oracles/torch_spelling_test checks them against PyTorch
// 1.13, compilers/external_test against Thunder.
#pragma once

namespace af::oracles::spelling_cases {

inline const char* kSlices = R"(aliasfuzz 1
storage s0 f32[60] = iota(0, 1)
input x = as_strided(s0, [3, 5], [5, 1], 0)
input y = as_strided(s0, [2, 3, 5], [15, 1, 3], 15)
a = slice(x, 1, 1, 4, 2)
b = slice(x, -1, -3, 100, 1)
c = slice(x, 0, -100, 2, 1)
d = slice(x, 1, 4, 2, 1)
e = slice(x, -2, 7, 9, 3)
f = slice(x, 1, 0, 5, 7)
g = slice(b, 0, 1, 3, 1)
h = slice(y, -2, -1, 3, 2)
i = slice(y, 2, 1, -1, 1)
j = t(x)
k = slice(j, 0, 3, 5, 1)
l = slice(x, 0, 0, 3, 1)
add_(g, 100.0)
mul_(k, -1.0)
add_(l, 0.5)
return a, b, c, d, e, f, g, h, i, k, l
)";

inline const char* kAliases = R"(aliasfuzz 1
storage s0 f32[12] = iota(1, 1)
storage s1 f32[4] = [0.5, -1, 2, 3.25]
input x = as_strided(s0, [3, 4], [1, 3], 0)
input z = s1
a = alias(x)
mul_(a, 2.0)
b = alias(a)
t0 = add(b, x)
u = select(z, 0, 1)
v = alias(u)
add_(v, 10.0)
w = as_strided(x, [2, 2], [1, 4], 3)
add_(w, 1.0)
q = as_strided(z, [2], [2], 1)
return a, b, t0, v, w, q, x
)";

inline const char* kClones = R"(aliasfuzz 1
storage s0 f32[12] = iota(0, 0.5)
storage s1 f32[4] = [0.5, -1, 2, 3.25]
storage s2 f32[12] = iota(3, 1)
input x = as_strided(s0, [3, 4], [1, 3], 0)
input xc = as_strided(s2, [3, 4], [4, 1], 0)
input z = s1
c = clone(x)
v = view(c, [12])
w = as_strided(c, [2, 3], [1, 2], 1)
r = reshape(c, [4, 3])
add_(r, 1.0)
f = flatten(c)
mul_(f, 2.0)
cc = clone(xc)
vc = view(cc, [2, 6])
e = expand(z, [3, 4])
ce = clone(e)
ve = view(ce, [12])
ge = contiguous(ce)
add_(ge, 0.25)
s = select(z, 0, 2)
cs = clone(s)
add_(cs, 1.0)
p = permute(xc, [1, 0])
cp = clone(p)
wp = as_strided(cp, [4], [3], 0)
n = slice(xc, 1, 0, 4, 2)
cn = clone(n)
vn = view(cn, [6])
return c, v, w, r, f, cc, vc, ce, ve, ge, cs, cp, wp, cn, vn, x
)";

inline const char* kSetitems = R"(aliasfuzz 1
storage s0 f32[24] = iota(0, 1)
storage s1 f32[2] = [7, 8]
input x = as_strided(s0, [2, 3, 4], [12, 4, 1], 0)
input v = s1
setitem_(x, -1, 1, 3, 5.0)
setitem_(x, -2, 0, 1, -2.5)
u = unsqueeze(v, 0)
setitem_(x, -3, 1, 2, 9.0)
t0 = select(x, 0, 0)
setitem_(t0, -1, 2, 4, u)
return x, t0
)";

}  // namespace af::oracles::spelling_cases
