#!/usr/bin/env python3
"""Fits each device's kernel-level GEMM efficiency on published GEMM measurements.

`tech_param.core.util` (tag `gemm_util`) and `tech_param.core.dtype_util.fp8` (tag
`fp8_gemm_util`) say what share of the tensor-core peak the best vendor GEMM kernels sustain
on large shapes: an H100 at its power cap runs below the clock the datasheet peak assumes.
They are kernel facts, fitted here on validation/kernels/gemm.csv (cuBLAS through
torch.matmul, each row's source named there), never on end-to-end training or inference
rows: what a framework loses beyond the kernel is its software-stack profile's
compute_efficiency (docs/software-stacks.md).

For every row the tile model (`rapidllm gemm`) is solved for the util that reproduces the
measured share of the peak; a device's value is the geometric mean over its rows. A row is
compared as a share of its own datasheet peak (`theory_tflops`), so a measurement on a
sibling part with another power envelope (B300 HGX for the GB300 NVL72 die) transfers as
an efficiency, not as TFLOP/s.

    python3 scripts/fit_gemm_util.py           # fit and print
    python3 scripts/fit_gemm_util.py --write   # also write the values into configs/hardware
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrate  # noqa: E402  (shares the binary lookup and the tag writer)

ROOT = calibrate.ROOT
# Which shipped config a row's GPU is. GH200 (900 W) has none: its power envelope is not
# an H100's or an H200's.
CONFIG_FOR_GPU = {
    'A100-SXM4-80GB': 'A100_SXM4_80GB',
    'H100-SXM5-80GB': 'H100_SXM5_80GB',
    'H200-SXM-141GB': 'H200_SXM_141GB',
    'B200-SXM-180GB': 'B200_HGX_180GB',
    'GB200': 'GB200_NVL72',
    'B300-SXM': 'GB300_NVL72',
    'MI300X-OAM-192GB': 'MI300X_OAM_192GB',
}
KEY_FOR_DTYPE = {'bf16': ('tech_param.core.util', 'gemm_util'),
                 'fp8': ('tech_param.core.dtype_util.fp8', 'fp8_gemm_util')}


def kernel_share(config, row, util):
    """Share of the config's peak the tile model gives the row's GEMM at this util."""
    key, _ = KEY_FOR_DTYPE[row['dtype']]
    out = subprocess.run([calibrate.binary(), 'gemm', '--hardware', config, '-m', row['m'], '-n', row['n'],
                          '-k', row['k'], '--dtype', row['dtype'], '--set', f'{key}={util}', '--format', 'json'],
                         check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    compute = d['passes'][0]['compute']
    # Back-to-back launches of one kernel hide the launch gap: time the kernel body.
    body_s = compute['time_s'] - compute['launch_overhead_s']
    return d['flops'] / body_s / d['peak_flops_per_s_per_gpu']


def solve_util(config, row):
    target = float(row['tflops']) / float(row['theory_tflops'])
    lo, hi = 0.2, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if kernel_share(config, row, mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2, target


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--write', action='store_true', help='write the fitted values into configs/hardware')
    args = ap.parse_args()
    rows = list(csv.DictReader(open(os.path.join(ROOT, 'validation/kernels/gemm.csv'))))
    per_device = {}
    for r in rows:
        device = CONFIG_FOR_GPU.get(r['gpu'])
        if device is None:
            print(f"{r['row_id']} {r['gpu']}: no shipped config, not fitted")
            continue
        config = os.path.join(ROOT, 'configs/hardware', device + '.yaml')
        util, target = solve_util(config, r)
        per_device.setdefault((device, r['dtype']), []).append((r, util, target))
    fitted = {}
    for (device, dtype), items in sorted(per_device.items()):
        util = math.exp(sum(math.log(u) for _, u, _ in items) / len(items))
        fitted.setdefault(device, {})[KEY_FOR_DTYPE[dtype][1]] = round(util, 3)
        config = os.path.join(ROOT, 'configs/hardware', device + '.yaml')
        for r, u, target in items:
            share = kernel_share(config, r, round(util, 3))
            print(f"{r['row_id']} {device} {dtype} {r['m']}x{r['n']}x{r['k']}: measured {target:.3f} of peak, "
                  f"predicted {share:.3f} ({(share / target - 1) * 100:+.1f}%); this row alone: util {u:.3f}")
        print(f'{device} {dtype}: {KEY_FOR_DTYPE[dtype][1]} = {util:.3f}')
    if args.write:
        for device, values in fitted.items():
            calibrate.write_values(os.path.join(ROOT, 'configs/hardware', device + '.yaml'), values)
            calibrate.write_copies(device, values)
        print('written to configs/hardware/')


if __name__ == '__main__':
    main()
