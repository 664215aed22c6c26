#!/usr/bin/env python3
"""Refits the device efficiency constants from the published measurements.

The constants are the lines tagged `# [CAL name]` in configs/hardware/*.yaml. Each is fitted
on the *even-numbered* rows of its calibration sources (listed below), minimising the mean
absolute log error of the predictions; odd-numbered rows and every other source stay out of
the fit and measure how well it generalises. Never per model or per row: one value per
device (and dtype).

    python3 scripts/calibrate.py            # fit and print, change nothing
    python3 scripts/calibrate.py --write    # also write the fitted values into the configs
    python3 scripts/calibrate.py --devices GB200_NVL72   # only some configs

Needs a built rapidllm (build/release or build/dev, or the binary named by $RAPIDLLM).
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# device -> [(name, lower bound, upper bound, rows that determine it)]
# A row filter is (kind, source, metric, predicate over the CSV row).
def bf16(r): return 'fp8' not in r['precision'].lower() and 'float8' not in r['precision'].lower()
def fp8(r): return not bf16(r)
def megatron(r): return 'nemo' in r['framework'].lower() or 'megatron' in r['framework'].lower()
def a100(r): return 'A100' in r['gpu']
def h100(r): return 'H100' in r['gpu']
def small_batch(r): return r.get('batch_size') in ('1', '16')
def gb200(r): return 'GB200' in r['gpu']
def gb300(r): return 'GB300' in r['gpu']
def b200(r): return 'B200' in r['gpu'] and not gb200(r)
def every(r): return True

# The 8xH100 nccl-tests all-reduce sweep, every size: it fixes the NVLink protocol constants.
NCCL_SWEEP = [('collective', 'dgxc-nccl', 'busbw_bytes_per_s', every)]

FITS = {
    'H100_SXM5_80GB': [
        # First: the training rows below run their TP collectives on these.
        ('nvlink_util', 0.4, 1.0, NCCL_SWEEP),
        ('nvls_util', 0.4, 1.0, NCCL_SWEEP),
        ('nvls_latency_us', 1.0, 60.0, NCCL_SWEEP),
        ('ll_latency_us', 0.0, 20.0, NCCL_SWEEP),
        ('ll128_latency_us', 0.0, 30.0, NCCL_SWEEP),
        # Attention-bound: NeMo at 16k-128k tokens per sequence.
        ('softmax_overlap', 0.0, 1.0, [('training', 'nemo-long-sequence', 'tflops_per_gpu', every)]),
        ('core_util', 0.3, 1.0, [('training', 'dgxc', 'step_time_s', lambda r: bf16(r) and megatron(r))]),
        ('fp8_util', 0.2, 1.0, [('training', 'dgxc', 'step_time_s', lambda r: fp8(r) and megatron(r))]),
        # Batch-1 latency of TensorRT-LLM on H100 (NeMo's Llama-2 table): decode-dominated.
        ('launch_us', 0.5, 20.0, [('inference', 'nemo-llama2-latency', 'e2e_latency_s', h100)]),
    ],
    'A100_SXM4_80GB': [
        ('core_util', 0.3, 1.0, [('training', 'llm-foundry', 'tokens_per_s', a100)]),
        # Decode at small batches: memory-bound, and the KV cache fits (larger batches run
        # in waves in TurboMind, which a static-batch model does not describe).
        ('dram_util', 0.3, 1.0, [('inference', 'lmdeploy-a100', 'tpot_s', small_batch)]),
        ('launch_us', 0.5, 20.0, [('inference', 'lmdeploy-a100', 'tpot_s', small_batch)]),
    ],
    # Blackwell: each system on its own rows. core_util is not fitted: no B200 or GB300 dense
    # BF16 row, and GB200's one even BF16 row (T0230) pins it at its bound 1.0 (what sets that
    # step is not GEMM efficiency), so the three keep H100's value.
    'GB200_NVL72': [
        ('fp8_util', 0.2, 1.0, [('training', 'dgxc', 'step_time_s', lambda r: fp8(r) and gb200(r)),
                                ('training', 'megatron-bridge', 'tokens_per_s_per_gpu', lambda r: fp8(r) and gb200(r))]),
    ],
    'B200_HGX_180GB': [
        ('fp8_util', 0.2, 1.0, [('training', 'megatron-bridge', 'tokens_per_s_per_gpu', lambda r: fp8(r) and b200(r))]),
    ],
    'GB300_NVL72': [
        ('fp8_util', 0.2, 1.0, [('training', 'megatron-bridge', 'tokens_per_s_per_gpu', lambda r: fp8(r) and gb300(r))]),
    ],
}

TAG = re.compile(r'^(\s*[\w-]+:\s*)([0-9.eE+-]+)(\s*(?:us)?\s*#\s*\[CAL (\w+)\].*)$')
# A copy of another device's fitted value, tagged `# [H100 name]`: rewritten with it.
COPY_TAG = re.compile(r'^(\s*[\w-]+:\s*)([0-9.eE+-]+)(\s*(?:us)?\s*#\s*\[(\w+) (\w+)\].*)$')
SHORT_NAMES = {'H100_SXM5_80GB': 'H100', 'A100_SXM4_80GB': 'A100'}


def binary():
    if os.environ.get('RAPIDLLM'):  # a pinned copy, so the tree can be rebuilt while this runs
        return os.environ['RAPIDLLM']
    for b in ('build/release/apps/rapidllm/rapidllm', 'build/dev/apps/rapidllm/rapidllm'):
        if os.path.exists(os.path.join(ROOT, b)):
            return os.path.join(ROOT, b)
    sys.exit('calibrate.py: build rapidllm first (cmake --preset release && cmake --build --preset release)')


def read_values(path):
    values = {}
    for line in open(path):
        m = TAG.match(line.rstrip('\n'))
        if m:
            values[m.group(4)] = float(m.group(2))
    return values


def write_values(path, values):
    out = []
    for line in open(path):
        m = TAG.match(line.rstrip('\n'))
        if m and m.group(4) in values:
            line = f'{m.group(1)}{values[m.group(4)]:.4g}{m.group(3)}\n'
        out.append(line)
    open(path, 'w').write(''.join(out))


def write_copies(device, values):
    """Rewrites every other config's `# [SHORT name]` copies of `device`'s fitted values."""
    short = SHORT_NAMES.get(device)
    if short is None:
        return
    folder = os.path.join(ROOT, 'configs/hardware')
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        out, changed = [], False
        for line in open(path):
            m = COPY_TAG.match(line.rstrip('\n'))
            if m and m.group(4) == short and m.group(5) in values:
                line = f'{m.group(1)}{values[m.group(5)]:.4g}{m.group(3)}\n'
                changed = True
            out.append(line)
        if changed:
            open(path, 'w').write(''.join(out))


def rows_by_id():
    rows = {}
    for name in ('training', 'inference', 'collectives'):
        for r in csv.DictReader(open(os.path.join(ROOT, 'validation/data', f'{name}.csv'))):
            rows[r['row_id']] = r
    return rows


def even(row_id):
    return int(re.sub(r'\D', '', row_id)) % 2 == 0


def run_validate(config_dir):
    out = subprocess.run([binary(), 'validate', '--configs', config_dir, '--format', 'json'],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)['cases']


def selected(cases, rows, filters, parity):
    picked = []
    for c in cases:
        if c['status'] != 'compared' or parity(c['row_id']) is False:
            continue
        r = rows.get(c['row_id'])
        if r is None:
            continue
        for kind, source, metric, pred in filters:
            if c['kind'] == kind and c['source'] == source and c['metric'] == metric and pred(r):
                picked.append(c)
                break
    return picked


def loss(cases):
    if not cases:
        return float('inf')
    return sum(abs(math.log(c['predicted'] / c['measured'])) for c in cases) / len(cases)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--write', action='store_true', help='write the fitted values into configs/hardware')
    ap.add_argument('--devices', nargs='+', choices=sorted(FITS), default=sorted(FITS),
                    help='fit only these configs (default: all)')
    args = ap.parse_args()
    rows = rows_by_id()
    work = tempfile.mkdtemp(prefix='rapidllm-calibrate-')
    try:
        shutil.copytree(os.path.join(ROOT, 'configs'), os.path.join(work, 'configs'))
        configs = os.path.join(work, 'configs')
        fitted = {}
        for device, params in ((d, FITS[d]) for d in args.devices):
            path = os.path.join(configs, 'hardware', device + '.yaml')
            values = read_values(path)
            all_filters = [f for p in params for f in p[3]]

            def objective(name, value, filters):
                trial = dict(values, **{name: value})
                write_values(path, trial)
                return loss(selected(run_validate(configs), rows, filters, even))

            for _ in range(2):  # two rounds of coordinate descent
                for name, lo, hi, filters in params:
                    a, b = lo, hi
                    g = (math.sqrt(5) - 1) / 2
                    for _ in range(14):
                        x1, x2 = b - g * (b - a), a + g * (b - a)
                        if objective(name, x1, filters) <= objective(name, x2, filters):
                            b = x2
                        else:
                            a = x1
                    values[name] = round((a + b) / 2, 3)
            write_values(path, values)
            fitted[device] = {k: values[k] for k, *_ in params}
            cases = run_validate(configs)
            for parity_name, parity in (('calibration (even rows)', even), ('held out (odd rows)', lambda i: not even(i))):
                picked = selected(cases, rows, all_filters, parity)
                errs = [abs(c['predicted'] / c['measured'] - 1) * 100 for c in picked]
                if errs:
                    print(f'{device}: {parity_name}: n={len(errs)} mean |err| {sum(errs) / len(errs):.1f}% '
                          f'max {max(errs):.1f}%')
            print(f'{device}: {fitted[device]}')
        if args.write:
            for device, values in fitted.items():
                write_values(os.path.join(ROOT, 'configs/hardware', device + '.yaml'), values)
                write_copies(device, values)
            print('written to configs/hardware/')
    finally:
        shutil.rmtree(work)


if __name__ == '__main__':
    main()
