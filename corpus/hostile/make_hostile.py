"""Writes the hostile inputs of corpus/hostile (issue #33): files that must
get exit 0, 1 or 2 and exactly one JSON object from `aliasfuzz run FILE
--json` within 30 s under a 4 GiB address-space limit (tools/e2e_test.sh).
Run from this folder: python3 make_hostile.py. Deterministic."""
import random

HEAD = b"aliasfuzz 1\n"
BIG = HEAD + b"storage s0 f32[4194304] = iota(0, 1)\n"


def lines(*ls):
    return b"".join(l + b"\n" for l in ls)


def w(name, data):
    with open(name + ".bad", "wb") as f:
        f.write(data)


small = HEAD + lines(b"storage s0 f32[4] = iota(0, 1)")
w("utf8_in_identifier", small + lines(b"input x\xff = s0", b"add_(x\xff, 1.0)", b"return x\xff"))
w("utf8_in_expression", small + lines(b"input x = s0", b"add_(x, 1.0\xc3)", b"return x"))
w("utf8_in_op_name", small + lines(b"input x = s0", b"y = a\xe2\x28\xa1dd(x, 1.0)", b"return y"))
w("utf8_overlong_in_storage", HEAD + lines(b"storage s\xc0\xaf f32[4] = iota(0, 1)", b"input x = s\xc0\xaf", b"return x"))
w("utf8_surrogate_in_return", small + lines(b"input x = s0", b"return x\xed\xa0\x80"))
w("utf8_in_list", small + lines(b"input x = as_strided(s0, [2\xf5], [1], 0)", b"return x"))
w("nul_bytes", small + lines(b"input x = s0\x00", b"\x00\x00return x"))
w("empty", b"")
rng = random.Random(33)
w("binary_garbage", bytes(rng.randrange(256) for _ in range(4096)))
w("long_identifier", small + lines(b"input " + b"x" * 200000 + b" = s0", b"return x"))
w("deeply_nested_list", small + lines(b"input x = as_strided(s0, " + b"[" * 100000 + b"]" * 100000 + b", [1], 0)"))
w("huge_numbers", HEAD + lines(b"storage s0 f32[99999999999999999999999999] = full(1e999999)", b"input x = s0", b"return x"))
w("crlf_line_ends", small.replace(b"\n", b"\r\n") + b"input x = s0\r\nadd_(x, 1.0)\r\nreturn x\r\n")
# Valid syntax, enormous work: a `limit` error before anything runs.
w("matmul_at_storage_limit", BIG + lines(b"input x = as_strided(s0, [2048, 2048], [2048, 1], 0)", b"y = matmul(x, x)", b"return y"))
w("ten_thousand_inplace_4m", BIG + lines(b"input x = s0", *([b"add_(x, 1.0)"] * 9997), b"return x"))
w("reductions_over_4m", BIG + lines(b"input x = as_strided(s0, [2048, 2048], [1, 2048], 0)",
                                    *[b"y%d = softmax(x, %d)" % (k, k % 2) for k in range(40)], b"return x"))
w("returns_of_4m", BIG + lines(b"input x = s0", b"return " + b", ".join([b"x"] * 200)))
w("cat_of_4m", BIG + lines(b"input x = as_strided(s0, [1024], [1], 0)", b"input y = s0",
                           b"z = cat([" + b", ".join([b"y"] * 64) + b"], 0)", b"return z"))
# Valid and cheap in work, long in statements: 9,000 views then a write through the last.
w("view_chain_9000", BIG + lines(b"input v0 = s0", *[b"v%d = view(v%d, [4194304])" % (k + 1, k) for k in range(9000)],
                                 b"add_(v9000, 1.0)", b"return v0"))
# Many storages at the per-storage limit (past the total).
w("storages_past_total", HEAD + lines(*[b"storage s%d f32[4194304] = full(1)" % k for k in range(40)]))
