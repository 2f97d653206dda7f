#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds, and opens the desktop application on the
# default example (the seed's tiled matmul on cortex-m7). Without a display (no DISPLAY or
# WAYLAND_DISPLAY) it prints the example's loop nest and analysis instead and renders the
# window offscreen into build/loopscope-screenshot.png.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/packages.sh
loopscope_install_packages
# The window needs the GUI; a build directory configured without it is switched on here.
# Only the two programs are built (the tests are test.sh's business).
loopscope_build build -DLOOPSCOPE_BUILD_GUI=ON -- loopscope loopscope-cli >/dev/null

example=examples/schedules/matmul_f32_tiled.sched.yaml
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec build/app/loopscope "$example"
fi

cli=build/app/loopscope-cli
echo "No display (DISPLAY and WAYLAND_DISPLAY are unset): the default example in the terminal."
echo
echo "== $example: lowered loop nest"
"$cli" lower "$example"
echo
echo "== verification against the unscheduled kernel"
"$cli" verify "$example"
echo
echo "== analysis: cycles, memory, traffic, bounds, diagnostics"
"$cli" analyze "$example"
echo
screenshot=build/loopscope-screenshot.png
if ! log=$(QT_QPA_PLATFORM=offscreen build/app/loopscope --screenshot "$screenshot" "$example" 2>&1); then
  echo "$log" >&2
  exit 1
fi
echo "== the desktop application, rendered offscreen at 1600x1000: $(pwd)/$screenshot"
