#!/bin/sh
# The search's picks as a test set for the instruction model (issue 11): the points the search
# prefers are where the model errs most (it finds the model's underestimates), and the random
# schedules of `calibrate` seldom look like them.
#
#   scripts/search_picks.sh collect BUILD_DIR OUT_DIR [TARGET] [SECONDS] [TOP]
#       for every example kernel with a shipped schedule for TARGET (default cortex-m7), search
#       from its best shipped schedule (objective instructions, seed 1, 1 thread, SECONDS
#       default 10), measure the TOP best (default 5) on qemu and write each as
#       OUT_DIR/KERNEL/point-N.sched.yaml, its prediction and measurement in the description.
#   scripts/search_picks.sh predict BUILD_DIR OUT_DIR
#       re-predict every point of OUT_DIR with BUILD_DIR's model (seconds: no qemu run) and print
#       each error and the median, 95th percentile and worst of |error| and how many are beyond
#       10% and 25%.
# Needs jq for collect, and qemu + arm-none-eabi-gcc (./test.sh installs them).
set -eu
mode=${1:-}
build=${2:-}
dir=${3:-}
if [ -z "$mode" ] || [ -z "$build" ] || [ -z "$dir" ]; then
    sed -n '2,16p' "$0" >&2
    exit 2
fi
cli="$build/app/loopscope-cli"
here=$(cd "$(dirname "$0")/.." && pwd)

case "$mode" in
collect)
    target=${4:-cortex-m7}
    seconds=${5:-10}
    top=${6:-5}
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    "$here/scripts/best_shipped.sh" "$cli" "$target" instructions > "$tmp/shipped"
    # (read on descriptor 3: qemu, run by --measure and --measure-top, reads standard input)
    while read -r k best bestv <&3; do
        name=$(basename "$k" .kernel.yaml)
        "$cli" search "$best" --pin 0 --target "$target" --objective instructions --time "$seconds" --threads 1 --seed 1 \
            --measure-top "$top" --measured-out "$dir/$name" --force > /dev/null 2> "$tmp/s.err" \
            || { echo "$name: search failed: $(head -1 "$tmp/s.err")" >&2; continue; }
        echo "$name: $(ls "$dir/$name" | wc -l) points"
    done 3< "$tmp/shipped"
    ;;
predict)
    for f in "$dir"/*/point-*.sched.yaml; do
        measured=$(sed -n 's/.*measured \([0-9]*\) (kernel.*/\1/p' "$f")
        predicted=$("$cli" analyze "$f" --json 2>/dev/null | jq '.instructions.predicted')
        echo "$f $predicted $measured"
    done | awk '
        { e = ($2 - $3) / $3 * 100; printf "%-70s %10d %10d %+7.1f%%\n", $1, $2, $3, e; a[n++] = (e < 0 ? -e : e) }
        END {
            if (n == 0) { print "no points"; exit 1 }
            for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            b10 = 0; b25 = 0
            for (i = 0; i < n; i++) { if (a[i] > 10) b10++; if (a[i] > 25) b25++ }
            med = (n % 2) ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2
            printf "%d points: median %.1f%%, p95 %.1f%%, worst %.1f%%, beyond 10%%: %d, beyond 25%%: %d\n", n, med, a[int(0.95 * (n - 1))], a[n - 1], b10, b25
        }'
    ;;
*)
    sed -n '2,16p' "$0" >&2
    exit 2
    ;;
esac
