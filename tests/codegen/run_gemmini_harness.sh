#!/usr/bin/env bash
# Builds and runs a Gemmini export harness directory (loopscope-cli export ... --harness of a
# tensorized schedule) on the host, where gemmini.h's macros call the functional model, and
# bare-metal on qemu-system-riscv64 (-M virt), where they are custom-3 instructions trapped into
# the same model; checks that both builds succeed, both runs exit 0 and both print the same
# checksum line. Installs nothing; a missing tool is an error.
#
#   tests/codegen/run_gemmini_harness.sh DIR
#
# Exit status 0 when everything passes, 1 otherwise, 2 on bad usage or a missing tool.
set -u
if [ $# -ne 1 ] || [ ! -f "$1/Makefile" ] || [ ! -f "$1/gemmini_model.c" ]; then
    echo "usage: $0 DIR   (DIR: a Gemmini export harness directory)" >&2
    exit 2
fi
dir=$1
missing=0
for tool in make:make cc:build-essential riscv64-unknown-elf-gcc:gcc-riscv64-unknown-elf qemu-system-riscv64:qemu-system-misc timeout:coreutils; do
    if ! command -v "${tool%%:*}" >/dev/null 2>&1; then
        echo "run_gemmini_harness: error: required tool '${tool%%:*}' not found in PATH (Debian package: ${tool##*:})" >&2
        missing=1
    fi
done
if [ ! -f "$(riscv64-unknown-elf-gcc -print-file-name=picolibc.specs 2>/dev/null)" ] && [ ! -f /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ]; then
    echo "run_gemmini_harness: error: picolibc for riscv64-unknown-elf not found (Debian package: picolibc-riscv64-unknown-elf)" >&2
    missing=1
fi
[ "$missing" -eq 0 ] || exit 2
failed=0
declare -A sums
for p in host rv64; do
    echo "== $p"
    if ! make -s -C "$dir" "$p" > "$dir/build-$p.txt" 2>&1; then
        cat "$dir/build-$p.txt"
        echo "run_gemmini_harness: $p: build FAILED" >&2
        failed=1
        continue
    fi
    out=$(make -s -C "$dir" --no-print-directory "run-$p" RUN_TIMEOUT="${RUN_TIMEOUT:-timeout --foreground 300}" </dev/null 2>&1)
    status=$?
    echo "$out"
    [ "$status" -eq 0 ] || { echo "run_gemmini_harness: $p: run FAILED ($status)" >&2; failed=1; }
    sums[$p]=$(echo "$out" | grep '^checksum ' || true)
done
if [ -z "${sums[host]:-}" ] || [ "${sums[host]:-}" != "${sums[rv64]:-}" ]; then
    echo "run_gemmini_harness: checksum lines differ or are missing: host '${sums[host]:-}' rv64 '${sums[rv64]:-}'" >&2
    failed=1
fi
if [ "$failed" -eq 0 ]; then
    echo "run_gemmini_harness: PASS (${sums[host]})"
    exit 0
fi
echo "run_gemmini_harness: FAIL"
exit 1
