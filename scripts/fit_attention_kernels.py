#!/usr/bin/env python3
"""Fits the fused-attention kernel facts of the Hopper device files on our own measurements.

`tech_param.core.fused_attention.<family>` says how a kernel family runs on the GPU (kernel
facts, never end-to-end rows): the share of the 16-bit peak its forward and backward matmuls
sustain, the share of its softmax hidden under them, and the fixed time each CTA spends on
what does not stream (its own tile's load, its outputs' write), in tile iterations. They are
fitted here on validation/kernels/measured/h100/attention.csv (PyTorch's SDPA kernels on one
H100 SXM: `flash2` is FlashAttention-2, `cudnn` cuDNN's fused attention, the flash3 family);
the H200 rows (the same die, other memory) are held out.

The formula mirrors AttentionModel::fused (src/compute/attention_model.cpp) for the rows'
shapes (128-wide tiles, no window, no context parallelism):
    iterations = pairs + ctas x fill
    matmul     = factor x iterations x 4 tile^2 d / (peak x util)
    softmax    = softmax_factor x iterations x tile^2 x (1/SFU + 4/FP32)
    time       = waves(ctas) x (max(matmul, softmax) + (1 - overlap) x min(matmul, softmax))
with factor 1 / 2.5 and softmax_factor 1 / 2 for forward / backward. The overlap is one per
family (both passes), utils and fills one per pass; the objective is the squared log error.
tests/unit/compute/device_kernel_facts_test.cpp holds the shipped file to these rows.

    python3 scripts/fit_attention_kernels.py
"""
import csv
import math
import os

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAMILY_OF_BACKEND = {'flash2': 'flash2', 'cudnn': 'flash3'}
TILE = 128


def core_constants(config):
    core = yaml.safe_load(open(os.path.join(ROOT, 'configs/hardware', config)))['tech_param']['core']
    clock = float(str(core['operating_frequency']).split()[0]) * 1e9
    sms = core['num_bundles']
    peak = sms * core['num_mcu_per_bundle'] * core['nominal_flop_rate_per_mcu'] * clock
    per_score = 1.0 / (core['sfu_ops_per_cycle_per_sm'] * clock * sms) + 4.0 / (
        core['fp32_ops_per_cycle_per_sm'] * clock * sms)
    return peak, sms, per_score


PEAK, SMS, SOFTMAX_PER_SCORE = core_constants('H100_SXM5_80GB.yaml')


def predicted_us(row, util, overlap, fill):
    backward = row['pass'] == 'bwd'
    b, h, s, d = (int(row[k]) for k in ('batch', 'q_heads', 'seq', 'head_dim'))
    n = math.ceil(s / TILE)
    fraction = (n + 1) / (2 * n) if row['causal'] == '1' else 1.0
    ctas = b * h * n
    iterations = b * h * n * n * fraction + ctas * fill
    matmul = (2.5 if backward else 1.0) * iterations * 4 * TILE * TILE * d / (PEAK * util)
    softmax = (2.0 if backward else 1.0) * iterations * TILE * TILE * SOFTMAX_PER_SCORE
    waves = math.ceil(ctas / SMS) * SMS / ctas
    return waves * (max(matmul, softmax) + (1 - overlap) * min(matmul, softmax)) * 1e6


def rows(gpu, backend, direction):
    path = os.path.join(ROOT, 'validation/kernels/measured', gpu, 'attention.csv')
    return [r for r in csv.DictReader(open(path)) if r['backend'] == backend and r['pass'] == direction]


def squared_log_error(selected, util, overlap, fill):
    return sum(math.log(predicted_us(r, util, overlap, fill) / float(r['time_us'])) ** 2 for r in selected)


def fit_pass(selected, overlap):
    grid = ((u / 1000, f / 4) for u in range(250, 1001, 5) for f in range(0, 17))
    return min(grid, key=lambda uf: squared_log_error(selected, uf[0], overlap, uf[1]))


def errors(selected, util, overlap, fill):
    e = [(predicted_us(r, util, overlap, fill) - float(r['time_us'])) / float(r['time_us']) * 100 for r in selected]
    return sum(abs(x) for x in e) / len(e), max(e, key=abs)


def main():
    for backend, family in FAMILY_OF_BACKEND.items():
        fwd, bwd = rows('h100', backend, 'fwd'), rows('h100', backend, 'bwd')

        def total(overlap):
            (uf, ff), (ub, fb) = fit_pass(fwd, overlap), fit_pass(bwd, overlap)
            return squared_log_error(fwd, uf, overlap, ff) + squared_log_error(bwd, ub, overlap, fb)

        overlap = min((o / 20 for o in range(21)), key=total)
        print(f'{family} ({backend}): softmax_overlap {overlap:.2f}')
        for direction, selected in (('forward', fwd), ('backward', bwd)):
            util, fill = fit_pass(selected, overlap)
            held_out = rows('h200', backend, selected[0]['pass'])
            fitted_err, held_err = errors(selected, util, overlap, fill), errors(held_out, util, overlap, fill)
            print(f'  {direction}_util {util:.3f}  {direction}_cta_fill {fill:.2f}   '
                  f'H100 (fitted, n={len(selected)}): {fitted_err[0]:.1f} % mean, {fitted_err[1]:+.1f} % worst; '
                  f'H200 (held out, n={len(held_out)}): {held_err[0]:.1f} %, {held_err[1]:+.1f} %')


if __name__ == '__main__':
    main()
