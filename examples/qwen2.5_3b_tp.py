#!/usr/bin/env python3
"""RAPID-LLM's tutorial through rapidllm's Python API: Qwen2.5-3B inference from its
Hugging Face config.json, tensor parallel 1 against 2, on DGX H100 GPUs.

    PYTHONPATH=build/release/python python3 examples/qwen2.5_3b_tp.py --out /tmp/qwen

prints TTFT, TPOT, decode throughput, memory and energy for each TP degree and writes
qwen2.5_3b_tp.png (the four figures side by side), breakdown.png (where the time goes in
prefill and decode) and memory.png (per-GPU memory by kind) into --out.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from matplotlib.figure import Figure

import rapidllm
import rapidllm.plot

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "tests/data/hf/Qwen2.5-3B/config.json"  # Qwen/Qwen2.5-3B on the Hub
PROMPT, DECODE = 1024, 512  # tokens per request: a 1k-token prompt answered with 512 tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hardware", default=str(ROOT / "configs/hardware/H100_SXM5_80GB.yaml"))
    parser.add_argument("--out", default=".", help="folder for the PNG files")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    # config.json -> a RAPID-LLM model config (import-hf): one request of PROMPT + DECODE tokens.
    model = rapidllm.import_hf(CONFIG, run_type="inference", seq_len=PROMPT + DECODE, decode_len=DECODE)
    print(f"{model.architecture}: {model.total_parameters / 1e9:.2f} B parameters")

    # The same scenario with the model split over 1 and over 2 GPUs of one NVSwitch node.
    results = {tp: rapidllm.predict(args.hardware, model, tp=tp) for tp in (1, 2)}

    print(f"{'TP':>3} {'TTFT ms':>9} {'TPOT ms':>9} {'decode tok/s':>13} {'GiB/GPU':>8} {'energy J':>9}")
    for tp, r in results.items():
        print(f"{tp:>3} {r['ttft_s'] * 1e3:9.2f} {r['tpot_s'] * 1e3:9.3f} {r['decode_tokens_per_s']:13.1f} "
              f"{r['peak_memory_bytes'] / 2**30:8.2f} {r['energy_j']:9.1f}")
    one, two = results[1], results[2]
    print(f"TP 2 vs 1: TPOT x{two['tpot_s'] / one['tpot_s']:.2f}, TTFT x{two['ttft_s'] / one['ttft_s']:.2f}, "
          f"GPU-seconds per token x{2 * two['tpot_s'] / one['tpot_s']:.2f}")

    figures = [("TTFT (ms)", "ttft_s", 1e3), ("TPOT (ms)", "tpot_s", 1e3),
               ("decode tokens/s", "decode_tokens_per_s", 1.0), ("memory per GPU (GiB)", "peak_memory_bytes", 2**-30)]
    fig = Figure(figsize=(12, 3.2))
    for i, (title, key, scale) in enumerate(figures):
        ax = fig.add_subplot(1, len(figures), i + 1)
        ax.bar([f"TP {tp}" for tp in results], [r[key] * scale for r in results.values()], color=["C0", "C1"])
        ax.set_title(title)
    fig.suptitle(f"Qwen2.5-3B inference, {PROMPT}-token prompt + {DECODE} tokens, batch 1")
    fig.tight_layout()
    fig.savefig(out / "qwen2.5_3b_tp.png", dpi=120)
    labels = [f"TP {tp}" for tp in results]
    rapidllm.plot.breakdown(list(results.values()), labels, path=out / "breakdown.png")
    rapidllm.plot.memory(list(results.values()), labels, path=out / "memory.png")
    print(f"wrote {out / 'qwen2.5_3b_tp.png'}, {out / 'breakdown.png'}, {out / 'memory.png'}")


if __name__ == "__main__":
    main()
