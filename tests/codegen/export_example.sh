#!/usr/bin/env bash
# Exports one schedule with its harness and runs it on the host (with sanitizers), on an
# emulated Cortex-M7 (qemu mps2-an500), Cortex-M4 (mps2-an386) and Cortex-M3 (mps2-an385)
# built with GCC, and on the host and the Cortex-M7 built with clang: zero mismatches
# everywhere and the same checksum (tests/codegen/run_harness.sh). A Gemmini export (tensorized
# schedule) runs on the host model and on qemu-system-riscv64 (tests/codegen/run_gemmini_harness.sh).
#
#   tests/codegen/export_example.sh LOOPSCOPE_CLI SCHEDULE
set -euo pipefail
cli=$1
schedule=$2
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/loopscope-export-example.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$cli" export "$schedule" --out "$dir" --harness >/dev/null
if [ -f "$dir/gemmini_model.c" ]; then
    # A tensorized schedule: the Gemmini harness (host model and qemu-system-riscv64).
    bash "$here/run_gemmini_harness.sh" "$dir"
    exit $?
fi
bash "$here/run_harness.sh" "$dir"
