#!/usr/bin/env python3
"""Compares a grouping of ledger entries into root defects with a
reading of them (issue #57): `aliasfuzz ledger defects --json > g.json;
bench/defects_vs_truth.py g.json [bench/defects_truth.txt]`.

Prints the counts a maintainer cares about: defects that mix entries of
two truth defects (two fixes filed as one), truth defects split over
several found ones (one fix filed twice), and pairwise precision and
recall of "same defect"."""
import itertools
import json
import sys


def truth(path):
    out = {}
    for line in open(path):
        line = line.split("#")[0].strip()
        if not line:
            continue
        name, entries = line.split(":", 1)
        for e in entries.split():
            out[e] = name.strip()
    return out


def main():
    found = json.load(open(sys.argv[1]))
    t = truth(sys.argv[2] if len(sys.argv) > 2 else "bench/defects_truth.txt")
    of = {}
    for d in found:
        for e in d["entries"]:
            of[e] = d["defect"]
    entries = sorted(set(of) & set(t))
    missing = sorted(set(t) - set(of))
    mixed = [d for d in found if len({t.get(e) for e in d["entries"] if e in t}) > 1]
    groups = {}
    for e in entries:
        groups.setdefault(t[e], set()).add(of[e])
    split = {g: s for g, s in groups.items() if len(s) > 1}
    same_found = same_truth = both = 0
    for a, b in itertools.combinations(entries, 2):
        f, tr = of[a] == of[b], t[a] == t[b]
        same_found += f
        same_truth += tr
        both += f and tr
    print("%d entries, %d found defects, %d truth defects; %d not grouped" %
          (len(entries), len({of[e] for e in entries}), len(groups), len(missing)))
    print("mixed (two fixes in one defect): %d" % len(mixed))
    for d in mixed:
        print("  %s: %s" % (d["defect"], sorted({t.get(e) for e in d["entries"] if e in t})))
    print("split (one fix over several defects): %d" % len(split))
    for g, s in sorted(split.items()):
        print("  %s: %d defects" % (g, len(s)))
    print("pairwise precision %.2f, recall %.2f" %
          (both / same_found if same_found else 1.0, both / same_truth if same_truth else 1.0))


if __name__ == "__main__":
    main()
