#!/usr/bin/env python3
"""The instruction model over calibrate's measured random schedules: errors, stack traffic, refits (issue 11).

    scripts/model_study.py [--cli CLI] errors KEEP_DIR...
    scripts/model_study.py [--cli CLI] fit --test KEEP_DIR [--examples EXAMPLES_DIR] TRAIN_KEEP_DIR...

KEEP_DIR is what `loopscope-cli calibrate TARGET --check --schedules 500 --seed S --keep KEEP_DIR`
leaves (schedules.txt with each schedule's measured total, lskN.sched.yaml, image*/ with the
ELFs and qemu's per-address execution counts, profile.txt). Both commands re-predict every
random schedule with `CLI analyze --json` (the build's current model, so a change is checked
without measuring again; the answers are cached in KEEP_DIR/model/ per build of the CLI, so an
edited target file needs `rm -r KEEP_DIR/model`).

`errors` prints, per folder and over all, the median, 95th percentile and worst of
|predicted - measured| / measured and the counts beyond 10% and 25%, and writes
KEEP_DIR/errors.txt: `lskN #seed kernel predicted measured error% stack pairs`, where stack is
the executed instructions of the kernel's function that address the stack (`[sp`: spills and
reloads) and pairs its executed LDRD/STRD that do not.

`fit` asks how far coefficients alone could take the model: weighted least squares of the
measured totals on the model's event counts (instructions.events, relative error), fitted on the
TRAIN folders and reported on them, on --test and on the example schedules (the first lines of
--test's schedules.txt, re-predicted from EXAMPLES_DIR/schedules): (1) the target's defaults;
(2) only the compiler-dependent coefficients moved, the one-instruction events and the copies
kept (what calibrate --write does, less its Huber weights and with an optional ridge);
(3) every coefficient free; (4) (3) with the measured stack and LDRD/STRD counts as two more
events: what a perfect count of spills and pairs would buy. Needs python3-numpy.

Needs python3 and arm-none-eabi-objdump (./test.sh installs the toolchain).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys

# The coefficients a target without a calibration section uses (core/analysis/instructions.cpp,
# kInsnFeatures), read from the source so that they cannot drift from it.
HERE = os.path.dirname(os.path.abspath(__file__))
# Events that are one instruction each in the generated code, and the copies' (calibrate keeps both).
FIXED = {"load", "store", "mla", "fpu_op", "smlad", "dsp_word", "dsp_unpack", "dsp_pack", "function", "library",
         "copy_statement", "copy_call", "wait_call", "hook_call", "hook_row", "memcpy", "hook_wait",
         "widen_call", "widen_row", "widen_element"}


def default_coefficients():
    src = open(os.path.join(HERE, "..", "core", "analysis", "instructions.cpp")).read()
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r'\{InsnFeature::\w+, "(\w+)", "\w+", ([0-9.]+)\}', src)}


def measured(keep):
    """[(lsk, label, measured total, is_random)] in schedules.txt's order."""
    out = []
    for line in open(os.path.join(keep, "schedules.txt")):
        m = re.match(r"(lsk\d+) (.*) predicted \d+ measured (\d+)", line)
        if m:
            out.append((m.group(1), m.group(2), int(m.group(3)), m.group(2).startswith("random")))
    return out


def predict(cli, path, cache):
    """analyze --json of one schedule, cached per build of the CLI (a failure is not cached)."""
    key = os.path.join(cache, re.sub(r"[^A-Za-z0-9_.]", "_", os.path.basename(path)) + ".json")
    if os.path.exists(key):
        return json.load(open(key))
    out = subprocess.run([cli, "analyze", "--json", path], capture_output=True, text=True).stdout
    try:
        j = json.loads(out)
    except ValueError:
        return None
    tmp = key + ".tmp-%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(j, f)
    os.replace(tmp, key)  # whole or absent, even when interrupted
    return j


def predictions(cli, keep, rows, examples=None):
    st = os.stat(cli)
    stamp = "%d-%d" % (st.st_mtime_ns, st.st_size)  # a rebuild within the same second is another build
    cache = os.path.join(keep, "model", stamp)
    os.makedirs(cache, exist_ok=True)

    def one(row):
        lsk, label = row[0], row[1]
        if row[3]:
            return predict(cli, os.path.join(keep, lsk + ".sched.yaml"), cache)
        if examples:
            return predict(cli, os.path.join(examples, "schedules", label), cache)
        return None

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        return list(ex.map(one, rows))


def stack_and_pairs(keep):
    """lsk -> (stack instructions, LDRD/STRD not on sp) executed in the kernel's function."""
    out = {}
    for image in sorted(glob.glob(os.path.join(keep, "image*"))):
        counts = {}
        for line in open(os.path.join(image, "profile.txt")):
            f = line.split()
            counts[int(f[0], 16)] = int(f[1])
        elf = glob.glob(os.path.join(image, "m*", "batch.elf"))[0]
        dis = subprocess.run(["arm-none-eabi-objdump", "-d", "--no-show-raw-insn", elf],
                             capture_output=True, text=True).stdout
        fn = None
        for line in dis.splitlines():
            m = re.match(r"^[0-9a-f]+ <(lsk\d+)_\w+>:", line)
            if m or re.match(r"^[0-9a-f]+ <", line):
                fn = m.group(1) if m else None
                if fn:
                    out[fn] = [0, 0]
                continue
            m = fn and re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*(.*)", line)
            if m:
                c = counts.get(int(m.group(1), 16), 0)
                if "[sp" in m.group(3):
                    out[fn][0] += c
                elif m.group(2).startswith(("ldrd", "strd")):
                    out[fn][1] += c
    return out


def stats(errors):
    a = sorted(abs(e) for e in errors)
    n = len(a)
    if not n:
        return "none"
    return (f"median {100 * a[n // 2]:.1f}% p95 {100 * a[min(n - 1, int(0.95 * n))]:.1f}% worst {100 * a[-1]:.1f}% "
            f"beyond 10% {sum(x > 0.10 for x in a)}, beyond 25% {sum(x > 0.25 for x in a)} (of {n})")


def load(cli, keep):
    rows = [r for r in measured(keep) if r[3]]
    js = predictions(cli, keep, rows)
    sp = stack_and_pairs(keep)
    out = []
    for r, j in zip(rows, js):
        if not j:
            print(f"{keep}: {r[0]} not predicted", file=sys.stderr)
            continue
        out.append(dict(lsk=r[0], label=r[1], meas=r[2], pred=j["instructions"]["predicted"], kernel=j["kernel"],
                        events=j["instructions"]["events"], stack=sp.get(r[0], [0, 0])[0], pairs=sp.get(r[0], [0, 0])[1]))
    return out


def cmd_errors(args):
    every = []
    for keep in args.keep:
        rows = load(args.cli, keep)
        with open(os.path.join(keep, "errors.txt"), "w") as f:
            for r in rows:
                e = (r["pred"] - r["meas"]) / r["meas"]
                f.write(f"{r['lsk']} {r['label'].split()[1]} {r['kernel']} {r['pred']} {r['meas']} {100 * e:.2f} {r['stack']} {r['pairs']}\n")
        errors = [(r["pred"] - r["meas"]) / r["meas"] for r in rows]
        every += errors
        print(f"{keep}: {stats(errors)}")
    if len(args.keep) > 1:
        print(f"all: {stats(every)}")


def cmd_fit(args):
    import numpy as np
    coef = default_coefficients()
    keys = sorted(coef)
    train = [r for keep in args.train for r in load(args.cli, keep)]
    test = load(args.cli, args.test)
    ex_rows = [r for r in measured(args.test) if not r[3]]
    ex = []
    if args.examples:
        for r, j in zip(ex_rows, predictions(args.cli, args.test, ex_rows, args.examples)):
            if j:
                ex.append(dict(meas=r[2], events=j["instructions"]["events"], stack=0, pairs=0))

    def matrix(rows, extra):
        cols = [[r["events"].get(k, 0) for k in keys] + ([r["stack"], r["pairs"]] if extra else []) for r in rows]
        return np.array(cols, float).reshape(len(rows), len(keys) + (2 if extra else 0)), np.array([r["meas"] for r in rows], float)

    def report(label, c, extra=False):
        line = f"{label}:\n"
        for name, rows in (("train", train), ("test", test), ("examples", ex)):
            if rows and not (extra and name == "examples"):
                X, y = matrix(rows, extra)
                line += f"  {name:8s} {stats((X @ c - y) / y)}\n"
        print(line, end="")

    c0 = np.array([coef[k] for k in keys])
    report("the target's defaults", c0)
    X, y = matrix(train, False)
    w = 1 / y
    free = [i for i, k in enumerate(keys) if k not in FIXED]
    fixed = [i for i, k in enumerate(keys) if k in FIXED]
    A = X[:, free] * w[:, None]
    b = (y - X[:, fixed] @ c0[fixed]) * w
    if args.ridge > 0:
        s = (args.ridge * len(y)) ** 0.5
        A = np.vstack([A, s * np.eye(len(free))])
        b = np.concatenate([b, s * c0[free]])
    cf = np.linalg.lstsq(A, b, rcond=None)[0]
    c = c0.copy()
    c[free] = np.maximum(cf, 0)
    report(f"compiler-dependent coefficients fitted (ridge {args.ridge})", c)
    c = np.linalg.lstsq(X * w[:, None], y * w, rcond=None)[0]
    report("every coefficient free", c)
    moved = [f"{k} {coef[k]:g} -> {v:.2f}" for k, v in zip(keys, c) if abs(v - coef[k]) > 0.1 * max(1, coef[k])]
    print("  moved: " + "; ".join(moved))
    X2, _ = matrix(train, True)
    c = np.linalg.lstsq(X2 * w[:, None], y * w, rcond=None)[0]
    report("every coefficient free, with the measured stack and LDRD/STRD counts", c, extra=True)
    print(f"  a stack instruction {c[-2]:.2f}, an LDRD/STRD {c[-1]:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=os.path.join(HERE, "..", "build", "app", "loopscope-cli"))
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("errors")
    e.add_argument("keep", nargs="+")
    f = sub.add_parser("fit")
    f.add_argument("--test", required=True)
    f.add_argument("--examples", default=os.path.join(HERE, "..", "examples"))
    f.add_argument("--ridge", type=float, default=0.0)
    f.add_argument("train", nargs="+")
    args = ap.parse_args()
    {"errors": cmd_errors, "fit": cmd_fit}[args.cmd](args)


if __name__ == "__main__":
    main()
