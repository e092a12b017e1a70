#!/usr/bin/env python3
"""The include graph of the C++ sources: 0 arrows up, 0 cycles.

A library file (not a *_test.cc or test_util.h) of a package may include
only its own package and packages below it in LAYERS; no two files may
include each other through a chain (header cycles); and every package
with C++ sources is placed in LAYERS, so a new one must be decided.
Tests may link higher packages (the oracle's PyTorch tests use the
generator), but not form cycles either.

    tools/layers_test.py [ROOT] [--xml OUT.xml]   # exit 1 on a violation
    tools/layers_test.py --self-test              # the checker finds planted faults

Run by tools/run_tests.sh (outside Bazel: it reads the whole tree).
"""
import os
import re
import sys
import tempfile
from xml.sax.saxutils import escape

# Lowest first: data flows text -> IR -> schedule -> lowering ->
# observables -> verdict -> findings -> reports (docs/design.md).
LAYERS = [
    "base", "ir", "oracles", "compilers", "run", "schedulers", "lowering",
    "generate", "check", "minimize", "triage", "campaign", "studies", "fuzz",
    "reports", "tools", "bench",
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+)/([^"]+)"', re.M)
SKIP_DIRS = {"third_party", "corpus", "docs"}


def is_test(path):
    name = os.path.basename(path)
    return name.endswith("_test.cc") or name.startswith("test_util")


def sources(root):
    """{relative path: text} of every .cc/.h under a package of ours."""
    out = {}
    for pkg in sorted(os.listdir(root)):
        d = os.path.join(root, pkg)
        if pkg.startswith((".", "bazel-")) or pkg in SKIP_DIRS or not os.path.isfile(os.path.join(d, "BUILD")):
            continue
        for dirpath, dirnames, files in os.walk(d):
            dirnames[:] = [x for x in dirnames if not x.startswith(".")]
            for f in files:
                if f.endswith((".cc", ".h")):
                    p = os.path.join(dirpath, f)
                    with open(p, encoding="utf-8", errors="replace") as fh:
                        out[os.path.relpath(p, root)] = fh.read()
    return out


def check(root):
    """The violations, one line each (empty: the graph is clean)."""
    files = sources(root)
    rank = {p: i for i, p in enumerate(LAYERS)}
    bad = []
    graph = {}
    for path, text in files.items():
        pkg = path.split("/")[0]
        if pkg not in rank:
            bad.append(f"{path}: package {pkg}/ is not in LAYERS (tools/layers_test.py): decide its layer")
            continue
        graph[path] = []
        for inc_pkg, rest in INCLUDE.findall(text):
            target = f"{inc_pkg}/{rest}"
            if target in files:
                graph[path].append(target)
            if inc_pkg not in rank or inc_pkg == pkg or is_test(path):
                continue
            if rank[inc_pkg] > rank[pkg]:
                bad.append(f"{path}: includes {target}, a higher layer ({pkg} < {inc_pkg})")
    # Cycles among files: an iterative DFS, one report per cycle found.
    state = {}
    for start in sorted(graph):
        if state.get(start):
            continue
        stack = [(start, iter(graph[start]))]
        state[start] = 1
        trail = [start]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                trail.pop()
            elif state.get(nxt) == 1:
                cyc = trail[trail.index(nxt):] + [nxt]
                bad.append("include cycle: " + " -> ".join(cyc))
            elif not state.get(nxt) and nxt in graph:
                state[nxt] = 1
                stack.append((nxt, iter(graph[nxt])))
                trail.append(nxt)
    return bad, len(files)


def self_test():
    """The checker fails on each planted fault and passes the clean tree."""
    def tree(files):
        d = tempfile.mkdtemp()
        for path, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
            open(os.path.join(d, path), "w").write(text)
            open(os.path.join(d, path.split("/")[0], "BUILD"), "w").write("")
        return d
    clean = {"ir/a.h": "", "check/c.h": '#include "ir/a.h"\n', "ir/a_test.cc": '#include "check/c.h"\n'}
    cases = {
        "clean": (clean, 0),
        "arrow up": ({**clean, "ir/b.h": '#include "check/c.h"\n'}, 1),
        "cycle": ({**clean, "check/d.h": '#include "check/e.h"\n', "check/e.h": '#include "check/d.h"\n'}, 1),
        "unplaced package": ({**clean, "newpkg/x.h": ""}, 1),
    }
    failed = 0
    for name, (files, want) in cases.items():
        got, _ = check(tree(files))
        ok = (len(got) > 0) == (want > 0)
        print(f"self-test {name}: {'ok' if ok else 'WRONG'} ({len(got)} violations)")
        failed += not ok
    return failed


def main(argv):
    if "--self-test" in argv:
        return 1 if self_test() else 0
    xml = argv[argv.index("--xml") + 1] if "--xml" in argv else None
    rest = [a for i, a in enumerate(argv) if a != "--xml" and (i == 0 or argv[i - 1] != "--xml")]
    root = rest[0] if rest else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    bad, n = check(root)
    planted = self_test()
    if planted:
        bad.append(f"the checker missed {planted} planted fault(s) (--self-test)")
    for b in bad:
        print(b)
    print(f"layers: {n} files, {len(bad)} violations ({' < '.join(LAYERS)})")
    if xml:
        body = "".join(f'<failure message="{escape(b, {chr(34): "&quot;"})}"/>' for b in bad)
        with open(xml, "w") as f:
            f.write(f'<testsuites><testsuite name="layers" tests="1" failures="{1 if bad else 0}">'
                    f'<testcase name="IncludeGraph">{body}</testcase></testsuite></testsuites>\n')
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
