#!/bin/sh
# The search against the best shipped schedule of every example kernel on a Cortex-M target
# (issue 15's quality figure): model cycles or predicted instructions, and qemu-measured
# instructions of the search's best points (--measure-top) against the shipped schedule's.
# Usage: scripts/search_quality.sh [BUILD_DIR] [TARGET] [OBJECTIVE] [SECONDS] [MEASURE_TOP] [BUDGET]
# Prints a Markdown table; needs jq, and qemu + arm-none-eabi-gcc for the measured columns.
# With BUDGET (a number of candidates) each search stops after that many instead of after
# SECONDS: the same points on every machine and under any load, so that two builds can be
# compared (the issue's figure is the 10-second one).
set -eu
build=${1:-build}
target=${2:-cortex-m7}
objective=${3:-cycles}
seconds=${4:-10}
top=${5:-5}
budget=${6:-}
if [ -n "$budget" ]; then
    limit="--budget $budget --time 0"
    header="$budget candidates, 1 thread"
else
    limit="--time $seconds"
    header="${seconds} s, 1 thread"
fi
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy of the CLI: a rebuild during the run (minutes) would replace it under the searches.
cp "$build/app/loopscope-cli" "$tmp/loopscope-cli"
cli="$tmp/loopscope-cli"

case "$objective" in
cycles) field=cycles ;;
instructions) field=instructions ;;
*) echo "objective must be cycles or instructions" >&2; exit 2 ;;
esac

echo "| kernel | best shipped schedule | its $field | search's best $field ($header) | found after | shipped measured | search's best measured (top $top) |"
echo "|---|---|---|---|---|---|---|"
# The best shipped schedule of each kernel (scripts/best_shipped.sh): the search starts from it
# with nothing pinned.
"$here/scripts/best_shipped.sh" "$cli" "$target" "$field" > "$tmp/shipped"
# (read on descriptor 3: qemu, run by --measure and --measure-top, reads standard input)
while read -r k best bestv <&3; do
    shippedMeasured=$("$cli" analyze "$best" --measure --json 2>/dev/null | jq '.measured.kernel_instructions + .measured.copy_instructions' 2>/dev/null || echo "-")
    # shellcheck disable=SC2086 # $limit is two options and their values
    "$cli" search "$best" --pin 0 --target "$target" --objective "$objective" $limit --threads 1 --seed 1 \
        --measure-top "$top" --json > "$tmp/s.json" 2>"$tmp/s.err" || { echo "| $(basename "$k") | $(basename "$best") | $bestv | search failed: $(head -1 "$tmp/s.err") | | | |"; continue; }
    sv=$(jq ".front[.best].$field" "$tmp/s.json")
    after=$(jq -r '"\(.progress.best_found_seconds * 100 | round / 100) s (\(.progress.best_found_drawn) drawn)"' "$tmp/s.json")
    sm=$(jq '[.measured[]? | .kernel_instructions + .copy_instructions] | min // "-"' "$tmp/s.json")
    echo "| $(basename "$k" .kernel.yaml) | $(basename "$best" .sched.yaml) | $bestv | $sv | $after | $shippedMeasured | $sm |"
done 3< "$tmp/shipped"
