#!/usr/bin/env python3
"""Re-baselines validation/thresholds.json (the CI accuracy gate) from a validate report.

    build/release/apps/rapidllm/rapidllm validate --format json | python3 scripts/update_thresholds.py
    python3 scripts/update_thresholds.py validation/report.json [--margin 2] [-o FILE]

For every (kind, source, metric) with compared cases it records
  max_mean_abs_error_pct = today's mean |error| + margin points, rounded up to 0.1
  min_compared           = today's compared count
The gate (tests/validation/accuracy_gate_test.cpp) fails when a group's mean |error| rises
above its maximum or fewer of its cases are compared. Run this only to accept a change in
accuracy deliberately (a better model, new data), and say so in the commit.
Exit status 2 when the report cannot be read or is malformed.
"""
import argparse
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(message):
    print(f'update_thresholds.py: error: {message}', file=sys.stderr)
    sys.exit(2)


def read_summary(path):
    try:
        if path == '-':
            text = sys.stdin.read()
        else:
            with open(path, encoding='utf-8') as f:
                text = f.read()
    except OSError as e:
        fail(f'cannot read {path}: {e.strerror}')
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        fail(f'{path}: not JSON ({e.msg} at line {e.lineno}, column {e.colno})')
    summary = report.get('summary') if isinstance(report, dict) else None
    if not isinstance(summary, list):
        fail(f"{path}: not a validate report (no 'summary' array; make it with `rapidllm validate --format json`)")
    for i, s in enumerate(summary):
        ok = isinstance(s, dict) and all(isinstance(s.get(k), str) for k in ('kind', 'source', 'metric')) and \
            isinstance(s.get('compared'), int) and isinstance(s.get('mean_abs_error_pct'), (int, float))
        if not ok:
            fail(f'{path}: summary[{i}] lacks kind/source/metric, compared or mean_abs_error_pct')
    return summary


def round_up_tenth(x):
    # round() first so that e.g. 12.3 does not become 12.4 through 12.300000000000001
    return math.ceil(round(x * 10, 6)) / 10


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('report', nargs='?', default='-', help='validate JSON report (default or "-": standard input)')
    ap.add_argument('--margin', type=float, default=2.0, help='percentage points above today (default 2)')
    ap.add_argument('-o', '--out', default=os.path.join(ROOT, 'validation', 'thresholds.json'),
                    help='file to write (default: validation/thresholds.json)')
    args = ap.parse_args()
    summary = read_summary(args.report)
    entries = []
    for s in sorted(summary, key=lambda s: (s['kind'], s['source'], s['metric'])):
        if s['compared'] <= 0:
            continue
        entries.append({
            'kind': s['kind'],
            'source': s['source'],
            'metric': s['metric'],
            'max_mean_abs_error_pct': round_up_tenth(s['mean_abs_error_pct'] + args.margin),
            'min_compared': s['compared'],
            'baseline_mean_abs_error_pct': round(s['mean_abs_error_pct'], 2),
        })
    if not entries:
        fail(f'{args.report}: no (kind, source, metric) group has compared cases')
    doc = {
        'about': 'CI accuracy gate for `rapidllm validate` (tests/validation/accuracy_gate_test.cpp): per '
                 '(kind, source, metric), the largest allowed mean |error| in percent and the fewest '
                 'compared cases. Baseline + margin; regenerate deliberately with scripts/update_thresholds.py.',
        'margin_pct_points': args.margin,
        'thresholds': entries,
    }
    tmp = args.out + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        json.dump(doc, f, indent=2)
        f.write('\n')
    os.replace(tmp, args.out)
    print(f'{args.out}: {len(entries)} thresholds', file=sys.stderr)


if __name__ == '__main__':
    main()
