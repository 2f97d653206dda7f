#!/bin/sh
# The search's fronts as a test set for the instruction model (issue 11): the schedules the search
# proposes (large unrolled bodies, operands shared across copies, accumulators beyond the
# registers) are where the model is used and where it errs most; calibrate's random schedules
# seldom look like them (almost none has an innermost body over 100 instructions).
#
#   scripts/search_fronts.sh collect BUILD_DIR OUT_DIR [TARGET] [BUDGET] [TOP] [SPREAD]
#       for every example kernel with a shipped schedule for TARGET (default cortex-m7), search
#       from its best shipped schedule (objective instructions, seed 1, 1 thread, BUDGET
#       candidates, default 30000) and keep the TOP points of its front with the fewest predicted
#       instructions (default 15) and SPREAD more spread over the rest of it (default 10), as
#       OUT_DIR/schedules/KERNEL-N.sched.yaml beside a copy of the kernels (OUT_DIR/kernels).
#   Then measure them and see the model's error, per schedule and over all:
#       BUILD_DIR/app/loopscope-cli calibrate TARGET --check --schedules 0 --examples OUT_DIR [--keep KEEP]
#   and, with --keep, scripts/loop_errors.py shows where (per loop).
# Needs jq, and qemu + arm-none-eabi-gcc to measure (./test.sh installs them).
set -eu
mode=${1:-}
build=${2:-}
dir=${3:-}
if [ "$mode" != collect ] || [ -z "$build" ] || [ -z "$dir" ]; then
    sed -n '2,17p' "$0" >&2
    exit 2
fi
target=${4:-cortex-m7}
budget=${5:-30000}
top=${6:-15}
spread=${7:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir/schedules" "$dir/kernels"
cp "$here"/examples/kernels/*.kernel.yaml "$dir/kernels/"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy of the CLI: a rebuild during the run would replace it under the searches.
cp "$build/app/loopscope-cli" "$tmp/loopscope-cli"
cli="$tmp/loopscope-cli"
"$here/scripts/best_shipped.sh" "$cli" "$target" instructions > "$tmp/shipped"
while read -r k best bestv; do
    name=$(basename "$k" .kernel.yaml)
    # Written one level under OUT_DIR, as OUT_DIR/schedules is: the kernel's relative path holds there too.
    front="$dir/front-$name"
    rm -rf "$front"
    "$cli" search "$best" --pin 0 --target "$target" --objective instructions --budget "$budget" --time 0 --threads 1 --seed 1 \
        --json --front-out "$front" > "$tmp/s.json" 2> "$tmp/s.err" \
        || { echo "$name: search failed: $(head -1 "$tmp/s.err")" >&2; continue; }
    # The TOP with the fewest instructions, then SPREAD evenly spaced over the rest.
    jq -r --argjson top "$top" --argjson spread "$spread" '
        [.front[] | {index, instructions}] | sort_by(.instructions, .index) as $f
        | ($f[:$top] + (($f[$top:]) as $rest | if ($rest | length) == 0 or $spread == 0 then []
            else [range(0; $spread) as $i | $rest[($i * ($rest | length) / $spread | floor)]] | unique_by(.index) end))
        | .[].index' "$tmp/s.json" > "$tmp/chosen"
    n=0
    while read -r index; do
        mv "$front/point-$index.sched.yaml" "$dir/schedules/$name-$(printf %02d "$n").sched.yaml"
        n=$((n + 1))
    done < "$tmp/chosen"
    rm -rf "$front"
    echo "$name: $n of $(jq '.front | length' "$tmp/s.json") front points" >&2
done < "$tmp/shipped"
