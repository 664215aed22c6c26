#!/usr/bin/env python3
"""Fits the nanotron stack's allocator overhead (src/validate/nanotron_stack.hpp) on the even rows.

    build/release/apps/rapidllm/rapidllm validate --source nanotron --format json | \\
        python3 scripts/fit_nanotron_allocator.py

Reads the oom_verdict cases of nanotron_h100.csv (row ids NT<index>, index the 0-based
CSV data row). Each case's description carries the predicted need on the device and the
part PyTorch's allocator reserves; with the overhead f that part scales by (1 + f) / (1 + f0),
f0 the overhead the report was made with (--current). The fit is the f in [0, 1] (steps of
0.005) that gets the most even rows' verdicts right (ties: the smallest f); the odd rows
are held out and only reported. Prints the fit and both halves' accuracy.
Exit status 2 when the report cannot be read or holds no verdict case.
"""
import argparse
import json
import re
import sys

NEED = re.compile(r'needs ([0-9.]+) GiB of ([0-9.]+) \(([0-9.]+) GiB reserved by PyTorch\)')


def fail(message):
    print(f'fit_nanotron_allocator.py: error: {message}', file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('report', nargs='?', default='-', help='validate JSON report (default: standard input)')
    ap.add_argument('--current', type=float, default=0.0, help='the overhead the report was made with')
    args = ap.parse_args()
    try:
        text = sys.stdin.read() if args.report == '-' else open(args.report, encoding='utf-8').read()
        report = json.loads(text)
    except (OSError, json.JSONDecodeError) as e:
        fail(f'cannot read the report: {e}')
    rows = []
    for c in report.get('cases', []):
        if c.get('metric') != 'oom_verdict' or c.get('status') != 'compared':
            continue
        m = NEED.search(c['description'])
        if not m:
            fail(f"{c['row_id']}: no predicted need in '{c['description']}'")
        need, capacity, reserved = (float(g) for g in m.groups())
        base = reserved / (1.0 + args.current)
        rows.append((int(c['row_id'][2:]), need - reserved, base, capacity, c['measured'] > 0.5))
    if not rows:
        fail('no compared oom_verdict case (run validate with --source nanotron)')

    def right(f, half):
        return sum(1 for i, outside, base, cap, oom in rows
                   if i % 2 == half and ((outside + base * (1.0 + f) > cap) == oom))

    even = sum(1 for r in rows if r[0] % 2 == 0)
    odd = len(rows) - even
    best = max((right(k * 0.005, 0), -k) for k in range(201))
    f = -best[1] * 0.005
    print(f'allocator_overhead = {f:.3f}')
    print(f'fitted (even rows): {right(f, 0)} of {even} right, {100.0 * right(f, 0) / even:.2f}%')
    print(f'held out (odd rows): {right(f, 1)} of {odd} right, {100.0 * right(f, 1) / odd:.2f}%')


if __name__ == '__main__':
    main()
