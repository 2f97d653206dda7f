#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds, and shows the default example: the seed's
# tiled matmul on cortex-m7 (lowered loop nest, verification, traffic per memory level).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/packages.sh
loopscope_install_packages
loopscope_build build >/dev/null

example=examples/schedules/matmul_f32_tiled.sched.yaml
cli=build/app/loopscope-cli
echo "== $example: lowered loop nest"
"$cli" lower "$example"
echo
echo "== verification against the unscheduled kernel"
"$cli" verify "$example"
echo
echo "== bytes moved per memory level and tensor (interpreter counts)"
"$cli" counts "$example"
