#!/usr/bin/env python3
"""GCC's complete unrolling of the exported C beside the instruction model's decisions (issue 11).

    scripts/unroll_decisions.py [--build BUILD_DIR] [--core m7|m4] [--sizes] [--all] SCHEDULE...

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

--sizes also compiles with `-fdump-tree-cunroll-details-lineno` and adds GCC's own account of
each loop as cunroll last weighed it: its size O, the statements E it expects to fold away in
the copies, and the size it estimates after unrolling (GCC -O2 unrolls without growth: that
estimate, 2/3 of the copies less what folds, at most O). A loop is found in the dump by its
`for` line: the line of the unrolled loop's opt-info note, or of a kept loop's exit test in the
final function body. --all prints every loop compared, not only those decided otherwise.
Session 20 found the rules for loops around kept loops (kSmallBodyAroundLoops) and for two-step
DSP loops (kSmallDspBody) with --sizes --all over calibrate's 1,500 random schedules.
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


def cunroll_sizes(dump, kernel):
    """GCC's size estimate per loop of `kernel` in a cunroll details dump (compiled with -lineno):
    {C line: [(O, E, estimated size after unrolling or None, "unrolled" or "kept"), ...]}, in
    the order cunroll last weighed the loops of that line."""
    with open(dump) as f:
        text = f.read()
    section = None
    for part in re.split(r"^;; Function ", text, flags=re.M):
        if part.startswith(kernel + " "):
            section = part
    if section is None:
        return {}
    lines = section.split("\n")
    weighed = {}  # loop number -> its last estimate
    current = None
    for l in lines:
        m = re.match(r"Estimating sizes for loop (\d+)", l)
        if m:
            current = {"num": int(m.group(1)), "exit": None, "line": None, "after": None, "last": None}
            continue
        if current is None:
            continue
        m = re.match(r"  size:\s+\d+ (.*)", l)
        if m:
            current["last"] = m.group(1).strip()
            continue
        if "Exit condition will be eliminated in peeled copies" in l:
            current["exit"] = current["last"]
            continue
        m = re.match(r"size: (\d+)-(\d+), last_iteration: \d+-\d+", l)
        if m:
            current["O"], current["E"] = int(m.group(1)), int(m.group(2))
            continue
        m = re.match(r"  Estimated size after unrolling: (\d+)", l)
        if m:
            current["after"] = int(m.group(1))
            continue
        m = re.match(r".*\.c:(\d+):\d+: optimized: loop with \d+ iterations completely unrolled", l)
        if m or l.startswith("Not unrolling loop"):
            current["decision"] = "unrolled" if m else "kept"
            current["line"] = int(m.group(1)) if m else None
            weighed[current["num"]] = current
            current = None
    body = "\n".join(lines)
    out = {}
    for w in weighed.values():
        if w["line"] is None and w["exit"]:
            m = re.search(r"\[[^\]]*\.c:(\d+):\d+\] " + re.escape(w["exit"]), body)
            w["line"] = int(m.group(1)) if m else None
        if w["line"] is not None and "O" in w:
            out.setdefault(w["line"], []).append((w["O"], w["E"], w["after"], w["decision"]))
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
    ap.add_argument("--sizes", action="store_true", help="add GCC's size estimate per loop (cunroll's details dump)")
    ap.add_argument("--all", action="store_true", help="print every loop compared")
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
            dump = ["-fdump-tree-cunroll-details-lineno", "-dumpdir", tmp + "/"] if a.sizes else []
            gcc = subprocess.run(["arm-none-eabi-gcc"] + FLAGS[a.core] + ["-mfloat-abi=hard", "-mthumb", "-std=c99", "-O2",
                                  "-ffp-contract=off", "-c", "-o", os.devnull, source, "-fopt-info-loop-optimized"] + dump,
                                 capture_output=True, text=True, cwd=tmp)
            unrolled = {int(line) for line in re.findall(r":(\d+):\d+: optimized: loop with \d+ iterations completely unrolled", gcc.stderr)}
            written = c_loops(source, kernel)
            dumps = [f for f in os.listdir(tmp) if "cunroll" in f]
            sizes = cunroll_sizes(os.path.join(tmp, dumps[0]), kernel) if a.sizes and dumps else {}
        ours = model_loops(r["loops"])
        if [w[0] for w in written] != [m["name"].replace(".", "_").replace(":", "_") for m in ours]:
            unmatched += 1
            print("%s: the model's loops and the C's `for` lines do not pair up; left out" % schedule)
            continue
        seen = {}
        for (var, bound, line), m in zip(written, ours):
            if bound < 2 or m["compiled"] not in ("loop", "unrolled by the compiler"):
                continue
            compared += 1
            gcc_unrolls = line in unrolled
            # The n-th loop of a line in the C (copies of an unrolled loop repeat lines) is taken
            # as the n-th cunroll weighed there.
            nth = seen.get(line, 0)
            seen[line] = nth + 1
            estimates = sizes.get(line, [])
            size = ""
            if estimates:
                o, e, after, _ = estimates[min(nth, len(estimates) - 1)]
                size = "; GCC: size %d, %d folded%s" % (o, e, ", %d after unrolling" % after if after is not None else "")
            agrees = gcc_unrolls == (m["compiled"] == "unrolled by the compiler")
            differ += 0 if agrees else 1
            if not agrees or a.all:
                print("%s: %s (C line %d, %d iterations, body size %d%s): GCC %s it, the model %s" % (
                    schedule, m["name"], line, bound, m["body_size"], size,
                    "unrolls" if gcc_unrolls else "keeps", m["compiled"] if m["compiled"] != "loop" else "keeps it"))
    print("%d loops compared, %d decided otherwise than GCC; %d schedules left out (loops not paired)" % (compared, differ, unmatched))
    return 0


if __name__ == "__main__":
    sys.exit(main())
