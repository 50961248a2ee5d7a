#!/usr/bin/env python3
# The project's Open MPI peer benchmark, kept in the repository so that scripts/side-by-side.sh runs from a clone alone.
"""Summarize repeated "RESULT k=v ..." lines (from run_mpi.sh, run_physical.sh
or hand-converted peer output) into one row per measurement.

For every group (all non-numeric keys equal, `rep` ignored) it prints the
median over repetitions of the chosen value and the spread
(min..max over repetitions, and (max-min)/median in percent).

Usage: summarize.py [--value median_us] [--extra busbw_MBps] FILE... (or stdin)
"""
import argparse
import statistics
import sys
from collections import OrderedDict

NUMERIC_SKIP = {"rep"}


def parse(line):
    d = OrderedDict()
    for tok in line.split()[1:]:
        if "=" in tok:
            k, v = tok.split("=", 1)
            d[k] = v
    return d


def is_num(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--value", default="median_us")
    ap.add_argument("--extra", action="append", default=[])
    ap.add_argument("--keys", default="op,impl,algo,mode,ranks,bytes")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    lines = []
    srcs = [open(f) for f in a.files] if a.files else [sys.stdin]
    for s in srcs:
        lines += [l for l in s if l.startswith("RESULT ")]
    keys = a.keys.split(",")
    groups = OrderedDict()
    for l in lines:
        d = parse(l)
        if a.value not in d:
            continue
        k = tuple((kk, d.get(kk, "")) for kk in keys)
        groups.setdefault(k, []).append(d)
    hdr = [k for k in keys] + [a.value + " (median of reps)", "min..max over reps",
                                 "spread %", "reps"] + a.extra
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for k, ds in groups.items():
        vals = [float(d[a.value]) for d in ds]
        med = statistics.median(vals)
        spread = (max(vals) - min(vals)) / med * 100 if med else 0.0
        extras = []
        for e in a.extra:
            ev = [float(d[e]) for d in ds if e in d and is_num(d[e])]
            extras.append(f"{statistics.median(ev):.1f}" if ev else "")
        row = [v for _, v in k] + [f"{med:.3f}", f"{min(vals):.3f}..{max(vals):.3f}",
                                    f"{spread:.0f}", str(len(vals))] + extras
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
