#!/usr/bin/env python3
"""Case study (docs/case-study.md): which 64-GPU plan for Llama-3.1-70B is more sensitive to a
degraded NVLink port, a degraded InfiniBand uplink, or throttled HBM?

    python3 scripts/case_study.py

Two plans with the same global batch (256 sequences of 8192 tokens), both with full
activation recomputation so that they fit in 80 GiB, on 64 H100 (8 DGX nodes,
configs/hardware/H100_SXM5_80GB.yaml), each step simulated event by event
(execution_backend.astra.mode = full_astrasim_hierarchical):

  TP-heavy   TP 8 + SP, PP 2, DP 4,  ZeRO-1, 1F1B, 8 micro-batches of 8 sequences
  DP-heavy   TP 2 + SP, PP 1, DP 32, ZeRO-3,       8 micro-batches of 1 sequence

Sweeps, one at a time against the healthy cluster:
  nvlink  GPU 0's NVLink cable (node 0 <-> NVSwitch node 64) at w = 1.0, 0.75, 0.5, 0.25
  ib      GPU 0's InfiniBand uplink (node 0 <-> rail switch node 72) at the same w
  hbm     tech_param.DRAM.util scaled to 100 %, 90 %, 75 %, 60 %, 50 % of the file's value

Writes docs/case-study/fault_sensitivity.csv and docs/case-study/fault_sensitivity.png and
prints the table. Uses build/release/apps/rapidllm/rapidllm (built if missing), or the
binary named by $RAPIDLLM. Needs Debian's python3-matplotlib (re-runs itself under
/usr/bin/python3 when the first python3 on PATH lacks it).
"""
import csv
import json
import os
import re
import subprocess
import sys

try:
    import matplotlib
except ImportError:
    if os.path.exists('/usr/bin/python3') and os.path.realpath(sys.executable) != os.path.realpath('/usr/bin/python3'):
        os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)
    sys.exit('case_study.py: needs matplotlib (apt-get install python3-matplotlib)')
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARDWARE = 'configs/hardware/H100_SXM5_80GB.yaml'
MODEL = 'configs/models/llama3.1-70b.yaml'
OUT_DIR = os.path.join(ROOT, 'docs', 'case-study')
NUM_GPUS = 64
NVLINK_SWITCH_OF_GPU0 = NUM_GPUS            # NVSwitch of node 0: node N + 0
IB_RAIL_SWITCH_OF_GPU0 = NUM_GPUS + NUM_GPUS // 8  # rail switch 0: node N + N/8 + 0
WEIGHTS = [1.0, 0.75, 0.5, 0.25]
HBM_SCALES = [1.0, 0.9, 0.75, 0.6, 0.5]

COMMON = [
    'execution_backend.model=astra',
    'execution_backend.astra.mode=full_astrasim_hierarchical',
    'model_param.global_batch_size=256',
    'sw_param.activation_recompute=full',
    'parallelism.pp_schedule=1f1b',
]
PLANS = {
    'TP-heavy (TP8+SP, PP2, DP4, ZeRO-1)': [
        'parallelism.tp=8', 'parallelism.tp_sp=true', 'parallelism.pp=2', 'parallelism.train.dp=4',
        'parallelism.mb=8', 'parallelism.micro_batch_size=8', 'sw_param.dp_zero_stage=1',
    ],
    'DP-heavy (TP2+SP, PP1, DP32, ZeRO-3)': [
        'parallelism.tp=2', 'parallelism.tp_sp=true', 'parallelism.pp=1', 'parallelism.train.dp=32',
        'parallelism.mb=8', 'parallelism.micro_batch_size=1', 'sw_param.dp_zero_stage=3',
    ],
}


def rapidllm_binary():
    if os.environ.get('RAPIDLLM'):  # a pinned copy, so the tree can be rebuilt while this runs
        return os.environ['RAPIDLLM']
    binary = os.path.join(ROOT, 'build', 'release', 'apps', 'rapidllm', 'rapidllm')
    if not os.path.exists(binary):
        subprocess.run(['cmake', '--build', os.path.join(ROOT, 'build', 'release'), '--target', 'rapidllm'],
                       check=True)
    return binary


def dram_util():
    """The calibrated tech_param.DRAM.util of the hardware file."""
    text = open(os.path.join(ROOT, HARDWARE)).read()
    block = re.search(r'^  DRAM:\n((?:    .*\n)+)', text, re.M)
    util = re.search(r'^    util:\s*([0-9.eE+-]+)', block.group(1), re.M) if block else None
    return float(util.group(1)) if util else 1.0


def predict(binary, sets):
    cmd = [binary, 'predict', '--hardware', HARDWARE, '--model', MODEL, '--format', 'json']
    for s in COMMON + sets:
        cmd += ['--set', s]
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    binary = rapidllm_binary()
    base_util = dram_util()
    sweeps = []  # (sweep, x label, x value, extra sets)
    for w in WEIGHTS:
        faults = [] if w == 1.0 else [[0, NVLINK_SWITCH_OF_GPU0, w]]
        sweeps.append(('nvlink', w, [f'network.faulty_links={json.dumps(faults)}']))
    for w in WEIGHTS:
        faults = [] if w == 1.0 else [[0, IB_RAIL_SWITCH_OF_GPU0, w]]
        sweeps.append(('ib', w, [f'network.faulty_links={json.dumps(faults)}']))
    for s in HBM_SCALES:
        sweeps.append(('hbm', s, [f'tech_param.DRAM.util={base_util * s:.6g}']))

    rows = []
    for plan, plan_sets in PLANS.items():
        healthy = predict(binary, plan_sets)
        t0 = healthy['step_time_s']
        for sweep, x, extra in sweeps:
            r = predict(binary, plan_sets + extra)
            bd = r['breakdown']
            rows.append({
                'plan': plan,
                'sweep': sweep,
                'value': x,
                'step_time_s': r['step_time_s'],
                'relative': r['step_time_s'] / t0,
                'communication_tp_s': bd.get('communication.tp', 0.0),
                'communication_dp_s': bd.get('communication.dp', 0.0),
                'communication_pp_s': bd.get('communication.pp', 0.0),
                'pipeline_bubble_s': bd.get('pipeline_bubble', 0.0),
                'simulated_units': r['execution'].get('simulated_units', 0),
                'symmetry': r['execution'].get('symmetry', False),
                'fits_in_memory': r.get('fits_in_memory'),
                'peak_memory_gib': r.get('peak_memory_bytes', 0.0) / 2**30,
            })

    os.makedirs(OUT_DIR, exist_ok=True)
    csv_path = os.path.join(OUT_DIR, 'fault_sensitivity.csv')
    with open(csv_path, 'w', newline='') as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator='\n')
        writer.writeheader()
        for r in rows:
            writer.writerow({k: (f'{v:.6g}' if isinstance(v, float) else v) for k, v in r.items()})

    titles = {
        'nvlink': "(a) GPU 0's NVLink cable derated",
        'ib': "(b) GPU 0's InfiniBand uplink derated",
        'hbm': '(c) HBM bandwidth throttled',
    }
    xlabels = {
        'nvlink': 'remaining NVLink bandwidth fraction w',
        'ib': 'remaining IB bandwidth fraction w',
        'hbm': f'tech_param.DRAM.util, share of calibrated {base_util:g}',
    }
    plt.rcParams.update({'font.size': 11})
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), sharey=True)
    markers = ['o', 's']
    for ax, sweep in zip(axes, ['nvlink', 'ib', 'hbm']):
        for (plan, _), marker in zip(PLANS.items(), markers):
            pts = [(r['value'], r['relative']) for r in rows if r['plan'] == plan and r['sweep'] == sweep]
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker=marker, linewidth=2, markersize=7, label=plan)
        ax.set_title(titles[sweep])
        ax.set_xlabel(xlabels[sweep])
        ax.invert_xaxis()  # healthy on the left, worse to the right
        ax.grid(True, alpha=0.3)
        ax.axhline(1.0, color='grey', linewidth=1, linestyle=':')
        if sweep == 'ib':
            worst = max(abs(r['relative'] - 1.0) for r in rows if r['sweep'] == 'ib')
            ax.text(0.5, 0.55, f'both plans within {100 * worst:.2f} % of healthy:\n'
                    'IB traffic is rerouted over NVLink to\nthe node\'s other NICs and hidden under compute',
                    transform=ax.transAxes, ha='center', va='center', fontsize=10,
                    bbox={'boxstyle': 'round', 'facecolor': 'white', 'alpha': 0.8})
        if sweep == 'hbm':
            ax.set_xticks(HBM_SCALES)
            ax.set_xticklabels([f'{int(round(s * 100))}%' for s in HBM_SCALES])
        else:
            ax.set_xticks(WEIGHTS)
    axes[0].set_ylabel('step time / healthy step time')
    axes[0].legend(loc='upper left', fontsize=10)
    fig.suptitle('Llama-3.1-70B on 64 H100, global batch 256 x 8192 tokens, full_astrasim_hierarchical')
    fig.tight_layout()
    png_path = os.path.join(OUT_DIR, 'fault_sensitivity.png')
    fig.savefig(png_path, dpi=90)

    print(f'{"plan":38s} {"sweep":6s} {"value":>6s} {"step_s":>9s} {"rel":>7s} {"tp_comm_s":>9s} '
          f'{"bubble_s":>9s} {"units":>5s}')
    for r in rows:
        print(f'{r["plan"]:38s} {r["sweep"]:6s} {r["value"]:6.2f} {r["step_time_s"]:9.3f} {r["relative"]:7.4f} '
              f'{r["communication_tp_s"]:9.3f} {r["pipeline_bubble_s"]:9.3f} {r["simulated_units"]:5d}')
    print(f'wrote {os.path.relpath(csv_path, ROOT)} and {os.path.relpath(png_path, ROOT)}')


if __name__ == '__main__':
    main()
