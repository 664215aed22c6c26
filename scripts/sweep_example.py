#!/usr/bin/env python3
"""The README's sweep example (docs/sweep.md): the best training plan for Llama-3.1-70B on
512 H100 (configs/hardware/H100_SXM5_80GB.yaml), global batch 1024 sequences of 8192 tokens,
over the default plan axes; its Pareto front of throughput per GPU against memory headroom;
and the best plan's step time as the HBM bandwidth goes from 1.5 to 4.5 TB/s.

    python3 scripts/sweep_example.py

Writes docs/sweep/llama70b_512_h100.csv (every point of the plan sweep),
docs/sweep/hbm_bandwidth.csv and docs/sweep/llama70b_512_h100.png, and prints the tables.
Uses build/release/apps/rapidllm/rapidllm, or the binary named by $RAPIDLLM. Needs Debian's
python3-matplotlib (re-runs itself under /usr/bin/python3 when the first python3 on PATH
lacks it).
"""
import csv
import io
import os
import subprocess
import sys

try:
    import matplotlib
except ImportError:
    if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
        os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)
    sys.exit('sweep_example.py: needs python3-matplotlib (apt install python3-matplotlib)')
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get('RAPIDLLM', os.path.join(ROOT, 'build/release/apps/rapidllm/rapidllm'))
OUT = os.path.join(ROOT, 'docs/sweep')
BASE = ['sweep', '--hardware', 'configs/hardware/H100_SXM5_80GB.yaml', '--model', 'configs/models/llama3.1-70b.yaml',
        '--gpus', '512', '--set', 'model_param.global_batch_size=1024', '--jobs', '2']


def run(args):
    return subprocess.run([CLI] + BASE + args, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def main():
    os.makedirs(OUT, exist_ok=True)
    print(run(['--top', '5']))
    points = list(csv.DictReader(io.StringIO(run(['--format', 'csv']))))
    with open(os.path.join(OUT, 'llama70b_512_h100.csv'), 'w') as f:
        f.write(run(['--format', 'csv']))
    ok = [p for p in points if p['status'] == 'ok']
    best = max(ok, key=lambda p: (float(p['tokens_per_s_per_gpu']), -int(p['index'])))
    grid = [f"--grid={axis}={best[key]}" for axis, key in
            [('tp', 'tp'), ('sp', 'sp'), ('cp', 'cp'), ('pp', 'pp'), ('schedule', 'schedule'), ('vpp', 'vpp'),
             ('mbs', 'micro_batch_size'), ('zero', 'zero_stage'), ('recompute', 'recompute')]]
    hbm_text = run(grid + ['--vary', 'tech_param.DRAM.bandwidth=1.5e12..4.5e12:7', '--format', 'csv'])
    with open(os.path.join(OUT, 'hbm_bandwidth.csv'), 'w') as f:
        f.write(hbm_text)
    hbm = [p for p in csv.DictReader(io.StringIO(hbm_text)) if p['status'] in ('ok', 'does_not_fit')]
    print('best plan: tp {tp} sp {sp} pp {pp} dp {dp} {schedule} vpp {vpp} mbs {micro_batch_size} '
          'zero {zero_stage} recompute {recompute}'.format(**best))
    print('HBM bandwidth (TB/s)  step (s)')
    for p in hbm:
        print(f"{float(p['tech_param.DRAM.bandwidth']) / 1e12:20.2f}  {float(p['time_s']):.3f}")

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    gib = 1024 ** 3
    headroom = lambda p: (float(p['memory_capacity_bytes']) - float(p['peak_memory_bytes'])) / gib
    left.scatter([headroom(p) for p in ok], [float(p['tokens_per_s_per_gpu']) for p in ok], s=8, c='0.7',
                 label='plans that fit')
    front, best_y = [], -1.0
    for p in sorted(ok, key=lambda p: (-float(p['tokens_per_s_per_gpu']), -headroom(p))):
        if headroom(p) > best_y:
            front.append(p)
            best_y = headroom(p)
    left.plot([headroom(p) for p in front], [float(p['tokens_per_s_per_gpu']) for p in front], 'o-', c='tab:blue',
              label='Pareto front')
    left.set_xlabel('memory headroom per GPU (GiB)')
    left.set_ylabel('training tokens/s per GPU')
    left.set_title('Llama-3.1-70B on 512 H100: plans')
    left.legend()
    right.plot([float(p['tech_param.DRAM.bandwidth']) / 1e12 for p in hbm], [float(p['time_s']) for p in hbm], 'o-',
               c='tab:red')
    right.set_xlabel('HBM bandwidth (TB/s)')
    right.set_ylabel('step time (s)')
    right.set_title('best plan vs HBM bandwidth')
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, 'llama70b_512_h100.png'), dpi=110)


if __name__ == '__main__':
    main()
