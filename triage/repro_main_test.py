"""repro.py's comparison rules (triage/repro_main.py) on their own, in
plain Python: the same rules as the oracle's compare (oracles/compare.cc):
a relative and absolute tolerance of 1e-5, NaN equals NaN, infinities
exactly, i32 values bit for bit (format v1.5), an input's geometry by
sizes, offset and the strides of dims of size > 1, gradients by value.

    python3 triage/repro_main_test.py [path/to/repro_main.py]
"""
import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(HERE, "repro_main.py")


def load():
    """repro_main.py's functions, with the names the generated part of a
    repro.py defines before it (INPUT_NAMES, ...) stubbed."""
    ns = {"__name__": "repro_main", "math": math, "sys": sys, "INPUT_NAMES": ["x0", "x1"],
          "COMPILER": None, "FINDING": {}, "CRASH": False, "AF_BIN": ""}
    with open(SOURCE) as f:
        exec(compile(f.read(), SOURCE, "exec"), ns)
    return ns


R = load()


def ret(values, sizes=None, dtype=None):
    o = {"sizes": sizes if sizes is not None else [len(values)], "values": values}
    if dtype:
        o["dtype"] = dtype
    return o


class Agree(unittest.TestCase):
    def test_tolerance(self):
        self.assertTrue(R["_agree"](1.0, 1.0 + 5e-6))
        self.assertFalse(R["_agree"](1.0, 1.001))
        self.assertTrue(R["_agree"](1e6, 1e6 + 5))  # relative part
        self.assertFalse(R["_agree"](0.0, 1e-4))

    def test_nan_and_inf(self):
        nan, inf = float("nan"), float("inf")
        self.assertTrue(R["_agree"](nan, nan))
        self.assertFalse(R["_agree"](1.0, nan))
        self.assertFalse(R["_agree"](nan, 1.0))
        self.assertTrue(R["_agree"](inf, inf))
        self.assertFalse(R["_agree"](-inf, inf))
        self.assertFalse(R["_agree"](1e30, inf))

    def test_strings_are_numbers(self):  # JSON's "nan" / "inf" spellings
        self.assertTrue(R["_agree"]("nan", float("nan")))
        self.assertTrue(R["_agree"]("-inf", float("-inf")))


class FirstDiff(unittest.TestCase):
    def test_values(self):
        d = R["_first_diff"]
        self.assertIsNone(d(ret([1.0, 2.0]), ret([1.0, 2.0])))
        self.assertEqual(d(ret([1.0, 2.5]), ret([1.0, 2.0])), (1, 2.5, 2.0))
        self.assertEqual(d(ret([1.0], [1]), ret([1.0, 2.0], [2])), ("shape", [1], [2]))
        self.assertEqual(d({"sizes": None, "values": [1.0]}, {"sizes": None, "values": [1.0, 2.0]}), ("count", 1, 2))
        self.assertIsNone(d(None, ret([1.0])))

    def test_i32_is_exact(self):
        d = R["_first_diff"]
        self.assertEqual(d(ret([1000001], dtype="i32"), ret([1000000], dtype="i32")), (0, 1000001, 1000000))
        self.assertIsNone(d(ret([-5], dtype="i32"), ret([-5], dtype="i32")))
        self.assertEqual(d(ret([1.0]), ret([1], dtype="i32")), ("dtype", "f32", "i32"))

    def test_geometry(self):
        d, g = R["_first_diff"], lambda sizes, strides, offset: {"geometry": {"sizes": sizes, "strides": strides,
                                                                              "offset": offset}}
        self.assertIsNone(d(g([2, 1], [1, 7], 0), g([2, 1], [1, 1], 0)))  # a size-1 dim's stride is free
        self.assertEqual(d(g([2, 3], [1, 2], 0), g([2, 3], [3, 1], 0))[0], "geometry")
        self.assertEqual(d(g([2, 3], [3, 1], 1), g([2, 3], [3, 1], 0))[0], "geometry")

    def test_gradients(self):
        d = R["_first_diff"]
        self.assertIsNone(d({"grad": None}, {"grad": None}))
        self.assertEqual(d({"grad": [1.0]}, {"grad": None})[0], "gradient")
        self.assertEqual(d({"grad": [1.0, 3.0]}, {"grad": [1.0, 2.0]}), (1, 3.0, 2.0))


class Observables(unittest.TestCase):
    OBS = {"returns": [{"sizes": [1], "values": [4.0]}], "storages": {"s0": [1.0, 2.0]},
           "inputs": [{"sizes": [2], "strides": [1], "offset": 0}], "grads": [[0.5], None]}

    def test_names_in_order(self):
        self.assertEqual(R["_names"](self.OBS), ["return 0", "s0", "input x0", "input x1", "grad x0", "grad x1"])

    def test_get(self):
        get = R["_get"]
        self.assertEqual(get(self.OBS, "return 0")["values"], [4.0])
        self.assertEqual(get(self.OBS, "s0"), {"sizes": None, "values": [1.0, 2.0]})
        self.assertEqual(get(self.OBS, "input x0")["geometry"]["sizes"], [2])
        self.assertIsNone(get(self.OBS, "input x1"))  # not observed
        self.assertEqual(get(self.OBS, "grad x1"), {"grad": None})
        self.assertIsNone(get(self.OBS, "return 3"))

    def test_fmt(self):
        self.assertEqual(R["_fmt"](ret([1.0, 2.5])), "[1, 2.5] (shape [2])")
        self.assertIn("... (30 values)", R["_fmt"]({"sizes": None, "values": [0.0] * 30}))
        self.assertEqual(R["_fmt"]({"grad": None}), "(no gradient)")


if __name__ == "__main__":
    unittest.main(verbosity=2)
