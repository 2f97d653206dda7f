#!/usr/bin/env bash
# Runs one libFuzzer target over its committed corpus and then a fixed number of mutations (a
# short, repeatable check for ctest). Usage: run_fuzzer.sh FUZZER CORPUS DICT WORKDIR RUNS
# New inputs go to WORKDIR (emptied first); a finding is saved as WORKDIR/crash-* and fails.
set -euo pipefail
fuzzer=$1 corpus=$2 dict=$3 work=$4 runs=$5
rm -rf "$work"
mkdir -p "$work/new"
dict_opt=()
[ -f "$dict" ] && dict_opt=(-dict="$dict")
exec "$fuzzer" -seed=1 -runs="$runs" -timeout=30 -rss_limit_mb=3072 -max_len=65536 \
    -print_final_stats=1 "${dict_opt[@]}" -artifact_prefix="$work/" "$work/new" "$corpus"
