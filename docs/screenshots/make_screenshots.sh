#!/usr/bin/env bash
# Renders the screenshots of docs/tutorial.md and README.md with the application itself
# (offscreen, at the default size 1440x900). Usage: docs/screenshots/make_screenshots.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
app="${1:-build}/app/loopscope"
cli="${1:-build}/app/loopscope-cli"
out=docs/screenshots
shot() {
  local name="$1"; shift
  QT_QPA_PLATFORM=offscreen "$app" --screenshot "$out/$name.png" "$@" 2>/dev/null
}
shot main_window                 --select j.outer examples/schedules/matmul_f32_tiled.sched.yaml
shot tutorial_1_naive            --select k examples/schedules/matmul_f32_naive.sched.yaml
shot tutorial_3_cached           --select j.outer --show Diagnostics docs/tutorial/matmul_2_cached.sched.yaml
shot tutorial_4_double_buffered  --select j.outer --show Tiles --tile-position 5 docs/tutorial/matmul_4_double_buffered.sched.yaml
shot tutorial_5_unrolled         --select k docs/tutorial/matmul_5_unrolled.sched.yaml
shot tutorial_6_written_back     --select j.outer docs/tutorial/matmul_6_written_back.sched.yaml
shot failing_step                docs/tutorial/matmul_broken.sched.yaml
shot dwsep_channel_blocks        --select D:h.outer examples/schedules/dwsep_conv_channel_blocks.sched.yaml
shot dwsep_fused                 --select O:h.outer --show Tiles --tile-position 9 examples/schedules/dwsep_conv_fused.sched.yaml
shot measure_conv2d_int8_dsp      --measure examples/schedules/conv2d_int8_dsp.sched.yaml
shot tutorial_gemmini_2_tensorized        --select k.outer docs/tutorial/gemmini_2_tensorized.sched.yaml
shot tutorial_gemmini_4_double_buffered  --select j.outer --show Tiles --tile-position 3 docs/tutorial/gemmini_4_double_buffered.sched.yaml
shot search_window               --search 2000 examples/schedules/conv2d_int8_tiled.sched.yaml

# The workspace: the tutorial's matmul schedules as variants of a project, each derived from the
# one before, two measured on qemu; the Variants dock and the Compare window of two of them.
proj="$(mktemp -d)/matmul"
mkdir -p "$proj"
cp examples/kernels/matmul_f32.kernel.yaml "$proj/"
sed 's|^kernel: .*|kernel: matmul_f32.kernel.yaml|' examples/schedules/matmul_f32_naive.sched.yaml > "$proj/naive.sched.yaml"
for f in docs/tutorial/matmul_[1-6]_*.sched.yaml; do
  sed 's|^kernel: .*|kernel: matmul_f32.kernel.yaml|' "$f" > "$proj/$(basename "$f")"
done
(
  cd "$proj"
  "$OLDPWD/$cli" workspace init > /dev/null
  "$OLDPWD/$cli" workspace add naive.sched.yaml --notes "Every operand read from DRAM for every MAC" > /dev/null
  parent=naive
  for step in 1_tiled 2_cached 3_hoisted 4_double_buffered 5_unrolled 6_written_back; do
    name="${step#?_}"; name="${name//_/-}"
    measure=""
    case "$step" in 2_cached|5_unrolled) measure=--measure ;; esac
    "$OLDPWD/$cli" workspace add "matmul_$step.sched.yaml" --name "$name" --parent "$parent" $measure > /dev/null
    parent="$name"
  done
)
shot workspace --compare cached,unrolled "$proj/matmul_5_unrolled.sched.yaml"
rm -rf "$(dirname "$proj")"
