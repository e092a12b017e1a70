#!/usr/bin/env bash
# report.html renders in headless Chromium with no console errors, its
# first screen shows the bug table, and a screenshot of it holds its plots
# (a non-trivial PNG). Writes gtest-style
# XML so the test command counts the cases.
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
xml=${XML_OUTPUT_FILE:-$work/test.xml}
fail=0
cases=""
record() {  # name, ok(0/1), message
  if [[ "$2" == 0 ]]; then cases+="<testcase classname=\"ReportRender\" name=\"$1\"/>"
  else cases+="<testcase classname=\"ReportRender\" name=\"$1\"><failure message=\"$(printf '%s' "$3" | tr -d '<>&"' | tail -c 2000)\"/></testcase>"; fail=1; fi
}
finish() {
  printf '<testsuites><testsuite name="ReportRender">%s</testsuite></testsuites>\n' "$cases" > "$xml"
  exit $fail
}
chrome=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chrome" ]]; then
  record ChromiumPresent 1 "chromium is not installed (tools/setup.sh installs it)"
  finish
fi
"$bin" fuzz --programs 300 --seed 9 --jobs 2 --quiet --minimize-time 1 --minimize-total 5 --out "$work/run" >/dev/null 2>&1
if [[ ! -f "$work/run/report.html" ]]; then
  record CampaignWritesReport 1 "no report.html"
  finish
fi
record CampaignWritesReport 0 ""
log=$(cd "$work" && timeout 120 "$chrome" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
      --window-size=1280,2400 --enable-logging=stderr --v=0 --screenshot="$work/shot.png" \
      "file://$work/run/report.html" 2>&1)
if echo "$log" | grep -E "CONSOLE|Uncaught|ERROR:.*(console|javascript)" | grep -v "dbus\|gpu\|GPU\|Fontconfig" | grep -q .; then
  record NoConsoleErrors 1 "$(echo "$log" | grep -E 'CONSOLE|Uncaught' | head -5)"
else
  record NoConsoleErrors 0 ""
fi
# The first screen (1280x800) shows the bug table (issue #59): a copy of
# the page whose script names, in its title, where the table starts.
sed 's|</body>|<script>var b = document.getElementById("bugs"), t = document.querySelector("#bugs + table, #bugs + p");\
document.title = b \&\& t \&\& t.getBoundingClientRect().top < window.innerHeight ? "FIRST-SCREEN-SHOWS-BUGS" : "BUGS-BELOW";</script></body>|' \
  "$work/run/report.html" > "$work/run/probe.html"
title=$(timeout 120 "$chrome" --headless=new --no-sandbox --disable-gpu --window-size=1280,800 --dump-dom \
        "file://$work/run/probe.html" 2>/dev/null | grep -o "<title>[A-Z-]*</title>" | head -1)
if [[ "$title" == "<title>FIRST-SCREEN-SHOWS-BUGS</title>" ]]; then record FirstScreenShowsTheBugs 0 ""
else record FirstScreenShowsTheBugs 1 "the bug table is not on the first screen of report.html ($title)"; fi
size=$(stat -c %s "$work/shot.png" 2>/dev/null || echo 0)
if [[ "$size" -gt 20000 ]]; then record ScreenshotShowsPage 0 ""; else record ScreenshotShowsPage 1 "screenshot of $size bytes: $log"; fi
if [[ -n "${TEST_UNDECLARED_OUTPUTS_DIR:-}" ]]; then cp "$work/shot.png" "$TEST_UNDECLARED_OUTPUTS_DIR/report.png" 2>/dev/null; fi
# compare.svg is an SVG document a browser opens as an image (the SVG
# namespace on its root), not markup shown as text.
"$bin" compare --programs 20 --seed 3 --out "$work/cmp" >/dev/null 2>&1
if /usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; sys.exit(E.parse(sys.argv[1]).getroot().tag != "{http://www.w3.org/2000/svg}svg")' "$work/cmp/compare.svg" 2>/dev/null; then
  record CompareSvgIsAnImage 0 ""
else
  record CompareSvgIsAnImage 1 "compare.svg is not an SVG document: $(head -c 200 "$work/cmp/compare.svg" 2>&1)"
fi
# compare.html opens with its summary table (issue #59): per strategy,
# correct, refused and why, costs; its first screen shows the table.
sed 's|</body>|<script>var t = document.getElementById("summary");\
document.title = t \&\& t.rows.length > 2 \&\& t.getBoundingClientRect().top < window.innerHeight ? "FIRST-SCREEN-SHOWS-SUMMARY" : "SUMMARY-BELOW";</script></body>|' \
  "$work/cmp/compare.html" > "$work/cmp/probe.html" 2>/dev/null
title=$(timeout 120 "$chrome" --headless=new --no-sandbox --disable-gpu --window-size=1280,800 --dump-dom \
        "file://$work/cmp/probe.html" 2>/dev/null | grep -o "<title>[A-Z-]*</title>" | head -1)
if [[ "$title" == "<title>FIRST-SCREEN-SHOWS-SUMMARY</title>" ]]; then record CompareFirstScreenShowsTheSummary 0 ""
else record CompareFirstScreenShowsTheSummary 1 "compare.html's summary table is not on its first screen ($title)"; fi
# Each bucket's story is in the page: its program inline and a repro command.
if grep -q "<h2>Buckets</h2>" "$work/run/report.html" && grep -q "reproduce: <code>" "$work/run/report.html" && grep -q "<pre>aliasfuzz 1" "$work/run/report.html"; then
  record PageTellsEachBucketsStory 0 ""
else
  record PageTellsEachBucketsStory 1 "no bucket stories in report.html"
fi
# The plots are inline SVG in the page itself.
if [[ $(grep -c "<svg" "$work/run/report.html") -ge 2 ]]; then record PageHasPlots 0 ""; else record PageHasPlots 1 "fewer than 2 inline SVG plots"; fi
finish
