#!/usr/bin/env python3
"""Plots a `rapidllm validate --format json` report as PNG files.

    rapidllm validate --format json | python3 scripts/plot_validation.py
    python3 scripts/plot_validation.py validation/report.json --out validation/plots

Writes, into the output folder (default: validation/plots under the repository):
  KIND_METRIC.png   predicted vs measured, one per (kind, metric), log-log, coloured by
                    source, with y = x and the +-10% band; the legend gives each source's
                    case count and mean |error| in that panel
  errors_KIND.png   histogram of the signed % errors of every compared case of that kind,
                    stacked by source

Needs Debian's python3-matplotlib (scripts/install-deps.sh installs it); run it with the
system interpreter (/usr/bin/python3) if another python3 comes first on PATH.
Exit status: 0 written, 2 the report cannot be read or is malformed (or matplotlib is
missing).
"""
import argparse
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DPI = 80
BAND = 0.10          # the +-10% band
HIST_LIMIT = 100.0   # histogram x range is [-100%, +100%]; larger errors land in the edge bin
HIST_BIN = 5.0

UNITS = {
    'step_time_s': 'step time (s)',
    'tokens_per_s': 'tokens/s (all GPUs)',
    'tokens_per_s_per_gpu': 'tokens/s per GPU',
    'tflops_per_gpu': 'TFLOP/s per GPU (source convention)',
    'output_tokens_per_s': 'output tokens/s',
    'ttft_s': 'time to first token (s)',
    'tpot_s': 'time per output token (s)',
    'e2e_latency_s': 'end-to-end latency (s)',
    'busbw_bytes_per_s': 'bus bandwidth (B/s)',
    'peak_memory_bytes': 'peak memory per GPU (B)',
    'activation_bytes_first_stage': 'activation memory, first stage (B)',
    'static_bytes_first_stage': 'weights+grads+optimizer, first stage (B)',
}


class Malformed(Exception):
    pass


def fail(message):
    print(f'plot_validation.py: error: {message}', file=sys.stderr)
    sys.exit(2)


def load_report(path):
    """The compared cases of a validate JSON report, checked; raises Malformed."""
    try:
        if path == '-':
            text = sys.stdin.read()
            where = '<stdin>'
        else:
            with open(path, encoding='utf-8') as f:
                text = f.read()
            where = path
    except OSError as e:
        raise Malformed(f'cannot read {path}: {e.strerror}') from e
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        raise Malformed(f'{where}: not JSON ({e.msg} at line {e.lineno}, column {e.colno})') from e
    if not isinstance(report, dict) or not isinstance(report.get('cases'), list):
        raise Malformed(f"{where}: not a validate report (expected an object with a 'cases' array; "
                        "make it with `rapidllm validate --format json`)")
    compared = []
    for i, c in enumerate(report['cases']):
        if not isinstance(c, dict):
            raise Malformed(f'{where}: cases[{i}] is not an object')
        for key in ('source', 'kind', 'metric', 'status'):
            if not isinstance(c.get(key), str):
                raise Malformed(f"{where}: cases[{i}] has no string '{key}'")
        # A verdict (nanotron's OOM: 0 right, 1 wrong) is a classification, not a value to
        # scatter; the validate table reports its share wrong.
        if c['status'] != 'compared' or c['metric'].endswith('_verdict'):
            continue
        for key in ('measured', 'predicted', 'error_pct'):
            v = c.get(key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise Malformed(f"{where}: cases[{i}] (row {c.get('row_id', '?')}) is compared but "
                                f"'{key}' is not a finite number")
        if c['measured'] <= 0 or c['predicted'] <= 0:
            raise Malformed(f"{where}: cases[{i}] (row {c.get('row_id', '?')}) has a non-positive "
                            'measured or predicted value')
        compared.append(c)
    return compared


def source_styles(cases):
    """(colour, marker) per source: tab10 colours numbered within each kind, so every
    panel's sources get distinct strong colours and a source looks the same in all of them."""
    import matplotlib
    cmap = matplotlib.colormaps['tab10']
    markers = 'os^Dv'
    styles = {}
    for kind in sorted({c['kind'] for c in cases}):
        for i, s in enumerate(sorted({c['source'] for c in cases if c['kind'] == kind})):
            styles.setdefault(s, (cmap(i % 10), markers[(i // 10) % len(markers)]))
    return styles


def mean_abs(cases):
    return sum(abs(c['error_pct']) for c in cases) / len(cases)


def scatter(plt, kind, metric, cases, styles, out_dir):
    fig, ax = plt.subplots(figsize=(5.8, 5.6))
    lo = min(min(c['measured'], c['predicted']) for c in cases) / 1.5
    hi = max(max(c['measured'], c['predicted']) for c in cases) * 1.5
    xs = [lo * (hi / lo) ** (i / 50) for i in range(51)]
    ax.fill_between(xs, [x * (1 - BAND) for x in xs], [x * (1 + BAND) for x in xs],
                    color='0.85', lw=0, label=f'\u00b1{BAND:.0%}')
    ax.plot([lo, hi], [lo, hi], color='0.3', lw=1, label='y = x')
    for source in sorted({c['source'] for c in cases}):
        group = [c for c in cases if c['source'] == source]
        ax.scatter([c['measured'] for c in group], [c['predicted'] for c in group], s=16, alpha=0.8,
                   color=styles[source][0], marker=styles[source][1], edgecolors='none',
                   label=f'{source}  n={len(group)}, mean |err| {mean_abs(group):.1f}%')
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect('equal')
    label = UNITS.get(metric, metric)
    ax.set_xlabel(f'measured {label}')
    ax.set_ylabel(f'predicted {label}')
    ax.set_title(f'{kind}: {metric}  ({len(cases)} cases, mean |err| {mean_abs(cases):.1f}%)', fontsize=10)
    ax.grid(True, which='major', lw=0.4, color='0.8')
    ax.legend(fontsize=7, loc='upper left', framealpha=0.9)
    fig.tight_layout()
    path = os.path.join(out_dir, f'{kind}_{metric}.png')
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def histogram(plt, kind, cases, styles, out_dir):
    edges = [-HIST_LIMIT + HIST_BIN * i for i in range(int(2 * HIST_LIMIT / HIST_BIN) + 1)]
    sources = sorted({c['source'] for c in cases})
    # Errors beyond the range are drawn in the edge bins (and counted in the title).
    clip = HIST_LIMIT - HIST_BIN / 2
    data = [[max(-clip, min(clip, c['error_pct'])) for c in cases if c['source'] == s] for s in sources]
    beyond = sum(1 for c in cases if abs(c['error_pct']) > HIST_LIMIT)
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    ax.hist(data, bins=edges, stacked=True, color=[styles[s][0] for s in sources],
            label=[f'{s} (n={len(d)})' for s, d in zip(sources, data)])
    for x in (-100 * BAND, 100 * BAND):
        ax.axvline(x, color='0.3', lw=0.8, ls='--')
    ax.axvline(0, color='0.3', lw=0.8)
    ax.set_xlim(-HIST_LIMIT, HIST_LIMIT)
    ax.set_xlabel('signed error, (predicted - measured) / measured  [%]')
    ax.set_ylabel('cases')
    title = f'{kind}: {len(cases)} compared cases, {sum(1 for c in cases if abs(c["error_pct"]) <= 100 * BAND)} within \u00b1{BAND:.0%}'
    if beyond:
        title += f'; {beyond} beyond \u00b1{HIST_LIMIT:.0f}% drawn in the edge bins'
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc='upper left', framealpha=0.9)
    fig.tight_layout()
    path = os.path.join(out_dir, f'errors_{kind}.png')
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('report', nargs='?', default='-',
                    help='validate JSON report (default or "-": standard input)')
    ap.add_argument('-o', '--out', default=os.path.join(ROOT, 'validation', 'plots'),
                    help='folder for the PNG files (default: validation/plots)')
    args = ap.parse_args()
    try:
        cases = load_report(args.report)
    except Malformed as e:
        fail(str(e))
    if not cases:
        fail(f'{args.report}: the report has no compared cases; nothing to plot')
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        fail('matplotlib is missing: install python3-matplotlib (bash scripts/install-deps.sh) '
             'and run this with /usr/bin/python3')
    os.makedirs(args.out, exist_ok=True)
    styles = source_styles(cases)
    written = []
    panels = sorted({(c['kind'], c['metric']) for c in cases})
    for kind, metric in panels:
        written.append(scatter(plt, kind, metric,
                               [c for c in cases if c['kind'] == kind and c['metric'] == metric],
                               styles, args.out))
    for kind in sorted({c['kind'] for c in cases}):
        written.append(histogram(plt, kind, [c for c in cases if c['kind'] == kind], styles, args.out))
    for path in written:
        print(path)


if __name__ == '__main__':
    main()
