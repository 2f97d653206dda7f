#!/usr/bin/env bash
# Instructions executed per MAC by exported kernels on an emulated Cortex-M (qemu with
# -icount shift=0 and an exact per-instruction counting plugin; see the export's README).
#
#   scripts/measure_insns.sh [m7|m4|m7-clang] SCHEDULE...
# Prints per schedule: MACs; the instructions inside the kernel's code; those of the copies the
# DMA hooks make (the harness's memcpy hooks, which run on the CPU of a core without a DMA
# engine); both per MAC; the bytes of on-chip memory the schedule uses (SRAM or whatever the
# target's innermost memory level is called); the cost model's cycles.
set -euo pipefail
core=${1:-m7}
shift
cli=${LOOPSCOPE_CLI:-build/app/loopscope-cli}
printf '%-45s %9s %11s %9s %9s %9s %9s %11s\n' schedule MACs kernel copies insn/MAC +copies on-chip est.cycles
for schedule in "$@"; do
    dir=$(mktemp -d)
    "$cli" export "$schedule" --out "$dir" --harness >/dev/null
    counts=$(make -s -C "$dir" "insns-$core" 2>&1 | grep -o 'kernel=[0-9]* .* copies=[0-9]*')
    insns=$(grep -o 'kernel=[0-9]*' <<<"$counts" | cut -d= -f2)
    copies=$(grep -o 'copies=[0-9]*' <<<"$counts" | cut -d= -f2)
    # Fields of the JSON report (no python on a new machine): the first "macs" and "total",
    # and the "used_bytes" of the second level (the first on-chip one).
    json=$("$cli" analyze "$schedule" --json)
    macs=$(grep -m1 -o '"macs": [0-9]*' <<<"$json" | grep -o '[0-9]*$')
    cycles=$(grep -m1 -o '"total": [0-9]*' <<<"$json" | grep -o '[0-9]*$')
    onchip=$(grep -o '"used_bytes": [0-9]*' <<<"$json" | sed -n 2p | grep -o '[0-9]*$')
    printf '%-45s %9d %11d %9d %9.2f %9.2f %9d %11d\n' "$(basename "$schedule")" "$macs" "$insns" "$copies" \
        "$(awk -v a="$insns" -v b="$macs" 'BEGIN { printf "%.4f", a / b }')" \
        "$(awk -v a="$insns" -v c="$copies" -v b="$macs" 'BEGIN { printf "%.4f", (a + c) / b }')" "${onchip:-0}" "$cycles"
    rm -rf "$dir"
done
