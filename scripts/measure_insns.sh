#!/usr/bin/env bash
# Instructions executed per MAC by exported kernels on an emulated Cortex-M (qemu with
# -icount shift=0 and an exact per-instruction counting plugin; see the export's README).
#
#   scripts/measure_insns.sh [m7|m4|m7-clang] SCHEDULE...
# Prints: schedule, MACs, kernel instructions, instructions per MAC, estimated cycles.
set -euo pipefail
core=${1:-m7}
shift
cli=${LOOPSCOPE_CLI:-build/app/loopscope-cli}
printf '%-45s %10s %12s %9s %12s\n' schedule MACs instructions insn/MAC est.cycles
for schedule in "$@"; do
    dir=$(mktemp -d)
    "$cli" export "$schedule" --out "$dir" --harness >/dev/null
    insns=$(make -s -C "$dir" "insns-$core" 2>&1 | grep -o 'kernel=[0-9]*' | cut -d= -f2)
    # The first "macs" and "total" of the JSON report (no python on a new machine).
    json=$("$cli" analyze "$schedule" --json)
    macs=$(grep -m1 -o '"macs": [0-9]*' <<<"$json" | grep -o '[0-9]*$')
    cycles=$(grep -m1 -o '"total": [0-9]*' <<<"$json" | grep -o '[0-9]*$')
    printf '%-45s %10d %12d %9.2f %12d\n' "$(basename "$schedule")" "$macs" "$insns" "$(awk -v a="$insns" -v b="$macs" 'BEGIN { printf "%.4f", a / b }')" "$cycles"
    rm -rf "$dir"
done
