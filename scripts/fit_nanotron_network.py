#!/usr/bin/env python3
"""Fits the nanotron cluster's inter-node ring-step latency (src/validate/nanotron_rows.cpp,
nanotron_cluster_overrides) on the even rows.

    python3 scripts/fit_nanotron_network.py           # needs a built rapidllm ($RAPIDLLM or build/release)

The rows' measured bandwidths re-scale the H100 file's links, but a 1 GiB all-reduce says
nothing of latency. It shows where NCCL's all-gathers and reduce-scatters run as one ring
over several nodes at small sizes: each of the ring's n - 1 steps lasts at least a step
between nodes (network/analytical_collectives.hpp, flat_ring_latency). The Success rows
with tp > 8 and pp = 1 are those: their TP collectives span 2-16 nodes, with no pipeline
engine behaviour on top. The fit is the latency on a grid of 5 us steps (5-200 us) that
minimises the mean |log(predicted / measured)| tokens/s per GPU over the even rows (row
ids NT<index>, index the 0-based CSV data row); the odd rows are held out and reported.
Tried through `rapidllm validate --set network.dimensions[1].topology.latency=...`, which
wins over the mapping's own value.
"""
import csv
import io
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def binary():
    if os.environ.get('RAPIDLLM'):
        return os.environ['RAPIDLLM']
    path = os.path.join(ROOT, 'build/release/apps/rapidllm/rapidllm')
    if not os.path.exists(path):
        sys.exit('fit_nanotron_network.py: build rapidllm first (or name it with $RAPIDLLM)')
    return path


def fitted_rows():
    """Row index -> even/odd for the Success rows with tp > 8 and pp = 1."""
    rows = {}
    with open(os.path.join(ROOT, 'validation/data/nanotron_h100.csv')) as f:
        for i, r in enumerate(csv.DictReader(f)):
            if r['status'] == 'Success' and int(r['tp']) > 8 and int(r['pp']) == 1:
                rows[f'NT{i:04d}'] = i % 2 == 0
    return rows


def cases(latency_us):
    out = subprocess.run([binary(), 'validate', '--source', 'nanotron', '--cases', '--format', 'csv', '--set',
                          f'network.dimensions[1].topology.latency={latency_us} us'],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return [c for c in csv.DictReader(io.StringIO(out))
            if c['metric'] == 'tokens_per_s_per_gpu' and c['status'] == 'compared']


def scores(latency_us, rows):
    logs = {True: [], False: []}
    errs = {True: [], False: []}
    for c in cases(latency_us):
        if c['row_id'] in rows:
            ratio = float(c['predicted']) / float(c['measured'])
            logs[rows[c['row_id']]].append(abs(math.log(ratio)))
            errs[rows[c['row_id']]].append(abs(ratio - 1.0) * 100.0)
    return logs, errs


def main():
    rows = fitted_rows()
    best = None
    for latency in range(5, 205, 5):
        logs, _ = scores(latency, rows)
        loss = sum(logs[True]) / len(logs[True])
        if best is None or loss < best[1]:
            best = (latency, loss)
    latency = best[0]
    _, errs = scores(latency, rows)
    for name, half in (('fitted (even rows)', True), ('held out (odd rows)', False)):
        e = sorted(errs[half])
        print(f'{name}: n={len(e)} mean |err| {sum(e) / len(e):.1f}% median {e[len(e) // 2]:.1f}%')
    print(f'inter-node step latency: {latency} us')


if __name__ == '__main__':
    main()
