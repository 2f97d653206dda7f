#!/bin/sh
# The best shipped schedule of every example kernel on a target, by the model:
#   scripts/best_shipped.sh CLI TARGET FIELD
# prints one line per kernel with a shipped schedule for TARGET: the kernel file, the schedule and
# its FIELD (cycles, or instructions: the predicted instructions of the exported code), lowest
# first among the kernel's schedules. A schedule's kernel path and size overrides are what the
# search starts from (scripts/search_quality.sh, scripts/search_picks.sh). Needs jq.
set -eu
cli=$1
target=$2
field=$3
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for k in $(grep -l "^target: $target\$" "$here"/examples/schedules/*.sched.yaml | xargs -n1 sh -c 'grep -m1 "^kernel:" "$0" | sed "s/kernel: *//"' | sort -u); do
    best=""
    bestv=""
    for s in $(grep -l "^target: $target\$" "$here"/examples/schedules/*.sched.yaml); do
        [ "$(grep -m1 '^kernel:' "$s" | sed 's/kernel: *//')" = "$k" ] || continue
        "$cli" analyze "$s" --json > "$tmp" 2>/dev/null || continue
        if [ "$field" = cycles ]; then v=$(jq '.cycles.total // .cycles' "$tmp"); else v=$(jq '.instructions.predicted' "$tmp"); fi
        if [ -z "$bestv" ] || [ "$v" -lt "$bestv" ]; then bestv=$v; best=$s; fi
    done
    [ -n "$best" ] && echo "$k $best $bestv"
done
