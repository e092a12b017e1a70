#!/usr/bin/env bash
# The shipped tool, end to end: every check here runs //tools:aliasfuzz, the
# very binary `./aliasfuzz` builds and runs for users (same target, same
# flags, same allocator: mimalloc), never a test binary linked another way.
# A green suite once hid that `--target opencl` aborted in the tool only
# (issue #33): the opencl tests linked glibc's malloc, the tool mimalloc.
#
# Covers every target (interp, host, opencl, ptx; cuda is skipped without a
# GPU), an internal strategy, a mutant, --checked, a `py:` compiler (Debian's
# PyTorch), an external strategy (when .venv-thunder exists, else skipped),
# run / fuzz / minimize / report / compare, and the bad-input contract: every
# file of corpus/hostile gets exit 0, 1 or 2 and exactly one JSON object from
# `run --json` within 30 s under a 4 GiB address-space limit.
#
# Under Bazel (//tools:e2e_test) the binary comes from the runfiles; by hand:
#   tools/e2e_test.sh [path/to/aliasfuzz]
set -uo pipefail
if [[ -n "${TEST_SRCDIR:-}" ]]; then
  src="$TEST_SRCDIR/${TEST_WORKSPACE:-aliasfuzz}"
  bin="$src/tools/aliasfuzz"
else
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  bin=${1:-$src/bazel-bin/tools/aliasfuzz}
fi
bin=$(realpath "$bin")
# shellcheck source=tools/test_cases.sh
source "$src/tools/test_cases.sh"
T=${TEST_TMPDIR:-$(mktemp -d)}/e2e
rm -rf "$T" && mkdir -p "$T"
# As ./aliasfuzz runs it (the wrapper sets AF_ROOT to the checkout).
export AF_ROOT="${AF_ROOT:-$src}"
PY=/usr/bin/python3
example="$src/corpus/examples/overlapping_inputs.af"

# run_tool NAME CMD...: runs the tool (10 min cap), output in $T/NAME.{out,err}, status in $rc.
run_tool() {
  local name=$1
  shift
  timeout 600 "$@" >"$T/$name.out" 2>"$T/$name.err"
  rc=$?
}
# why NAME: the first lines of a failed command's output, for the message.
why() { head -c 600 "$T/$1.out" "$T/$1.err" | tr '\n' ' '; }

# json_check FILE PYTHON-EXPR: the expression over j (the file's one JSON object) holds.
json_check() {
  $PY - "$1" "$2" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
j = json.loads(text)
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# ---- run, on every target --------------------------------------------------------
for target in interp host opencl ptx; do
  run_tool "run-$target" "$bin" run "$example" --target "$target" --json
  if [[ $rc -eq 0 ]] && json_check "$T/run-$target.out" \
       'j["valid"] and len(j["runs"]) >= 4 and all(r["agree"] for r in j["runs"])'; then
    case_ok "run --target $target agrees"
  else
    case_fail "run --target $target agrees" "exit $rc: $(why "run-$target")"
  fi
done
# The text form, as a user reads it, on the target that once aborted.
run_tool run-opencl-text "$bin" run "$example" --target opencl
if [[ $rc -eq 0 ]] && ! grep -q DISAGREES "$T/run-opencl-text.out" && grep -q agrees "$T/run-opencl-text.out"; then
  case_ok "run --target opencl (text)"
else
  case_fail "run --target opencl (text)" "exit $rc: $(why run-opencl-text)"
fi
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  run_tool run-cuda "$bin" run "$example" --target cuda --json
  if [[ $rc -eq 0 ]] && json_check "$T/run-cuda.out" 'j["valid"] and all(r["agree"] for r in j["runs"])'; then
    case_ok "run --target cuda agrees"
  else
    case_fail "run --target cuda agrees" "exit $rc: $(why run-cuda)"
  fi
else
  run_tool run-cuda "$bin" run "$example" --target cuda
  # Without a GPU the tool must say so (exit 2), not crash.
  if [[ $rc -eq 2 ]]; then case_skip "run --target cuda agrees" "no GPU"; else
    case_fail "run --target cuda without a GPU is a usage error" "exit $rc: $(why run-cuda)"; fi
fi

# ---- strategies, a mutant, --checked ----------------------------------------------------
run_tool run-fn "$bin" run "$example" --strategy functionalize --target host --checked --json
if [[ $rc -eq 0 ]] && json_check "$T/run-fn.out" 'j["runs"][0]["strategy"] == "functionalize" and j["runs"][0]["agree"]'; then
  case_ok "run --strategy functionalize --target host --checked"
else
  case_fail "run --strategy functionalize --target host --checked" "exit $rc: $(why run-fn)"
fi
# A program the Halide lowering refuses (a flip): not supported, exit 0, as a
# campaign counts it; never a disagreement.
run_tool run-flip-host "$bin" run "$src/corpus/examples/flip_written_back.af" --target host --json
if [[ $rc -eq 0 ]] && json_check "$T/run-flip-host.out" \
  'all(r["agree"] and r["unsupported"].startswith("unsupported by the Halide lowering: flip") for r in j["runs"])'; then
  case_ok "run --target host of a program the lowering refuses: not supported"
else
  case_fail "run --target host of a program the lowering refuses: not supported" "exit $rc: $(why run-flip-host)"
fi
# A mutant that this program exposes: exit 1, a disagreement named in the JSON.
mutant_case="$T/two_inputs.af"
cat >"$mutant_case" <<'EOF'
aliasfuzz 1
storage s0 f32[4] = iota(0, 1)
input a = as_strided(s0, [], [], 1)
input b = as_strided(s0, [], [], 1)
add_(a, 1.0)
return b
EOF
for target in interp opencl; do
  run_tool "run-mutant-$target" "$bin" run "$mutant_case" --strategy functionalize --inject fn-per-input-base --target "$target" --json
  if [[ $rc -eq 1 ]] && json_check "$T/run-mutant-$target.out" 'not j["runs"][0]["agree"] and j["runs"][0]["first_mismatch"]'; then
    case_ok "run --inject fn-per-input-base --target $target disagrees"
  else
    case_fail "run --inject fn-per-input-base --target $target disagrees" "exit $rc: $(why "run-mutant-$target")"
  fi
done

# ---- a py: compiler (Debian's PyTorch) and an external strategy --------------------------
cp "$src/oracles/testdata/toy_compiler.py" "$T/"
(
  cd "$T" || exit 1
  run_tool py-as-is "$bin" run "$example" --strategy "py:toy_compiler:as_is@$PY" --json
  echo "$rc" >"$T/py-as-is.rc"
  run_tool py-drop "$bin" run "$mutant_case" --strategy "py:toy_compiler:drop_inplace_writes@$PY" --json
  echo "$rc" >"$T/py-drop.rc"
)
rc=$(cat "$T/py-as-is.rc")
if [[ $rc -eq 0 ]] && json_check "$T/py-as-is.out" 'j["runs"][0]["agree"]'; then
  case_ok "py: compiler that is right agrees"
else
  case_fail "py: compiler that is right agrees" "exit $rc: $(why py-as-is)"
fi
rc=$(cat "$T/py-drop.rc")
if [[ $rc -eq 1 ]] && json_check "$T/py-drop.out" 'not j["runs"][0]["agree"]'; then
  case_ok "py: compiler that drops writes disagrees"
else
  case_fail "py: compiler that drops writes disagrees" "exit $rc: $(why py-drop)"
fi
if [[ -x "$src/.venv-thunder/bin/python" ]]; then
  run_tool ext "$bin" run "$example" --strategy torch-functionalize --json
  if [[ $rc -eq 0 || $rc -eq 1 ]] && json_check "$T/ext.out" 'j["runs"][0]["strategy"] == "torch-functionalize"'; then
    case_ok "external strategy torch-functionalize runs"
  else
    case_fail "external strategy torch-functionalize runs" "exit $rc: $(why ext)"
  fi
else
  case_skip "external strategy torch-functionalize runs" "no .venv-thunder (./aliasfuzz setup --thunder)"
fi

# A campaign against a compiler that is not installed compares nothing: an error, not an oracle-only run.
run_tool fuzz-absent "$bin" fuzz --strategy "py:oracles.testdata.toy_compiler:as_is@$T/no-such-python" \
  --programs 5 --seed 1 --out "$T/c-absent" --quiet
if [[ $rc -eq 2 ]] && grep -q "nothing to compare" "$T/fuzz-absent.err"; then
  case_ok "fuzz against an uninstalled compiler says so (exit 2)"
else
  case_fail "fuzz against an uninstalled compiler says so (exit 2)" "exit $rc: $(why fuzz-absent)"
fi

# Torch versions (issue #36): a version that is not installed is a usage
# error naming the set-up command; a malformed NAME@VERSION is refused.
run_tool fuzz-torch-absent "$bin" fuzz --strategy aot-eager --torch 0.0.1 --programs 5 --seed 1 \
  --out "$T/c-torch-absent" --quiet
if [[ $rc -eq 2 ]] && grep -q "setup --torch 0.0.1" "$T/fuzz-torch-absent.err"; then
  case_ok "fuzz --torch with a torch that is not installed says how to install it (exit 2)"
else
  case_fail "fuzz --torch with a torch that is not installed says how to install it (exit 2)" "exit $rc: $(why fuzz-torch-absent)"
fi
run_tool run-torch-bad "$bin" run --strategy "aot-eager@two" "$example"
if [[ $rc -eq 2 ]]; then
  case_ok "run refuses a malformed aot-eager@VERSION (exit 2)"
else
  case_fail "run refuses a malformed aot-eager@VERSION (exit 2)" "exit $rc: $(why run-torch-bad)"
fi
# The ledger's per-version table through the shipped binary: an entry of a
# compiler that is not installed is listed as such, its file untouched.
mkdir -p "$T/ledger-check"
printf '# aliasfuzz finding: c\n# system: s\n# strategy: py:no_such_module:f@%s/no-python\n# what: values\n# status: new\n# on torch 9.9.9: reproduces\naliasfuzz 1\nstorage s0 f32[1] = full(0.0)\ninput x0 = s0\nreturn x0\n' "$T" > "$T/ledger-check/e.af"
cp "$T/ledger-check/e.af" "$T/ledger-before.af"
run_tool ledger-check "$bin" ledger check --dir "$T/ledger-check"
if [[ $rc -eq 0 ]] && grep -q "e: not installed here" "$T/ledger-check.out" && cmp -s "$T/ledger-check/e.af" "$T/ledger-before.af" &&
   grep -q "reproduces on torch 9.9.9" "$T/ledger-check.out"; then
  case_ok "ledger check lists an entry whose compiler is missing with its recorded versions, file untouched"
else
  case_fail "ledger check lists an entry whose compiler is missing with its recorded versions, file untouched" "exit $rc: $(why ledger-check)"
fi
# The ledger one entry per defect: `ledger defects --index` writes the
# folder's DEFECTS.md (an entry without evidence stands alone, not gathered).
run_tool ledger-index "$bin" ledger defects --dir "$T/ledger-check" --no-gather --index
if [[ $rc -eq 0 ]] && grep -q "^1 entries, 1 defects" "$T/ledger-check/DEFECTS.md" &&
   grep -q "^- faces (1): \`e\`" "$T/ledger-check/DEFECTS.md"; then
  case_ok "ledger defects --index writes DEFECTS.md, one entry per defect with its faces"
else
  case_fail "ledger defects --index writes DEFECTS.md, one entry per defect with its faces" "exit $rc: $(why ledger-index)"
fi

# Ground truth for bug counting (issues #34, #40): a compiler with two defects, a frequent one
# (an in-place write lost when its target shares storage with another argument) that the
# ledger knows, and a rare one (exp with out= off by one, in well under 1% of programs) behind
# the frequent one's buckets. The campaign reports exactly two bugs: the known one, and the
# rare one as new; findings with every feature of the known bug's program skip the prefix
# bisection and land in a ledger-NAME bucket (issue #34 item 4).
mkdir -p "$T/ledger"
cat >"$T/ledger/toy-two-defects-aliased-write-lost.af" <<EOF
# aliasfuzz finding: an in-place op whose target shares its storage with another argument does not write
# system: toy compiler (oracles/testdata/toy_compiler.py)
# strategy: py:toy_compiler:two_defects@$PY
# what: values
# status: known oracles/testdata/toy_compiler.py
aliasfuzz 1
storage s0 f32[1] = full(1.0)
input x0 = s0
add_(x0, x0)
EOF
(
  cd "$T" || exit 1
  AF_LEDGER="$T/ledger" run_tool fuzz-two "$bin" fuzz --strategy "py:toy_compiler:two_defects@$PY" \
    --programs 1500 --seed 8 --jobs 2 --out "$T/c-two" --quiet --minimize-novel 120
  echo "$rc" >"$T/fuzz-two.rc"
)
rc=$(cat "$T/fuzz-two.rc")
if [[ $rc -eq 0 ]] && json_check "$T/c-two/report.json" \
     'len(j["bugs"]) == 2 and sum("ledger" in b for b in j["bugs"]) == 1 and any("ledger" not in b and "exp_out" in b["program"] for b in j["bugs"]) and any(b["name"].endswith("__ledger-toy-two-defects-aliased-write-lost") for b in j["buckets"])'; then
  case_ok "a frequent known bug does not hide a rare one: two defects, two bugs"
else
  case_fail "a frequent known bug does not hide a rare one: two defects, two bugs" \
    "exit $rc: $(why fuzz-two) $($PY -c 'import json,sys; print([(b["name"], "ledger" in b) for b in json.load(open(sys.argv[1]))["bugs"]])' "$T/c-two/report.json" 2>&1)"
fi

# ---- fuzz, minimize, report, compare ------------------------------------------------
# A campaign per target: every program checked, no crash or hang of the tool,
# no must-agree bucket (--fail-on bugs would exit 1). pocl compiles each new
# kernel (seconds), so the opencl campaign is short and its case timeout long.
for target in interp opencl; do
  out="$T/c-$target"
  programs=40
  [[ $target == opencl ]] && programs=4
  run_tool "fuzz-$target" "$bin" fuzz --programs $programs --seed 3 --target "$target" --out "$out" --quiet \
    --minimize-time 0 --fail-on bugs --case-timeout 300
  n=$(grep -c . "$out/findings.jsonl" 2>/dev/null)
  if [[ $rc -eq 0 && -s "$out/report.json" ]] &&
     json_check "$out/state.json" "j['programs'] >= $programs and j['crashes'] == 0 and j['timeouts'] == 0"; then
    case_ok "fuzz --target $target ($n under-study buckets, no crash, no bug in aliasfuzz)"
  else
    case_fail "fuzz --target $target" "exit $rc: $(why "fuzz-$target") $(head -c 300 "$out/findings.jsonl" 2>/dev/null)"
  fi
done
# A mutant campaign, a finding minimized (and still diverging on opencl), the report.
out="$T/c-mut"
run_tool fuzz-mut "$bin" fuzz --inject fn-per-input-base --programs 150 --seed 2 --out "$out" --quiet --minimize-time 0
b=$(ls "$out/findings" 2>/dev/null | head -1)
if [[ $rc -eq 0 && -n "$b" ]]; then
  case_ok "fuzz --inject finds the mutant"
  run_tool minimize "$bin" minimize "$out/findings/$b" --time 20
  if [[ $rc -eq 0 && -s "$out/findings/$b/min.af" && -s "$out/findings/$b/repro.py" ]]; then
    case_ok "minimize a finding"
    run_tool min-opencl "$bin" run "$out/findings/$b/min.af" --strategy functionalize --inject fn-per-input-base --target opencl
    if [[ $rc -eq 1 ]] && grep -q DISAGREES "$T/min-opencl.out"; then case_ok "min.af diverges on opencl too"; else
      case_fail "min.af diverges on opencl too" "exit $rc: $(why min-opencl)"; fi
  else
    case_fail "minimize a finding" "exit $rc: $(why minimize)"
  fi
  run_tool report "$bin" report "$out"
  if [[ $rc -eq 0 && -s "$out/report.md" && -s "$out/report.html" ]] && json_check "$out/report.json" 'isinstance(j, dict)'; then
    case_ok "report"
  else
    case_fail "report" "exit $rc: $(why report)"
  fi
else
  case_fail "fuzz --inject finds the mutant" "exit $rc, buckets '$b': $(why fuzz-mut)"
fi
run_tool compare "$bin" compare --programs 6 --seed 4 --out "$T/cmp"
if [[ $rc -eq 0 ]] && ls "$T/cmp"/*.md >/dev/null 2>&1 && ls "$T/cmp"/*.json >/dev/null 2>&1; then
  case_ok "compare"
else
  case_fail "compare" "exit $rc: $(why compare)"
fi

# ---- bad input: exit 0/1/2, one JSON object, 30 s, 4 GiB ------------------------------
n=0
bad=0
for f in "$src"/corpus/hostile/*; do
  n=$((n + 1))
  name=$(basename "$f")
  (ulimit -v 4194304; timeout 30 "$bin" run "$f" --json) >"$T/h.out" 2>"$T/h.err"
  rc=$?
  if [[ $rc -gt 2 ]] || ! $PY -c 'import json,sys; json.loads(open(sys.argv[1], encoding="utf-8").read())' "$T/h.out" 2>/dev/null; then
    case_fail "hostile input $name" "exit $rc: $(head -c 300 "$T/h.out" "$T/h.err" | tr '\n' ' ')"
    bad=$((bad + 1))
  fi
done
if [[ $n -ge 10 && $bad -eq 0 ]]; then case_ok "hostile inputs ($n files): exit 0/1/2 and one JSON object each"; fi
[[ $n -ge 10 ]] || case_fail "hostile inputs" "only $n files in corpus/hostile"

# Invalid UTF-8 anywhere: a byte 0xFF (then a lone lead byte, an overlong
# slash, a surrogate) at every position of a small program, and a file name
# that is not UTF-8. Each run prints one JSON object and exits 0, 1 or 2.
$PY - "$bin" "$T" <<'EOF' >"$T/sweep.out" 2>&1
import json, subprocess, sys
bin_, tmp = sys.argv[1], sys.argv[2]
src = b"aliasfuzz 1\nstorage s0 f32[4] = iota(0, 1)\ninput x = as_strided(s0, [2], [2], 0)\ny = add(x, 1.5)\nmul_(x, y)\nreturn x, y\n"
bad = []
runs = 0
for ins in (b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80"):
    for i in range(0, len(src) + 1, 1 if ins == b"\xff" else 3):
        path = tmp.encode() + b"/sweep.af"
        open(path, "wb").write(src[:i] + ins + src[i:])
        p = subprocess.run([bin_, "run", path, "--json"], capture_output=True, timeout=60)
        runs += 1
        try:
            json.loads(p.stdout.decode("utf-8"))
            ok = p.returncode in (0, 1, 2)
        except ValueError:
            ok = False
        if not ok:
            bad.append((ins, i, p.returncode, p.stdout[:120], p.stderr[-200:]))
name = tmp.encode() + b"/bad\xffname\xc3.af"
open(name, "wb").write(src)
p = subprocess.run([bin_, "run", name, "--json"], capture_output=True, timeout=60)
runs += 1
try:
    if json.loads(p.stdout.decode("utf-8"))["valid"] is not True or p.returncode != 0:
        bad.append(("file name", p.returncode, p.stdout[:120]))
except ValueError:
    bad.append(("file name", p.returncode, p.stdout[:120], p.stderr[-200:]))
print(runs, "runs;", len(bad), "bad:", bad[:3])
sys.exit(1 if bad else 0)
EOF
if [[ $? -eq 0 ]]; then case_ok "invalid UTF-8 at every position: $(cat "$T/sweep.out")"; else
  case_fail "invalid UTF-8 at every position" "$(cat "$T/sweep.out")"; fi

write_cases_xml E2E
