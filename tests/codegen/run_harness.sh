#!/usr/bin/env bash
# Builds and runs an export harness directory (loopscope-cli export ... --harness, or the
# files of harnessSupportFiles() plus a kernel and main.c) on the host, on the Cortex-M7
# (qemu mps2-an500), the Cortex-M4 (qemu mps2-an386) and the Cortex-M3 (qemu mps2-an385: no DSP,
# no FPU) with GCC, and on the host and the Cortex-M7 with clang, with the directory's own
# Makefile, and checks that
#   - every build succeeds,
#   - every run exits with status 0,
#   - every run prints one "checksum ..." line, the same on all six.
# All six builds are always built and run, even after a failure, so that the summary
# shows each one's exit status. Skips nothing: a missing tool is an error. Installs nothing.
#
#   tests/codegen/run_harness.sh DIR
#
# Exit status 0 when everything passes, 1 otherwise, 2 on bad usage or a missing tool.
# RUN_TIMEOUT (default "timeout --foreground 120") bounds each run; JOBS (default: nproc) the build.
set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 DIR   (DIR: an export harness directory with a Makefile)" >&2
    exit 2
fi
dir=$1
if [ ! -f "$dir/Makefile" ]; then
    echo "run_harness: error: $dir/Makefile not found" >&2
    exit 2
fi

# ---- Tools: fail loudly, install nothing.
missing=0
require() { # tool, Debian package
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "run_harness: error: required tool '$1' not found in PATH (Debian package: $2)" >&2
        missing=1
    fi
}
require make make
require cc build-essential
require clang clang
require awk gawk
require timeout coreutils
require arm-none-eabi-gcc gcc-arm-none-eabi
require arm-none-eabi-nm binutils-arm-none-eabi
require arm-none-eabi-size binutils-arm-none-eabi
require qemu-system-arm qemu-system-arm
if command -v arm-none-eabi-gcc >/dev/null 2>&1; then
    specs=$(arm-none-eabi-gcc -print-file-name=rdimon.specs)
    if [ "$specs" = "rdimon.specs" ] || [ ! -f "$specs" ]; then
        echo "run_harness: error: newlib with semihosting (rdimon.specs) not found for arm-none-eabi-gcc (Debian package: libnewlib-arm-none-eabi)" >&2
        missing=1
    fi
fi
if [ "$missing" -ne 0 ]; then
    exit 2
fi

run_timeout=${RUN_TIMEOUT:-timeout --foreground 120}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
logs=$(mktemp -d "${TMPDIR:-/tmp}/run_harness.XXXXXX")
trap 'rm -rf "$logs"' EXIT

platforms="host m7 m4 m3 host-clang m7-clang"
failed=0
declare -A build_ok status checksum

for p in $platforms; do
    echo "== $p: build (make $p)"
    if make -C "$dir" -j"$jobs" "$p" >"$logs/build-$p.txt" 2>&1; then
        build_ok[$p]=1
    else
        build_ok[$p]=0
        failed=1
        cat "$logs/build-$p.txt"
        echo "run_harness: $p: build FAILED" >&2
        continue
    fi

    echo "== $p: run (make run-$p)"
    make -s -C "$dir" --no-print-directory "run-$p" RUN_TIMEOUT="$run_timeout" \
        </dev/null >"$logs/run-$p.txt" 2>&1
    make_status=$?
    cat "$logs/run-$p.txt"
    if [ "$make_status" -eq 0 ]; then
        status[$p]=0
    else
        # GNU make: "make: *** [Makefile:NN: run-m7] Error N", N being the program's status.
        code=$(sed -n 's/^make.*\[.*run-'"$p"'\] Error \([0-9][0-9]*\).*$/\1/p' "$logs/run-$p.txt" | tail -n 1)
        status[$p]=${code:-"?(make exit $make_status)"}
        failed=1
    fi
    n=$(grep -c '^checksum ' "$logs/run-$p.txt")
    if [ "$n" -eq 1 ]; then
        checksum[$p]=$(grep '^checksum ' "$logs/run-$p.txt")
    else
        checksum[$p]=""
        failed=1
        echo "run_harness: $p: expected exactly one 'checksum' line, got $n" >&2
    fi
done

# ---- Same checksum line everywhere.
reference=""
same=1
for p in $platforms; do
    c=${checksum[$p]:-}
    if [ -z "$c" ]; then
        same=0
    elif [ -z "$reference" ]; then
        reference=$c
    elif [ "$c" != "$reference" ]; then
        same=0
    fi
done
if [ "$same" -ne 1 ]; then
    failed=1
fi

echo
echo "run_harness summary ($dir):"
for p in $platforms; do
    if [ "${build_ok[$p]}" -ne 1 ]; then
        printf '  %-10s build FAILED\n' "$p"
    else
        printf '  %-10s exit status %s  %s\n' "$p" "${status[$p]}" "${checksum[$p]:-(no checksum line)}"
    fi
done
if [ "$same" -eq 1 ]; then
    echo "  checksum lines: identical on ${platforms// /, }"
else
    echo "  checksum lines: DIFFER or missing"
fi
if [ "$failed" -eq 0 ]; then
    echo "run_harness: PASS"
    exit 0
fi
echo "run_harness: FAIL"
exit 1
