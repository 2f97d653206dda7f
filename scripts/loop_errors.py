#!/usr/bin/env python3
"""Where the instruction model errs, loop by loop (issue 11).

    scripts/loop_errors.py [--build BUILD_DIR] [--top N] [--json OUT] KEEP_DIR

KEEP_DIR is what `loopscope-cli calibrate TARGET --check --keep KEEP_DIR` leaves: the batch images
(image*/: the exported C of every schedule, the ELF built with -g, and qemu's per-address
execution counts, profile.txt), schedules.txt and the random schedules (lskN.sched.yaml). For
every loop the model keeps (`analyze --loops --json`: "instructions" inside it, nested loops
included, copies left out), the measured count is the sum of the executions of every
instruction whose source line, through inlined helpers (objdump --inlines: the line of the
call), lies between the loop's `for` and its closing brace; a loop the schedule unrolls is
written once per copy and its loops' lines are summed over the copies. The model's loops are
paired with the C's `for` lines as scripts/unroll_decisions.py does; a schedule that does not
pair up is left out.

Prints the innermost kept loops with the largest difference (share of the schedule's measured
total), each with its iterations, body size, registers and instructions per iteration predicted
and measured, then how much of the random schedules' error lies in their innermost kept loops
and how much outside them. The attribution is by source line: an instruction GCC hoists out of a
loop still counts inside it, so compare loops, not single statements.
Needs python3 and arm-none-eabi-objdump (./test.sh installs the toolchain).
"""
import argparse
import collections
import glob
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("unroll_decisions", os.path.join(HERE, "unroll_decisions.py"))
unroll_decisions = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(unroll_decisions)


def closing_line(lines, start):
    """The line of the brace that closes the `for` on line `start` (1-based)."""
    depth, opened = 0, False
    for i in range(start - 1, len(lines)):
        depth += lines[i].count("{") - lines[i].count("}")
        opened = opened or "{" in lines[i]
        if opened and depth <= 0:
            return i + 1
    return len(lines)


def executions_per_line(image):
    """(source file name, line) -> instructions executed there, over the kernels' functions."""
    elf = glob.glob(os.path.join(image, "m*", "batch.elf"))[0]
    counts = {}
    with open(os.path.join(image, "profile.txt")) as f:
        for line in f:
            # address, executions, and for a call of library code (memset, memcpy) the
            # instructions executed in it: counted on the line of the call
            fields = line.split()
            counts[int(fields[0], 16)] = sum(int(x) for x in fields[1:])
    dis = subprocess.run(["arm-none-eabi-objdump", "-d", "-l", "--inlines", "--no-show-raw-insn", elf],
                         capture_output=True, text=True, check=True).stdout
    per_line = collections.Counter()
    where = function = None
    for line in dis.split("\n"):
        m = re.match(r"[0-9a-f]+ <(.*)>:", line)
        if m:
            function, where = m.group(1), None
            continue
        m = re.match(r"inlined by (\S+):(\d+)", line) or re.match(r"(\S+\.[ch]):(\d+)", line)
        if m:
            where = (os.path.basename(m.group(1)), int(m.group(2)))
            continue
        m = re.match(r"\s*([0-9a-f]+):\s", line)
        if m and where and function and re.match(r"lsk\d+_", function) and not function.endswith("_prepare"):
            per_line[where] += counts.get(int(m.group(1), 16), 0)
    return per_line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--json", help="write every kept loop's figures to this file")
    ap.add_argument("keep")
    a = ap.parse_args()
    cli = os.path.join(a.build, "app", "loopscope-cli")
    repo = os.path.dirname(HERE)
    schedules = {}
    with open(os.path.join(a.keep, "schedules.txt")) as f:
        for line in f:
            p = line.split()
            i = p.index("predicted")
            schedules[p[0]] = (" ".join(p[1:i]), int(p[i + 1]), int(p[i + 3]))
    loops, left_out = [], 0
    for image in sorted(glob.glob(os.path.join(a.keep, "image*"))):
        per_line = executions_per_line(image)
        for source in sorted(glob.glob(os.path.join(image, "lsk*.c"))):
            base = os.path.basename(source)
            lsk = base.split("_")[0]
            if lsk not in schedules:
                continue
            name, predicted, measured = schedules[lsk]
            path = os.path.join(a.keep, lsk + ".sched.yaml") if name.startswith("random") else os.path.join(repo, "examples", "schedules", name)
            report = subprocess.run([cli, "analyze", path, "--loops", "--json"], capture_output=True, text=True)
            if report.returncode != 0:
                continue
            model = json.loads(report.stdout).get("loops", [])
            written = unroll_decisions.c_loops(source, base[:-2])
            ours = unroll_decisions.model_loops(model)
            if [w[0] for w in written] != [m["name"].replace(".", "_").replace(":", "_") for m in ours]:
                left_out += 1
                continue
            lines = open(source).read().split("\n")
            by_loop = {}
            for (_, _, line), m in zip(written, ours):
                if "instructions" not in m:
                    continue
                end = closing_line(lines, line)
                got = sum(n for (f, l), n in per_line.items() if f == base and line <= l <= end)
                if id(m) in by_loop:
                    by_loop[id(m)]["measured"] += got  # another copy of the same loop
                    continue
                by_loop[id(m)] = {"schedule": name, "loop": m["name"], "compiled": m["compiled"], "dsp": m["dsp"],
                                  "iterations": m["entered"] * m["iterations"], "body_size": m["body_size"],
                                  "registers": m.get("registers"), "predicted": m["instructions"], "measured": got,
                                  "schedule_predicted": predicted, "schedule_measured": measured}
            loops.extend(by_loop.values())
    innermost = [l for l in loops if l["registers"] is not None]
    print("innermost kept loops by difference (share of the schedule's measured instructions):")
    for l in sorted(innermost, key=lambda l: -abs(l["predicted"] - l["measured"]) / l["schedule_measured"])[:a.top]:
        it = max(1, l["iterations"])
        print("  %-22s %-12s %-24s %8d iterations, body %4d, registers %4.0f: %7.2f predicted, %7.2f measured per iteration (%+.1f%%)" % (
            l["schedule"], l["loop"], l["compiled"], l["iterations"], l["body_size"], l["registers"],
            l["predicted"] / it, l["measured"] / it, 100.0 * (l["predicted"] - l["measured"]) / l["schedule_measured"]))
    inner_err, outer_err = [], []
    for name in {l["schedule"] for l in loops if l["schedule"].startswith("random")}:
        mine = [l for l in innermost if l["schedule"] == name]
        if not mine:
            continue
        total_p, total_m = mine[0]["schedule_predicted"], mine[0]["schedule_measured"]
        p = sum(l["predicted"] for l in mine)
        m = sum(l["measured"] for l in mine)
        inner_err.append(abs(p - m) / total_m)
        outer_err.append(abs((total_p - p) - (total_m - m)) / total_m)
    if inner_err:
        print("random schedules: mean |error| inside their innermost kept loops %.1f%%, outside them %.1f%% "
              "(median %.1f%% and %.1f%%) of the measured total; %d schedules left out (loops not paired)" % (
                  100 * statistics.mean(inner_err), 100 * statistics.mean(outer_err),
                  100 * statistics.median(inner_err), 100 * statistics.median(outer_err), left_out))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(loops, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
