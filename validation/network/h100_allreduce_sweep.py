#!/usr/bin/env python3
# Prints the table of h100_allreduce_sweep.md: the measured 8x H100 all-reduce sweep
# (collectives.csv, nccl-tests out-of-place times) against `rapidllm collective` on the shipped
# H100 config (NCCL protocols + NVLS; analytical and flow) and on RAPID-LLM's own H100 file
# (one alpha-beta ring) for contrast. Errors are on busbw, the metric `rapidllm validate` uses.
# Run from the repository root after a release build.
import csv, json, subprocess

BIN = 'build/release/apps/rapidllm/rapidllm'
SHIPPED = 'configs/hardware/H100_SXM5_80GB.yaml'
REFERENCE = 'tests/data/rapid-llm-reference/hardware/H100_SXM5_80GB.yaml'
rows = [r for r in csv.DictReader(open('validation/data/collectives.csv'))
        if r['gpu'].startswith('H100') and r['num_gpus'] == '8' and r['time_us'] and r['size_bytes']]


def run(config, size, backend):
    cmd = [BIN, 'collective', '--hardware', config, '--op', 'all_reduce', '--bytes', size, '--ranks', '8',
           '--backend', backend, '--format', 'json']
    return json.loads(subprocess.check_output(cmd))


def size_name(s):
    for unit, scale in (('GiB', 2**30), ('MiB', 2**20), ('KiB', 2**10)):
        if s >= scale:
            return f'{s / scale:g} {unit}'
    return f'{s} B'


print('| row | size | measured | shipped (analytical) | pick | flow | RAPID-LLM H100 file |')
print('|---|---:|---:|---:|---|---:|---:|')
errs = {'shipped': [], 'flow': [], 'reference': []}
for r in rows:
    size = int(r['size_bytes'])
    measured_t = float(r['time_us']) * 1e-6
    measured_bus = 1.75 * size / measured_t
    cells = []
    for key, config, backend in (('shipped', SHIPPED, 'analytical'), ('flow', SHIPPED, 'flow'),
                                 ('reference', REFERENCE, 'analytical')):
        j = run(config, r['size_bytes'], backend)
        e = j['busbw_bytes_per_s'] / measured_bus - 1
        if size >= 2**20:
            errs[key].append(abs(e))
        cells.append(f"{j['busbw_bytes_per_s'] / 1e9:.1f} GB/s ({e * 100:+.1f}%)")
        if key == 'shipped':
            phase = j['phases'][0]
            cells.append(f"{phase['algorithm']} {phase['protocol']}")
    print(f"| {r['row_id']} | {size_name(size)} | {measured_t * 1e6:.1f} us, {measured_bus / 1e9:.2f} GB/s | "
          + ' | '.join(cells) + ' |')
summary = {k: f'mean {sum(v) / len(v) * 100:.1f}%, max {max(v) * 100:.1f}%' for k, v in errs.items()}
print(f"| >= 1 MiB | | | {summary['shipped']} | | {summary['flow']} | {summary['reference']} |")
