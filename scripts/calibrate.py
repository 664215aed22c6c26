#!/usr/bin/env python3
"""Refits the efficiency constants from the published measurements.

Two kinds: device constants, the lines tagged `# [CAL name]` in configs/hardware/*.yaml
(HBM and NVLink efficiencies), and software-stack constants, the lines tagged
`// [CAL stack.NAME.KEY]` in src/config/software_stacks.cpp (what share of the kernels'
speed a framework sustains, its launch gap). Each is fitted on the *even-numbered* rows of
its calibration sources (listed below), minimising the mean absolute log error of the
predictions; odd-numbered rows and every other source stay out of the fit and measure how
well it generalises. Never per model or per row: one value per device or per stack. The
devices' GEMM efficiencies are kernel facts (scripts/fit_gemm_util.py).

    python3 scripts/calibrate.py                 # fit the devices and print, change nothing
    python3 scripts/calibrate.py --write         # also write the fitted values into the configs
    python3 scripts/calibrate.py --devices A100_SXM4_80GB   # only some configs
    python3 scripts/calibrate.py --stacks [NAME ...]        # the software-stack profiles

A stack fit may include a device-file constant that only its rows exercise (DEVICE:tag, e.g.
the Triton attention kernel llm-foundry's rows run): it is fitted with the stack's constants
and written into that device file.

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
def single_node(r): return float(r.get('nodes') or 0) == 1.0
def grouped_query(r): return int(r['kv_heads']) < int(r['heads'])


def latest_year(text):
    years = [int(y) for y in re.findall(r'(?<![0-9])([0-9]{4})(?![0-9])', text) if 2015 <= int(y) <= 2035]
    return max(years, default=0)


def legacy_megatron_lm(text):
    """Megatron-LM before Megatron-Core (src/validate/row_stack.cpp)."""
    if 'megatron-lm' not in text or any(n in text for n in ('core', 'nemo', 'bridge')):
        return False
    return 'megatron-lm v' in text or 0 < latest_year(text) <= 2022


def early_tensorrt_llm(text):
    m = re.search(r'(?:^|[^0-9.])v?0\.([0-9]+)', text)
    return int(m.group(1)) <= 6 if m else latest_year(text) == 2023


def stack_of(r):
    """The software-stack profile validate gives a row (src/validate/row_stack.cpp)."""
    text = (r.get('framework') or r.get('engine') or '').lower()
    if 'tensorrt-llm' in text or 'nvidia nim' in text:
        return 'tensorrt-llm-0.5' if early_tensorrt_llm(text) else 'tensorrt-llm'
    if 'lmdeploy' in text:
        return 'lmdeploy'
    if 'deepspeed' in text and 'megatron' in text:
        return 'megatron-deepspeed'
    if legacy_megatron_lm(text):
        return 'megatron-lm-2020'
    for needles, stack in ((('nemo 24', 'megatron-core r0.'), 'nemo-24'), (('composer', 'llm-foundry'), 'composer-fsdp'),
                           (('torchtitan',), 'torchtitan'), (('maxtext',), 'maxtext'), (('paxml',), 'paxml'),
                           (('nanotron pre-pp-fix',), 'nanotron-pre-pp-fix'), (('nanotron',), 'nanotron'),
                           (('nemo', 'megatron'), 'megatron-core')):
        if any(n in text for n in needles):
            return stack
    return 'auto'


def on(stack, *more):
    return lambda r: stack_of(r) == stack and all(p(r) for p in more)


def dense(r): return not r.get('moe_experts')


NANOTRON_SIZES = ('1.34G', '3.57G', '8.86G', '80G', '469G')
NANOTRON_ONE_NODE = [('training', f'nanotron-{size}', 'tokens_per_s_per_gpu', single_node)
                     for size in NANOTRON_SIZES]


def pipelined_tp_in_node(r): return int(r['pp']) > 1 and int(r['tp']) <= 8


# The pre-fix runs that cross pipeline stages, their TP groups inside a node (a TP group
# across nodes has its own error, the network's).
NANOTRON_PRE_FIX_PIPELINES = [('training', f'nanotron-{size}', 'tokens_per_s_per_gpu',
                               on('nanotron-pre-pp-fix', pipelined_tp_in_node)) for size in NANOTRON_SIZES]

def pipeline_across_nodes(r):
    return int(r['pp']) > 1 and 1 < int(r['tp']) <= 8 and float(r.get('nodes') or 0) > 1


# The runs after the fix whose pipeline spans nodes, their TP groups inside a node (a TP
# group across nodes adds the network's error): what the pipelined TP wait is fitted on.
NANOTRON_PIPELINES_ACROSS_NODES = [('training', f'nanotron-{size}', 'tokens_per_s_per_gpu',
                                    on('nanotron', pipeline_across_nodes)) for size in NANOTRON_SIZES]

# llm-foundry's MPT tables (Composer on FSDP): the composer-fsdp profile's rows, and the only
# rows of flash-attn's Triton kernel (MPT's attn_impl: triton), whose share on each GPU their
# sequence sweeps (512 to 65k tokens) show.
LLM_FOUNDRY = [('training', 'llm-foundry', 'tokens_per_s', on('composer-fsdp'))]

# The 8xH100 nccl-tests all-reduce sweep, every size: it fixes the NVLink protocol constants.
NCCL_SWEEP = [('collective', 'dgxc-nccl', 'busbw_bytes_per_s', every)]
# NVLink 5 on one B200 node (stas00/ml-engineering): its even rows are the ring all-reduces
# at 8 GiB over 4-8 GPUs (NVLS off), which fix the ring's share of the bandwidth. The NVLS
# and size-sweep rows are all odd (held out): the protocol constants stay H100's.
B200_NCCL = [('collective', 'stas00/ml-engineering', 'busbw_bytes_per_s', b200)]
# One DGX A100's all-reduce sweep (Hetu-Galvatron's nccl-tests log, 1 MiB to 1 GiB): the
# ring's share of the NVLink 3 bandwidth, from its sizes of 64 MiB and up, where the ring's
# bandwidth is the time. Below, one process launched all 8 GPUs' kernels (-g 8), which
# doubles the small-message times of a process per GPU; the LL latencies stay H100's.
def bandwidth_bound(r): return int(r['size_bytes']) >= 64 * 2**20


A100_NCCL = [('collective', 'AFDWang/Hetu-Galvatron', 'busbw_bytes_per_s', bandwidth_bound)]

FITS = {
    'H100_SXM5_80GB': [
        # The training rows below run their TP collectives on these.
        ('nvlink_util', 0.4, 1.0, NCCL_SWEEP),
        ('nvls_util', 0.4, 1.0, NCCL_SWEEP),
        ('nvls_latency_us', 1.0, 60.0, NCCL_SWEEP),
        ('ll_latency_us', 0.0, 20.0, NCCL_SWEEP),
        ('ll128_latency_us', 0.0, 30.0, NCCL_SWEEP),
    ],
    'B200_HGX_180GB': [
        ('nvlink_util', 0.4, 1.0, B200_NCCL),
    ],
    'A100_SXM4_80GB': [
        # The TP collectives of the A100 rows below run on it: fitted first.
        ('nvlink_util', 0.4, 1.0, A100_NCCL),
        # Decode at small batches: memory-bound, and the KV cache fits (larger batches run
        # in waves in TurboMind, which a static-batch model does not describe).
        ('dram_util', 0.3, 1.0, [('inference', 'lmdeploy-a100', 'tpot_s', small_batch)]),
    ],
}
# The GEMM efficiencies of the devices (gemm_util, fp8_gemm_util) are kernel facts:
# scripts/fit_gemm_util.py fits them on validation/kernels/gemm.csv, never here.

# Software-stack profiles (src/config/software_stacks.cpp, tags `[CAL stack.NAME.KEY]`):
# each fitted on the even rows of its own stack only, over the devices' kernel-level GEMM
# efficiency. Megatron-Core (2025) is fitted on its H100 BF16 dense rows, where the kernel
# facts are firmest; its FP8 and Blackwell rows are predicted, not fitted.
STACK_FITS = {
    'megatron-core': [
        ('compute_efficiency', 0.3, 1.0, [
            ('training', 'dgxc', 'step_time_s', on('megatron-core', bf16, h100, dense)),
            ('training', 'megatron-bridge', 'tokens_per_s_per_gpu', on('megatron-core', bf16, h100, dense))]),
        # The host loop over the local experts: only the mixture-of-experts rows run it.
        ('expert_call_overhead', 0.0, 200.0, [
            ('training_moe', 'dgxc', 'step_time_s', on('megatron-core')),
            ('training_moe', 'megatron-bridge', 'tokens_per_s_per_gpu', on('megatron-core'))]),
    ],
    'nemo-24': [
        ('compute_efficiency', 0.3, 1.0, [
            ('training', 'nemo', 'tokens_per_s_per_gpu', on('nemo-24', h100, dense)),
            ('training', 'nemo-long-sequence', 'tflops_per_gpu', on('nemo-24', h100, dense)),
            ('training', 'megatron-core', 'tflops_per_gpu', on('nemo-24', h100, dense))]),
    ],
    'megatron-lm-2020': [
        ('compute_efficiency', 0.3, 1.0, [('training', 'megatron-2020', 'step_time_s', on('megatron-lm-2020'))]),
    ],
    'composer-fsdp': [
        ('compute_efficiency', 0.3, 1.0, LLM_FOUNDRY),
        # Fixed host time per micro-batch: what the plans of many small micro-batches show
        # beyond their kernels.
        ('micro_batch_overhead', 0.0, 1.0, LLM_FOUNDRY),
        # flash-attn's Triton kernel, which only these rows run (a device-file fact).
        ('A100_SXM4_80GB:triton_attention_util', 0.1, 1.0,
         [('training', 'llm-foundry', 'tokens_per_s', on('composer-fsdp', a100))]),
        ('H100_SXM5_80GB:triton_attention_util', 0.1, 1.0,
         [('training', 'llm-foundry', 'tokens_per_s', on('composer-fsdp', h100))]),
    ],
    'torchtitan': [
        ('compute_efficiency', 0.3, 1.0, [('training', 'torchtitan', 'tokens_per_s_per_gpu', on('torchtitan'))]),
    ],
    'maxtext': [
        ('compute_efficiency', 0.3, 1.0, [('training', 'dgxc', 'step_time_s', on('maxtext'))]),
    ],
    'paxml': [
        ('compute_efficiency', 0.3, 1.0, [('training', 'dgxc', 'step_time_s', on('paxml'))]),
    ],
    'nanotron': [
        # One-node runs: their all-reduces are the row's own NVLink measurement, so what is
        # left is the stack (many rows are host-bound: micro-batch 1, 64-256 micro-batches).
        # Multi-node rows are predicted, not fitted: their error is the network's.
        ('kernel_launch_overhead', 5.0, 200.0, NANOTRON_ONE_NODE),
        ('compute_efficiency', 0.3, 1.0, NANOTRON_ONE_NODE),
        # With the pipeline across nodes each TP collective holds its layer (the kernel
        # constants above do not move these rows' floor).
        ('pipelined_tp_wait', 0.0, 5000.0, NANOTRON_PIPELINES_ACROSS_NODES),
        ('pipelined_tp_wait_per_rank', 0.0, 2000.0, NANOTRON_PIPELINES_ACROSS_NODES),
    ],
    'nanotron-pre-pp-fix': [
        # Its kernels are nanotron's (fitted above); only the pipeline engine's stall is its own.
        ('pipeline_transfer_stall', 0.0, 1.0, NANOTRON_PRE_FIX_PIPELINES),
    ],
    'tensorrt-llm': [
        # Batch-1 latency (NeMo's Llama-2 table): decode-dominated, it fixes the host gap.
        ('kernel_launch_overhead', 0.5, 20.0, [('inference', 'nemo-llama2-latency', 'e2e_latency_s', h100)]),
        ('compute_efficiency', 0.3, 1.0, [('inference', 'trtllm', 'output_tokens_per_s', every),
                                          ('inference', 'nim-a100', 'ttft_s', every)]),
    ],
    'lmdeploy': [
        ('kernel_launch_overhead', 0.5, 20.0, [('inference', 'lmdeploy-a100', 'tpot_s', small_batch)]),
        # Only a grouped-query model's decode can repeat its KV reads (llama2-70b's TPOT).
        ('decode_kv_passes', 1.0, 8.0, [('inference', 'lmdeploy-a100', 'tpot_s', grouped_query)]),
        ('compute_efficiency', 0.3, 1.0, [('inference', 'lmdeploy-a100', 'ttft_s', every)]),
    ],
}
STACKS_SOURCE = os.path.join(ROOT, 'src/config/software_stacks.cpp')
STACK_TAG = re.compile(r'^(\s*(?:\.\w+ = )?)([0-9.eE+-]+)((?: \* kUs)?\}?,\s*//\s*\[CAL stack\.([\w-]+)\.(\w+)\].*)$')
# What validate --set says for a trial value of a profile constant.
STACK_KEYS = {'compute_efficiency': 'sw_param.compute_efficiency={}',
              'kernel_launch_overhead': 'sw_param.kernel_launch_overhead={} us',
              'pipeline_transfer_stall': 'sw_param.pipeline_transfer_stall={} s',
              'decode_kv_passes': 'sw_param.decode_kv_passes={}',
              'pipelined_tp_wait': 'sw_param.pipelined_tp_wait={} us',
              'pipelined_tp_wait_per_rank': 'sw_param.pipelined_tp_wait_per_rank={} us',
              'micro_batch_overhead': 'sw_param.micro_batch_overhead={} s',
              'expert_call_overhead': 'sw_param.expert_call_overhead={} us'}

TAG = re.compile(r'^(\s*[\w-]+:\s*)([0-9.eE+-]+)(\s*(?:us)?\s*#\s*\[CAL (\w+)\].*)$')
# A copy of another device's fitted value, tagged `# [H100 name]`: rewritten with it.
COPY_TAG = re.compile(r'^(\s*[\w-]+:\s*)([0-9.eE+-]+)(\s*(?:us)?\s*#\s*\[(\w+) (\w+)\].*)$')
SHORT_NAMES = {'H100_SXM5_80GB': 'H100', 'A100_SXM4_80GB': 'A100', 'B200_HGX_180GB': 'B200'}


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
    # nanotron's cases are NT<0-based data row> (src/validate/nanotron_cases.cpp).
    for i, r in enumerate(csv.DictReader(open(os.path.join(ROOT, 'validation/data/nanotron_h100.csv')))):
        # The runs whose pipeline transfers blocked: before the benchmark's pipeline fix, or on
        # a node whose NVLink all-reduce measured below 100 GB/s (ran_blocking_pipeline,
        # src/validate/nanotron_rows.hpp): nanotron-pre-pp-fix.
        intra = float(r['AR Intra-node (GB/s)'] or 0)
        blocking = r['after_pp_fix'] == 'False' or 0 < intra < 100
        rows[f'NT{i:04d}'] = dict(r, framework='nanotron pre-pp-fix' if blocking else 'nanotron')
    return rows


def even(row_id):
    return int(re.sub(r'\D', '', row_id)) % 2 == 0


def run_validate(config_dir, sets=(), source=None):
    args = [binary(), 'validate', '--configs', config_dir, '--format', 'json']
    if source:  # only that source's rows: a fit on one source need not predict the others
        args += ['--source', source]
    for s in sets:
        args += ['--set', s]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
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


def golden_section(objective, lo, hi):
    a, b = lo, hi
    g = (math.sqrt(5) - 1) / 2
    for _ in range(14):
        x1, x2 = b - g * (b - a), a + g * (b - a)
        if objective(x1) <= objective(x2):
            b = x2
        else:
            a = x1
    return round((a + b) / 2, 3)


def run_sources(config_dir, sets, params):
    """validate's cases of the sources params' filters name, one --source run each (a fit
    predicts only the rows it reads); a case two names match is kept once."""
    sources = sorted({source for *_, filters in params for _, source, _, _ in filters})
    cases = {}
    for source in sources:
        for c in run_validate(config_dir, sets, source):
            cases.setdefault((c['row_id'], c['metric']), c)
    return list(cases.values())


def fit(params, values, evaluate, rows, rounds=2):
    """Rounds of coordinate descent over params; evaluate(values) -> validate's cases."""
    for _ in range(rounds):
        for name, lo, hi, filters in params:
            def objective(x):
                return loss(selected(evaluate(dict(values, **{name: x})), rows, filters, even))
            values[name] = golden_section(objective, lo, hi)
    return values


def report(label, cases, rows, params):
    all_filters = [f for p in params for f in p[3]]
    for parity_name, parity in (('calibration (even rows)', even), ('held out (odd rows)', lambda i: not even(i))):
        errs = [abs(c['predicted'] / c['measured'] - 1) * 100 for c in selected(cases, rows, all_filters, parity)]
        if errs:
            print(f'{label}: {parity_name}: n={len(errs)} mean |err| {sum(errs) / len(errs):.1f}% max {max(errs):.1f}%')


def read_stack_values():
    values = {}
    for line in open(STACKS_SOURCE):
        m = STACK_TAG.match(line.rstrip('\n'))
        if m:
            values.setdefault(m.group(4), {})[m.group(5)] = float(m.group(2))
    return values


def write_stack_values(fitted):
    out = []
    for line in open(STACKS_SOURCE):
        m = STACK_TAG.match(line.rstrip('\n'))
        if m and m.group(5) in fitted.get(m.group(4), {}):
            line = f'{m.group(1)}{fitted[m.group(4)][m.group(5)]:.4g}{m.group(3)}\n'
        out.append(line)
    open(STACKS_SOURCE, 'w').write(''.join(out))


def device_constant(name):
    """(device, tag) of a stack fit's DEVICE:tag parameter, else None."""
    return tuple(name.split(':')) if ':' in name else None


def fit_stacks(names, rows, write):
    """Each profile's constants, tried through validate --set (the binary keeps the built-in
    values of every other profile); --write puts them into the source, to be rebuilt."""
    work = tempfile.mkdtemp(prefix='rapidllm-calibrate-')
    configs = os.path.join(work, 'configs')
    shutil.copytree(os.path.join(ROOT, 'configs'), configs)
    current = read_stack_values()
    fitted, fitted_devices = {}, {}
    try:
        for stack in names:
            params = STACK_FITS[stack]
            start = dict(current.get(stack, {}))
            devices = {name: device_constant(name) for name, *_ in params if device_constant(name)}
            for name, (device, tag) in devices.items():  # a kernel fact only this stack's rows show
                start[name] = read_values(os.path.join(configs, 'hardware', device + '.yaml'))[tag]

            def evaluate(values):
                for name, (device, tag) in devices.items():
                    write_values(os.path.join(configs, 'hardware', device + '.yaml'), {tag: values[name]})
                sets = [STACK_KEYS[k].format(v) for k, v in values.items() if k not in devices]
                return run_sources(configs, sets, params)

            # Device shares fitted beside the stack's own constants trade against them along
            # a ridge: more rounds.
            values = fit(params, start, evaluate, rows, 6 if devices else 2)
            fitted[stack] = {k: values[k] for k, *_ in params if k not in devices}
            for name, (device, tag) in devices.items():
                fitted_devices.setdefault(device, {})[tag] = values[name]
            report(stack, evaluate(values), rows, params)
            print(f'{stack}: {dict((k, values[k]) for k, *_ in params)}')
    finally:
        shutil.rmtree(work)
    if write:
        write_stack_values(fitted)
        for device, values in fitted_devices.items():
            write_values(os.path.join(ROOT, 'configs/hardware', device + '.yaml'), values)
        print(f'written to {os.path.relpath(STACKS_SOURCE, ROOT)} and configs/hardware: rebuild before the next fit '
              'or validate')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--write', action='store_true', help='write the fitted values into configs/hardware')
    ap.add_argument('--devices', nargs='*', choices=sorted(FITS), default=None,
                    help='fit only these configs (default: all, unless --stacks is given)')
    ap.add_argument('--stacks', nargs='*', choices=sorted(STACK_FITS), default=None,
                    help='fit these software-stack profiles (no names: all)')
    args = ap.parse_args()
    rows = rows_by_id()
    if args.stacks is not None:
        fit_stacks(args.stacks or sorted(STACK_FITS), rows, args.write)
        if args.devices is None:
            return
    devices = args.devices or sorted(FITS)
    work = tempfile.mkdtemp(prefix='rapidllm-calibrate-')
    try:
        shutil.copytree(os.path.join(ROOT, 'configs'), os.path.join(work, 'configs'))
        configs = os.path.join(work, 'configs')
        fitted = {}
        for device in devices:
            params = FITS[device]
            path = os.path.join(configs, 'hardware', device + '.yaml')

            def evaluate(values):
                write_values(path, values)
                return run_validate(configs)

            values = fit(params, read_values(path), evaluate, rows)
            write_values(path, values)
            fitted[device] = {k: values[k] for k, *_ in params}
            report(device, run_validate(configs), rows, params)
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
