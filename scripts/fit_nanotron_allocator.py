#!/usr/bin/env python3
"""Fits the nanotron stack's allocator overheads (src/validate/nanotron_stack.hpp) on the even rows.

    build/release/apps/rapidllm/rapidllm validate --source nanotron --format json | \\
        python3 scripts/fit_nanotron_allocator.py

Reads the oom_verdict cases of nanotron_h100.csv (row ids NT<index>, index the 0-based
CSV data row). Each case's description carries the predicted need on the device, the part
PyTorch's allocator reserves, and what that reservation is made of: the forward/backward
high-water mark's long-lived tensors (parameters, gradients, optimizer states) and its
transient ones (activations, temporaries), and the optimizer step's allocation. With the
overheads (s, t) the reservation is max(long-lived (1 + s) + transient (1 + t), step (1 + s)).
The fit is the pair in [0, 1.5] x [0, 1.5] (steps of 0.01) that gets the most even rows'
verdicts right (ties: the smallest s, then t); the odd rows are held out and only reported.
Prints the fit and both halves' accuracy.
Exit status 2 when the report cannot be read or holds no verdict case.
"""
import argparse
import json
import re
import sys

NEED = re.compile(r'needs ([0-9.]+) GiB of ([0-9.]+) \(([0-9.]+) GiB reserved by PyTorch; '
                  r'allocated ([0-9.]+) long-lived \+ ([0-9.]+) transient, step ([0-9.]+)\)')
STEP = 0.01
LIMIT = 150  # steps: overheads up to 1.5


def fail(message):
    print(f'fit_nanotron_allocator.py: error: {message}', file=sys.stderr)
    sys.exit(2)


def read_rows(text):
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        fail(f'cannot read the report: {e}')
    rows = []
    for c in report.get('cases', []):
        if c.get('metric') != 'oom_verdict' or c.get('status') != 'compared':
            continue
        m = NEED.search(c['description'])
        if not m:
            fail(f"{c['row_id']}: no predicted need in '{c['description']}'")
        need, capacity, reserved, long_lived, transient, step = (float(g) for g in m.groups())
        # Outside the allocator: NCCL's buffers and the CUDA context.
        rows.append((int(c['row_id'][2:]), need - reserved, long_lived, transient, step, capacity,
                     c['measured'] > 0.5))
    if not rows:
        fail('no compared oom_verdict case (run validate with --source nanotron)')
    return rows


def right(rows, s, t, half):
    return sum(1 for i, outside, long_lived, transient, step, cap, oom in rows
               if i % 2 == half and
               ((outside + max(long_lived * (1 + s) + transient * (1 + t), step * (1 + s)) > cap) == oom))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('report', nargs='?', default='-', help='validate JSON report (default: standard input)')
    args = ap.parse_args()
    try:
        text = sys.stdin.read() if args.report == '-' else open(args.report, encoding='utf-8').read()
    except OSError as e:
        fail(f'cannot read the report: {e}')
    rows = read_rows(text)
    even = sum(1 for r in rows if r[0] % 2 == 0)
    odd = len(rows) - even
    best = max((right(rows, a * STEP, b * STEP, 0), -a, -b) for a in range(LIMIT + 1) for b in range(LIMIT + 1))
    s, t = -best[1] * STEP, -best[2] * STEP
    print(f'static_overhead = {s:.2f}, transient_overhead = {t:.2f}')
    print(f'fitted (even rows): {right(rows, s, t, 0)} of {even} right, {100.0 * right(rows, s, t, 0) / even:.2f}%')
    print(f'held out (odd rows): {right(rows, s, t, 1)} of {odd} right, {100.0 * right(rows, s, t, 1) / odd:.2f}%')


if __name__ == '__main__':
    main()
