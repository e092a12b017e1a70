"""Counts test cases from the gtest XML files Bazel leaves in bazel-testlogs.

A test target that failed without writing XML (a crash, a timeout, a build
failure) counts as one failed case. Prints skipped cases by name, then the
summary line `N passed, N failed[, N skipped]`; exit status 1 when any failed.
"""
import os
import sys
import xml.etree.ElementTree as ET


def current(target, targets):
    """Whether a testlogs folder (pkg/name or pkg/name/shard_K_of_N) is a
    test target that exists now: the output base outlives a target that was
    renamed or moved (a clone in the same folder reuses it), and its old
    test.xml must not count."""
    if targets is None:
        return True
    return target in targets or os.path.dirname(target) in targets


def xml_files(testlogs, extra, targets=None):
    """(target name, path) of Bazel's test.xml files and of extra *.xml files."""
    for dirpath, _, files in os.walk(testlogs):
        if "test.xml" in files and current(os.path.relpath(dirpath, testlogs), targets):
            yield os.path.relpath(dirpath, testlogs), os.path.join(dirpath, "test.xml")
    if extra:
        for dirpath, _, files in os.walk(extra):
            for f in sorted(files):
                if f.endswith(".xml"):
                    yield os.path.relpath(os.path.join(dirpath, f), extra), os.path.join(dirpath, f)


def read_targets(extra):
    """The test targets of this tree, as testlogs folders (pkg/name), from
    EXTRA/targets.txt (`bazel query 'tests(//...)'`, one label a line);
    None when absent (then every test.xml counts)."""
    path = os.path.join(extra, "targets.txt") if extra else ""
    if not path or not os.path.exists(path):
        return None
    out = set()
    for line in open(path):
        label = line.strip()
        if label.startswith("//"):
            out.add(label[2:].replace(":", "/"))
    return out


def main(testlogs, bazel_rc, extra=None):
    passed = failed = skipped = 0
    skipped_names = []
    for target, path in xml_files(testlogs, extra, read_targets(extra)):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            failed += 1
            print(f"FAILED (unreadable XML): {target}")
            continue
        cases = list(root.iter("testcase"))
        if not cases:
            # Bazel's own XML for a target that did not produce gtest XML.
            bad = any(e.tag in ("failure", "error") for e in root.iter())
            if bad:
                failed += 1
                print(f"FAILED: {target}")
            else:
                passed += 1
            continue
        for c in cases:
            name = f"{target}: {c.get('classname')}.{c.get('name')}"
            if c.find("failure") is not None or c.find("error") is not None:
                failed += 1
                print(f"FAILED: {name}")
            elif c.find("skipped") is not None or c.get("result") == "skipped":
                skipped += 1
                msg = c.find("skipped")
                why = msg.get("message", "") if msg is not None else ""
                skipped_names.append(f"{name} ({why.strip()})")
            else:
                passed += 1
    for s in skipped_names:
        print(f"skipped: {s}")
    if bazel_rc not in ("0", "3") and failed == 0:
        # Bazel failed (e.g. build error) but no case said so.
        failed = 1
        print(f"FAILED: bazel test exited with {bazel_rc}")
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "0",
                  sys.argv[3] if len(sys.argv) > 3 else None))
