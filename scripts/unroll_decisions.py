#!/usr/bin/env python3
"""GCC's complete unrolling of the exported C beside the instruction model's decisions (issue 11).

    scripts/unroll_decisions.py [--build BUILD_DIR] [--core m7|m4] SCHEDULE...

For every schedule: exports its C (`loopscope-cli export`), compiles it as the export harness
does (arm-none-eabi-gcc -O2) with `-fopt-info-loop-optimized`, which names each loop GCC unrolls
completely by its source line ("loop with 2 iterations completely unrolled"), and sets that
beside what `loopscope-cli analyze --loops --json` says of the same loop ("loop" or "unrolled by
the compiler"). The model's loops are matched to the C's `for` lines in order (a loop the
schedule unrolls is written once per iteration, the scalar fallback of a DSP loop is skipped);
a schedule whose loops cannot be matched that way is reported and left out. Prints every loop
of more than one iteration on which the two differ, then how many loops were compared. Session
10 found the two corrections of kSmallLoopBody and foldedByPeeling with this comparison over
calibrate's 500 random schedules (`calibrate ... --keep DIR`, then DIR/lsk*.sched.yaml).
Needs python3 and arm-none-eabi-gcc (./test.sh installs the compiler).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

FLAGS = {
    "m7": ["-mcpu=cortex-m7", "-mfpu=fpv5-sp-d16"],
    "m4": ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16"],
}


def c_loops(path, kernel):
    """The `for` loops of the kernel function in source order: (variable, bound, line)."""
    out, inside, scalar = [], False, False
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not inside:
                inside = re.match(r"void \w*%s\(" % re.escape(kernel), line) is not None and "_prepare(" not in line
                continue
            if line.startswith("}"):
                break
            s = line.strip()
            if s.startswith("#if"):
                scalar = False
            elif s.startswith("#else"):
                scalar = True  # the DSP loop's scalar fallback, not compiled for a DSP core
            elif s.startswith("#endif"):
                scalar = False
            m = re.match(r"for \(int (\w+) = 0; \1 < ([^;]+);", s)
            if m and not scalar and not re.fullmatch(r"t\d+", m.group(1)):  # t0...: a copy's rows, not a loop of the nest
                bound = m.group(2).strip()
                out.append((m.group(1), int(bound) if bound.isdigit() else 0, number))  # 0: a bound computed at run time
    return out


def model_loops(loops):
    """The model's loops in the order the C writes them: a loop the schedule unrolls is not a
    `for`, and what it holds is written once per iteration."""
    nodes, stack = [], []
    for l in loops:
        node = dict(l, children=[])
        while stack and stack[-1]["depth"] >= l["depth"]:
            stack.pop()
        (stack[-1]["children"] if stack else nodes).append(node)
        stack.append(node)
    out = []

    def visit(n):
        if n["compiled"] == "unrolled":
            for _ in range(max(1, n["iterations"])):
                for c in n["children"]:
                    visit(c)
            return
        out.append(n)
        for c in n["children"]:
            visit(c)

    for n in nodes:
        visit(n)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--core", choices=sorted(FLAGS), default="m7")
    ap.add_argument("schedules", nargs="+")
    a = ap.parse_args()
    cli = os.path.join(a.build, "app", "loopscope-cli")
    compared = differ = unmatched = 0
    for schedule in a.schedules:
        report = subprocess.run([cli, "analyze", schedule, "--loops", "--json"], capture_output=True, text=True)
        if report.returncode != 0:
            print("%s: analyze failed: %s" % (schedule, report.stderr.strip().splitlines()[:1]))
            continue
        r = json.loads(report.stdout)
        if "loops" not in r:
            continue  # an accelerator
        with tempfile.TemporaryDirectory() as tmp:
            ex = subprocess.run([cli, "export", schedule, "--out", tmp, "--force"], capture_output=True, text=True)
            sources = [f for f in os.listdir(tmp) if f.endswith(".c")]
            if ex.returncode != 0 or not sources:
                print("%s: export failed: %s" % (schedule, ex.stderr.strip().splitlines()[:1]))
                continue
            source = os.path.join(tmp, sources[0])
            kernel = sources[0][:-2]
            gcc = subprocess.run(["arm-none-eabi-gcc"] + FLAGS[a.core] + ["-mfloat-abi=hard", "-mthumb", "-std=c99", "-O2",
                                  "-ffp-contract=off", "-c", "-o", os.devnull, source, "-fopt-info-loop-optimized"],
                                 capture_output=True, text=True)
            unrolled = {int(line) for line in re.findall(r":(\d+):\d+: optimized: loop with \d+ iterations completely unrolled", gcc.stderr)}
            written = c_loops(source, kernel)
        ours = model_loops(r["loops"])
        if [w[0] for w in written] != [m["name"].replace(".", "_").replace(":", "_") for m in ours]:
            unmatched += 1
            print("%s: the model's loops and the C's `for` lines do not pair up; left out" % schedule)
            continue
        for (var, bound, line), m in zip(written, ours):
            if bound < 2 or m["compiled"] not in ("loop", "unrolled by the compiler"):
                continue
            compared += 1
            gcc_unrolls = line in unrolled
            if gcc_unrolls != (m["compiled"] == "unrolled by the compiler"):
                differ += 1
                print("%s: %s (C line %d, %d iterations, body size %d): GCC %s it, the model %s" % (
                    schedule, m["name"], line, bound, m["body_size"],
                    "unrolls" if gcc_unrolls else "keeps", m["compiled"] if m["compiled"] != "loop" else "keeps it"))
    print("%d loops compared, %d decided otherwise than GCC; %d schedules left out (loops not paired)" % (compared, differ, unmatched))
    return 0


if __name__ == "__main__":
    sys.exit(main())
