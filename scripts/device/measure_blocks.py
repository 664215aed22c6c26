#!/usr/bin/env python3
"""Whole transformer layers on one GPU with PyTorch: what an eager framework's layer costs
against the sum of its kernels. Writes eager_layers.csv under $OUT (or argv[1]).

A Llama-style layer written as the reference code and eager trainers write it (RMSNorm on
an fp32 upcast, rotary embedding by rotate_half, grouped KV heads repeated to the query
heads, SDPA's FlashAttention-2 backend, SwiGLU as silu(gate) * up, bias-free linears, bf16
weights and activations), `LAYERS` of them stacked,
forward and backward of one micro-batch. Two timings of the same work:

- eager: launched op by op from Python, as a training step launches them (CUDA events around
  forward + backward, median of the repeats after a warm-up);
- graph: the same forward + backward captured once in a CUDA graph and replayed, so the
  host's launch gaps are gone and what is left is the kernels back to back.

The eager-minus-graph difference is the host's share; the graph time is the kernels'. Both
are per layer (the stack's time / LAYERS). Inputs are random normal values.
"""
import csv
import os
import sys
import time

import torch
import torch.nn.functional as F

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('OUT', '.')
LAYERS = 4
SEQ = 4096
REPEATS = 20
BUDGET_S = float(os.environ.get('BUDGET_S', '240'))
T0 = time.time()
dev = torch.device('cuda')
torch.manual_seed(0)


class Layer(torch.nn.Module):
    def __init__(self, hidden, heads, kv_heads, ffn):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, hidden // heads
        kv = kv_heads * self.head_dim
        self.qkv = torch.nn.Linear(hidden, hidden + 2 * kv, bias=False)
        self.o = torch.nn.Linear(hidden, hidden, bias=False)
        self.gate_up = torch.nn.Linear(hidden, 2 * ffn, bias=False)
        self.down = torch.nn.Linear(ffn, hidden, bias=False)
        self.norm1 = torch.nn.Parameter(torch.ones(hidden))
        self.norm2 = torch.nn.Parameter(torch.ones(hidden))

    @staticmethod
    def rms(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(x.dtype) * w

    @staticmethod
    def rotate(x, cos, sin):
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin

    def forward(self, x, cos, sin):
        b, s, h = x.shape
        q, k, v = self.qkv(self.rms(x, self.norm1)).split(
            [h, self.kv_heads * self.head_dim, self.kv_heads * self.head_dim], dim=-1)
        q = self.rotate(q.view(b, s, self.heads, self.head_dim).transpose(1, 2), cos, sin)
        k = self.rotate(k.view(b, s, self.kv_heads, self.head_dim).transpose(1, 2), cos, sin)
        v = v.view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        if self.kv_heads != self.heads:  # repeat_kv, as the reference Llama code and torchtitan do
            k = k.repeat_interleave(self.heads // self.kv_heads, dim=1)
            v = v.repeat_interleave(self.heads // self.kv_heads, dim=1)
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, h))
        gate, up = self.gate_up(self.rms(x, self.norm2)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


def measure(hidden, heads, kv_heads, ffn, micro_batch, table):
    layers = torch.nn.ModuleList(Layer(hidden, heads, kv_heads, ffn) for _ in range(LAYERS)).to(dev, torch.bfloat16)
    head_dim = hidden // heads
    pos = torch.arange(SEQ, device=dev, dtype=torch.float32)
    freqs = torch.outer(pos, 1.0 / (10000 ** (torch.arange(0, head_dim, 2, device=dev) / head_dim)))
    cos = torch.cat((freqs, freqs), -1).cos().to(torch.bfloat16)
    sin = torch.cat((freqs, freqs), -1).sin().to(torch.bfloat16)
    x = torch.randn(micro_batch, SEQ, hidden, device=dev, dtype=torch.bfloat16, requires_grad=True)
    dy = torch.randn_like(x)

    def step():
        y = x
        for layer in layers:
            y = layer(y, cos, sin)
        y.backward(dy)

    def forward_only():
        with torch.no_grad():
            y = x
            for layer in layers:
                y = layer(y, cos, sin)

    def timed(fn):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(REPEATS):
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        return sorted(times)[len(times) // 2]

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(stream)
    eager_ms = timed(step)
    forward_ms = timed(forward_only)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    graph.replay()
    torch.cuda.synchronize()
    graph_ms = timed(graph.replay)
    table.writerow([hidden, heads, kv_heads, ffn, SEQ, micro_batch, LAYERS, round(eager_ms / LAYERS, 4),
                    round(graph_ms / LAYERS, 4), round(forward_ms / LAYERS, 4)])
    del graph, layers, x, dy
    torch.cuda.empty_cache()


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, 'eager_layers.csv'), 'w', newline='') as f:
        table = csv.writer(f)
        table.writerow(['hidden', 'heads', 'kv_heads', 'ffn', 'seq', 'micro_batch', 'layers', 'eager_fwd_bwd_ms',
                        'graph_fwd_bwd_ms', 'eager_fwd_ms'])
        # Llama-style widths of the sizes people train: nanotron's 1.34G (2048), Llama-2 7B
        # (4096, MHA), Llama-3 8B (4096, GQA 8), a 70B-class layer (8192, GQA 8).
        shapes = [(2048, 16, 16, 8192), (4096, 32, 32, 11008), (4096, 32, 8, 14336), (8192, 64, 8, 28672)]
        for hidden, heads, kv, ffn in shapes:
            for micro_batch in (1, 2, 4):
                if time.time() - T0 > BUDGET_S:
                    return
                if hidden == 8192 and micro_batch == 4:
                    continue  # 4 layers' activations at 16k tokens exceed what the H100 holds
                measure(hidden, heads, kv, ffn, micro_batch, table)
                f.flush()
                print(hidden, heads, kv, ffn, micro_batch, f'{time.time() - T0:.0f}s', flush=True)


if __name__ == '__main__':
    main()
