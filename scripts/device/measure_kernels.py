#!/usr/bin/env python3
"""Kernel-level sweeps on one GPU with PyTorch: GEMM, fused attention, HBM bandwidth and the
memory-bound kernels a training step runs. Writes CSVs under $OUT (or argv[1]).

The rows are kernel facts for the device files (validation/kernels/README.md says how each
column was measured); they are never end-to-end results. Every timing is the median of
triton.testing.do_bench, which clears the L2 cache (a 256 MB write) before each call and
times the call alone with CUDA events, so a row is one cold-cache kernel as a training step
meets it, without the host's launch gap. Inputs are random (never zeros: they run faster).

Each section has a deadline so that a slow section cannot starve the others; rows are
written as they are measured, so a run stopped at its limit still returns what it had.
"""
import csv
import math
import os
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from triton.testing import do_bench

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('OUT', '.')
T0 = time.time()
TOTAL_BUDGET_S = float(os.environ.get('BUDGET_S', '330'))
dev = torch.device('cuda')
torch.manual_seed(0)


def elapsed():
    return time.time() - T0


def bench_ms(fn):
    return do_bench(fn, warmup=10, rep=40, return_mode='median')


class Table:
    def __init__(self, name, columns):
        self.f = open(os.path.join(OUT, name), 'w', newline='')
        self.w = csv.writer(self.f)
        self.w.writerow(columns)
        self.f.flush()

    def row(self, *values):
        self.w.writerow(values)
        self.f.flush()


def smi(fields):
    try:
        return subprocess.run(['nvidia-smi', f'--query-gpu={fields}', '--format=csv,noheader'],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception as e:  # noqa: BLE001  (a missing nvidia-smi must not stop the sweeps)
        return f'unavailable: {e}'


def environment():
    props = torch.cuda.get_device_properties(0)
    with open(os.path.join(OUT, 'environment.txt'), 'w') as f:
        f.write(f'device: {props.name}, {props.multi_processor_count} SMs, '
                f'{props.total_memory / 2**30:.1f} GiB, L2 {getattr(props, "L2_cache_size", 0) / 2**20:.0f} MiB\n')
        f.write(f'torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}\n')
        f.write('nvidia-smi: ' + smi('name,driver_version,power.limit,clocks.max.sm,clocks.max.mem') + '\n')
        f.write('idle: ' + smi('clocks.sm,clocks.mem,power.draw,temperature.gpu') + '\n')


def sustained_clock():
    """The SM clock and power a long bf16 8192^3 burst settles at (the 700 W cap)."""
    t = Table('sustained_gemm.csv', ['t_s', 'sm_clock_mhz', 'power_w', 'tflops_window'])
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    mon = subprocess.Popen(['nvidia-smi', '--query-gpu=clocks.sm,power.draw', '--format=csv,noheader,nounits',
                            '-lms', '250'], stdout=subprocess.PIPE, text=True)
    start = time.time()
    windows = []
    while time.time() - start < 6.0:
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(50):
            torch.matmul(a, b)
        e1.record()
        e1.synchronize()
        windows.append((time.time() - start, 50 * 2 * 8192**3 / (e0.elapsed_time(e1) * 1e-3) / 1e12))
    mon.terminate()
    samples = [line.split(',') for line in mon.communicate()[0].strip().splitlines() if ',' in line]
    for i, (ts, tf) in enumerate(windows):
        s = samples[min(i * len(samples) // max(len(windows), 1), len(samples) - 1)] if samples else ['', '']
        t.row(f'{ts:.2f}', s[0].strip(), s[1].strip(), f'{tf:.1f}')


# --- GEMM ---------------------------------------------------------------------------------
# Layer GEMMs of the models people plan with, per tensor-parallel shard, at token counts from
# decode (1) to long training micro-batches, plus squares. (k, n) = (in, out) features.
LAYERS = {
    'llama3-8b': [(4096, 6144), (4096, 4096), (4096, 28672), (14336, 4096)],
    'llama3-70b-tp8': [(8192, 1280), (1024, 8192), (8192, 7168), (3584, 8192)],
    'gpt3-175b-tp8': [(12288, 4608), (1536, 12288), (12288, 6144), (6144, 12288)],
    'llama3-70b-tp4': [(8192, 2560), (2048, 8192), (8192, 14336), (7168, 8192)],
}
TOKENS = [1, 16, 64, 256, 1024, 4096, 16384]


def gemm_shapes():
    shapes = [('square', s, s, s) for s in (256, 512, 1024, 2048, 4096, 8192, 16384)]
    shapes += [('published', 2048, 2048, 13312), ('published', 6144, 17920, 2816),
               ('published', 1024, 9216, 14336)]
    for model, layers in LAYERS.items():
        for m in TOKENS:
            for k, n in layers:
                shapes.append((model, m, n, k))
    return shapes


def gemm_rate(kind, m, n, k, dtype):
    flops = 2.0 * m * n * k
    if dtype == 'fp8':
        if m % 16 or n % 16 or k % 16:
            return None
        a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()  # column-major, as cuBLASLt needs
        one = torch.ones((), device=dev)
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
    else:
        dt = {'bf16': torch.bfloat16, 'fp16': torch.float16, 'tf32': torch.float32}[dtype]
        x = torch.randn(m, k, device=dev, dtype=dt)
        w = torch.randn(n, k, device=dev, dtype=dt)
        if kind == 'fwd':       # y = x w^T (nn.Linear's forward)
            fn = lambda: F.linear(x, w)  # noqa: E731
        elif kind == 'dgrad':   # dx[m,k] = dy[m,n] w[n,k]
            dy = torch.randn(m, n, device=dev, dtype=dt)
            fn = lambda: torch.matmul(dy, w)  # noqa: E731
        else:                   # wgrad dw[n,k] = dy^T[n,m] x[m,k]
            dy = torch.randn(m, n, device=dev, dtype=dt)
            fn = lambda: torch.matmul(dy.t(), x)  # noqa: E731
    ms = bench_ms(fn)
    return ms, flops / (ms * 1e-3) / 1e12


def gemm_sweep(deadline):
    torch.backends.cuda.matmul.allow_tf32 = True
    t = Table('gemm_sweep.csv', ['group', 'pass', 'dtype', 'm', 'n', 'k', 'time_us', 'tflops'])
    shapes = gemm_shapes()
    plan = [(g, 'fwd', 'bf16', m, n, k) for g, m, n, k in shapes]
    plan += [(g, 'fwd', 'fp8', m, n, k) for g, m, n, k in shapes if m >= 16]
    plan += [(g, p, 'bf16', m, n, k) for g, m, n, k in shapes
             if g in ('llama3-8b', 'llama3-70b-tp8') and m >= 1024 for p in ('dgrad', 'wgrad')]
    plan += [(g, 'fwd', 'fp16', m, n, k) for g, m, n, k in shapes if g in ('square', 'published')]
    plan += [(g, 'fwd', 'tf32', m, n, k) for g, m, n, k in shapes if g == 'square' and m <= 8192]
    for g, p, dt, m, n, k in plan:
        if elapsed() > deadline:
            print(f'gemm: deadline at {g} {p} {dt} {m}x{n}x{k}', flush=True)
            break
        try:
            r = gemm_rate(p, m, n, k, dt)
        except Exception as e:  # noqa: BLE001
            print(f'gemm {dt} {m}x{n}x{k}: {e}', flush=True)
            continue
        if r:
            t.row(g, p, dt, m, n, k, f'{r[0] * 1e3:.2f}', f'{r[1]:.1f}')
        torch.cuda.empty_cache()


# --- attention ----------------------------------------------------------------------------
def attention_sweep(deadline):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    t = Table('attention_sweep.csv', ['backend', 'pass', 'causal', 'batch', 'q_heads', 'kv_heads', 'seq',
                                      'head_dim', 'time_us', 'tflops'])
    backends = [('flash2', SDPBackend.FLASH_ATTENTION), ('cudnn', SDPBackend.CUDNN_ATTENTION),
                ('mem_efficient', SDPBackend.EFFICIENT_ATTENTION)]
    shapes = [(16, 1024), (8, 2048), (4, 4096), (2, 8192), (1, 16384), (1, 32768)]
    for head_dim, heads in ((128, 32), (64, 32)):
        for causal in (True, False):
            for b, s in shapes:
                if head_dim == 64 and s not in (2048, 8192):
                    continue
                for name, be in backends:
                    if elapsed() > deadline:
                        print('attention: deadline', flush=True)
                        return
                    q = torch.randn(b, heads, s, head_dim, device=dev, dtype=torch.bfloat16, requires_grad=True)
                    k = torch.randn(b, heads, s, head_dim, device=dev, dtype=torch.bfloat16, requires_grad=True)
                    v = torch.randn(b, heads, s, head_dim, device=dev, dtype=torch.bfloat16, requires_grad=True)
                    fwd_flops = 4.0 * b * heads * s * s * head_dim * (0.5 if causal else 1.0)
                    try:
                        with sdpa_kernel([be]):
                            fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
                            ms = bench_ms(fwd)
                            t.row(name, 'fwd', int(causal), b, heads, heads, s, head_dim, f'{ms * 1e3:.1f}',
                                  f'{fwd_flops / (ms * 1e-3) / 1e12:.1f}')
                            o = fwd()
                            g = torch.randn_like(o)
                            bwd = lambda: torch.autograd.grad(o, (q, k, v), g, retain_graph=True)  # noqa: E731
                            ms = bench_ms(bwd)
                            t.row(name, 'bwd', int(causal), b, heads, heads, s, head_dim, f'{ms * 1e3:.1f}',
                                  f'{2.5 * fwd_flops / (ms * 1e-3) / 1e12:.1f}')
                            del o, g
                    except Exception as e:  # noqa: BLE001
                        print(f'attention {name} b{b} s{s} d{head_dim}: {str(e)[:120]}', flush=True)
                    del q, k, v
                    torch.cuda.empty_cache()


def decode_attention_sweep(deadline):
    """One new token per sequence against a KV cache: bound by reading the cache."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    t = Table('decode_attention.csv', ['backend', 'batch', 'q_heads', 'kv_heads', 'kv_len', 'head_dim',
                                       'kv_bytes', 'time_us', 'kv_read_gbps'])
    for b, L in ((1, 4096), (8, 4096), (64, 1024), (64, 4096), (32, 16384), (8, 65536), (128, 2048)):
        for name, be in (('flash2', SDPBackend.FLASH_ATTENTION), ('cudnn', SDPBackend.CUDNN_ATTENTION),
                         ('mem_efficient', SDPBackend.EFFICIENT_ATTENTION)):
            if elapsed() > deadline:
                return
            hq, hkv, d = 32, 8, 128
            q = torch.randn(b, hq, 1, d, device=dev, dtype=torch.bfloat16)
            k = torch.randn(b, hkv, L, d, device=dev, dtype=torch.bfloat16)
            v = torch.randn(b, hkv, L, d, device=dev, dtype=torch.bfloat16)
            kv_bytes = 2 * k.numel() * 2
            try:
                with sdpa_kernel([be]):
                    ms = bench_ms(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
                t.row(name, b, hq, hkv, L, d, kv_bytes, f'{ms * 1e3:.1f}', f'{kv_bytes / (ms * 1e-3) / 1e9:.0f}')
            except Exception as e:  # noqa: BLE001
                print(f'decode {name} b{b} L{L}: {str(e)[:120]}', flush=True)
            del q, k, v
            torch.cuda.empty_cache()


# --- HBM ----------------------------------------------------------------------------------
def hbm_sweep(deadline):
    """Copy, read and write bandwidth against transfer size (bytes counted once each way)."""
    t = Table('hbm_sweep.csv', ['op', 'bytes_per_buffer', 'bytes_moved', 'time_us', 'gbps'])
    for e in range(14, 33):  # 16 KiB .. 4 GiB
        n = 2**e // 2
        if elapsed() > deadline:
            return
        x = torch.randn(n, device=dev, dtype=torch.bfloat16)
        y = torch.empty_like(x)
        for op, fn, moved in (('copy', lambda: y.copy_(x), 2 * x.nbytes),
                              ('read', lambda: torch.sum(x, dtype=torch.float32), x.nbytes),
                              ('write', lambda: y.fill_(1.5), y.nbytes)):
            ms = bench_ms(fn)
            t.row(op, x.nbytes, moved, f'{ms * 1e3:.2f}', f'{moved / (ms * 1e-3) / 1e9:.0f}')
        del x, y
        torch.cuda.empty_cache()


def memory_kernels(deadline):
    """The memory-bound kernels of a transformer layer, eager PyTorch, at training sizes."""
    t = Table('memory_kernels.csv', ['kernel', 'pass', 'tokens', 'width', 'bytes_min', 'time_us', 'gbps'])
    bf = torch.bfloat16
    for tokens, width in ((4096, 4096), (16384, 4096), (8192, 8192), (4096, 14336)):
        if elapsed() > deadline:
            return
        x = torch.randn(tokens, width, device=dev, dtype=bf, requires_grad=True)
        r = torch.randn(tokens, width, device=dev, dtype=bf)
        w = torch.ones(width, device=dev, dtype=bf, requires_grad=True)
        bias = torch.zeros(width, device=dev, dtype=bf, requires_grad=True)
        nb = x.nbytes
        cases = [
            ('layer_norm', lambda: F.layer_norm(x, (width,), w, bias), 2 * nb, 3 * nb),
            ('rms_norm', lambda: F.rms_norm(x, (width,), w), 2 * nb, 3 * nb),
            ('gelu_tanh', lambda: F.gelu(x, approximate='tanh'), 2 * nb, 3 * nb),
            ('silu_mul', lambda: F.silu(x) * r, 3 * nb, 5 * nb),
            ('softmax', lambda: torch.softmax(x, dim=-1), 2 * nb, 3 * nb),
            ('dropout', lambda: F.dropout(x, 0.1, training=True), 2 * nb, 2 * nb),
            ('residual_add', lambda: x + r, 3 * nb, None),
        ]
        for name, fn, fwd_bytes, bwd_bytes in cases:
            ms = bench_ms(fn)
            t.row(name, 'fwd', tokens, width, fwd_bytes, f'{ms * 1e3:.1f}', f'{fwd_bytes / (ms * 1e-3) / 1e9:.0f}')
            if bwd_bytes:
                y = fn()
                g = torch.randn_like(y)
                ms = bench_ms(lambda: torch.autograd.grad(y, (x,), g, retain_graph=True))
                t.row(name, 'bwd', tokens, width, bwd_bytes, f'{ms * 1e3:.1f}',
                      f'{bwd_bytes / (ms * 1e-3) / 1e9:.0f}')
                del y, g
        del x, r, w, bias
        torch.cuda.empty_cache()
    # Loss over a large vocabulary: the logits in bf16, upcast to fp32 as torchtitan does.
    for tokens, vocab in ((4096, 128256), (8192, 50304)):
        if elapsed() > deadline:
            return
        logits = torch.randn(tokens, vocab, device=dev, dtype=bf, requires_grad=True)
        labels = torch.randint(0, vocab, (tokens,), device=dev)
        fn = lambda: F.cross_entropy(logits.float(), labels)  # noqa: E731
        ms = bench_ms(fn)
        t.row('cross_entropy_fp32', 'fwd', tokens, vocab, logits.nbytes, f'{ms * 1e3:.1f}',
              f'{logits.nbytes / (ms * 1e-3) / 1e9:.0f}')
        loss = fn()
        ms = bench_ms(lambda: torch.autograd.grad(loss, (logits,), retain_graph=True))
        t.row('cross_entropy_fp32', 'bwd', tokens, vocab, 2 * logits.nbytes, f'{ms * 1e3:.1f}',
              f'{2 * logits.nbytes / (ms * 1e-3) / 1e9:.0f}')
        del logits, labels, loss
        torch.cuda.empty_cache()
    # AdamW over fp32 parameters (fused and foreach): reads p, g, m, v and writes p, m, v.
    n = 256 * 2**20
    for impl in ('fused', 'foreach'):
        if elapsed() > deadline:
            return
        p = torch.nn.Parameter(torch.randn(n, device=dev))
        p.grad = torch.randn(n, device=dev)
        opt = torch.optim.AdamW([p], lr=1e-4, **{impl: True})
        opt.step()
        ms = bench_ms(opt.step)
        moved = 7 * 4 * n
        t.row(f'adamw_{impl}', 'step', n, 1, moved, f'{ms * 1e3:.1f}', f'{moved / (ms * 1e-3) / 1e9:.0f}')
        del p, opt
        torch.cuda.empty_cache()


# --- second pass: steady-state regimes do_bench does not show ------------------------------
def graph_us_per_call(calls, replays=5):
    """Per-call time of a CUDA graph of back-to-back calls: the kernels as a step or a decode
    iteration issues them (no L2 flush between them, no host launch gap)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for c in calls:  # warm-up outside capture (cuBLAS picks and allocates here)
            c()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for c in calls:
            c()
    g.replay()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(replays):
        g.replay()
    e1.record()
    e1.synchronize()
    return e0.elapsed_time(e1) * 1e3 / (replays * len(calls))


ROTATE_BYTES = 256 * 2**20  # rotate among buffers totalling 5x the 50 MB L2: each call streams from HBM


def streaming_sweep(deadline):
    """Decode-sized GEMMs and plain copies/reads in a CUDA graph over rotating buffers."""
    t = Table('graph_streaming.csv', ['kernel', 'm', 'n', 'k', 'bytes_moved', 'buffers', 'us_per_call', 'gbps'])
    z = torch.zeros(1, device=dev)
    t.row('tiny_add', 1, 1, 1, 0, 1, f'{graph_us_per_call([lambda: z.add_(1)] * 64):.2f}', 0)  # the graph's floor
    for model, layers in LAYERS.items():
        for m in (1, 16, 64, 256):
            for k, n in layers:
                if elapsed() > deadline:
                    return
                w_bytes = n * k * 2
                copies = max(2, math.ceil(ROTATE_BYTES / w_bytes))
                ws = [torch.randn(n, k, device=dev, dtype=torch.bfloat16) for _ in range(copies)]
                x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
                calls = [(lambda w=w: F.linear(x, w)) for w in ws] * max(1, 48 // copies)
                us = graph_us_per_call(calls)
                moved = w_bytes + (m * k + m * n) * 2
                t.row(f'gemm_bf16_{model}', m, n, k, moved, copies, f'{us:.2f}', f'{moved / (us * 1e-6) / 1e9:.0f}')
                del ws, x, calls
                torch.cuda.empty_cache()
    for e in range(18, 31):  # 256 KiB .. 1 GiB per buffer
        if elapsed() > deadline:
            return
        nbytes = 2**e
        copies = max(2, math.ceil(ROTATE_BYTES / nbytes))
        xs = [torch.randn(nbytes // 2, device=dev, dtype=torch.bfloat16) for _ in range(copies)]
        ys = [torch.empty_like(xs[0]) for _ in range(copies)]
        reps = max(1, 48 // copies)
        us = graph_us_per_call([(lambda a=a, b=b: b.copy_(a)) for a, b in zip(xs, ys)] * reps)
        t.row('copy', 0, 0, 0, 2 * nbytes, copies, f'{us:.2f}', f'{2 * nbytes / (us * 1e-6) / 1e9:.0f}')
        us = graph_us_per_call([(lambda a=a: a.mul_(1.0001)) for a in xs] * reps)
        t.row('scale_inplace', 0, 0, 0, 2 * nbytes, copies, f'{us:.2f}', f'{2 * nbytes / (us * 1e-6) / 1e9:.0f}')
        del xs, ys
        torch.cuda.empty_cache()


def sustained_shapes(deadline):
    """GEMM and attention rates once the 700 W cap has set the clock: each shape runs
    back-to-back for 0.3 s after a warm GPU, as a training step's kernels do."""
    t = Table('sustained_kernels.csv', ['kernel', 'dtype', 'm', 'n', 'k', 'time_us', 'tflops', 'sm_clock_mhz'])
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    heat = time.time()
    while time.time() - heat < 2.0:
        for _ in range(20):
            torch.matmul(a, a)
        torch.cuda.synchronize()
    del a
    shapes = [(s, s, s) for s in (4096, 8192, 16384)]
    for m in (4096, 16384):
        shapes += [(m, n, k) for k, n in LAYERS['llama3-8b']]
    shapes += [(16384, n, k) for k, n in LAYERS['llama3-70b-tp8'] + LAYERS['gpt3-175b-tp8']]
    for dtype in ('bf16', 'fp8'):
        for m, n, k in shapes:
            if elapsed() > deadline:
                return
            if dtype == 'fp8':
                x = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
                w = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()
                one = torch.ones((), device=dev)
                fn = lambda: torch._scaled_mm(x, w, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
            else:
                x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
                w = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
                fn = lambda: F.linear(x, w)  # noqa: E731
            us, clock = run_sustained(fn)
            t.row('gemm', dtype, m, n, k, f'{us:.1f}', f'{2.0 * m * n * k / (us * 1e-6) / 1e12:.1f}', clock)
            del x, w
            torch.cuda.empty_cache()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    for name, be in (('flash2', SDPBackend.FLASH_ATTENTION), ('cudnn', SDPBackend.CUDNN_ATTENTION)):
        for b, s in ((4, 4096), (1, 16384)):
            if elapsed() > deadline:
                return
            q, k, v = (torch.randn(b, 32, s, 128, device=dev, dtype=torch.bfloat16, requires_grad=True)
                       for _ in range(3))
            flops = 4.0 * b * 32 * s * s * 128 * 0.5
            with sdpa_kernel([be]):
                us, clock = run_sustained(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
                # Attention rows: m = batch, n = sequence, k = head_dim (32 heads).
                t.row(f'attention_{name}_causal_fwd', 'bf16', b, s, 128, f'{us:.1f}',
                      f'{flops / (us * 1e-6) / 1e12:.1f}', clock)
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                g = torch.randn_like(o)
                us, clock = run_sustained(lambda: torch.autograd.grad(o, (q, k, v), g, retain_graph=True))
                t.row(f'attention_{name}_causal_bwd', 'bf16', b, s, 128, f'{us:.1f}',
                      f'{2.5 * flops / (us * 1e-6) / 1e12:.1f}', clock)
            del q, k, v, o, g
            torch.cuda.empty_cache()


def run_sustained(fn, seconds=0.3):
    fn()
    torch.cuda.synchronize()
    calls, start = 0, time.time()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    while time.time() - start < seconds:
        for _ in range(8):
            fn()
        calls += 8
        if calls % 64 == 0:
            torch.cuda.synchronize()
    e1.record()
    e1.synchronize()
    clock = smi('clocks.sm').split()[0] if calls else ''
    return e0.elapsed_time(e1) * 1e3 / calls, clock


def k_sweep(deadline):
    """Fixed output, growing reduction: what each tile's epilogue (writing C) adds."""
    t = Table('gemm_k_sweep.csv', ['dtype', 'm', 'n', 'k', 'time_us', 'tflops'])
    for dtype in ('bf16', 'fp8'):
        for m, n in ((8192, 8192), (16384, 8192)):
            for k in (128, 256, 512, 1024, 2048, 4096, 8192):
                if elapsed() > deadline:
                    return
                r = gemm_rate('fwd', m, n, k, dtype)
                t.row(dtype, m, n, k, f'{r[0] * 1e3:.2f}', f'{r[1]:.1f}')
                torch.cuda.empty_cache()


# --- third pass: MoE expert GEMMs -------------------------------------------------------
# (experts on one rank, hidden, expert ffn, gated) of public MoE configs: DeepSeek-V3 (256
# routed experts) at EP 8 and 32, Mixtral-8x7B without EP, Qwen3-30B-A3B (128 experts) at
# EP 1 and 8.
MOE_SHAPES = {
    'deepseek-v3-ep8': (32, 7168, 2048), 'deepseek-v3-ep32': (8, 7168, 2048),
    'mixtral-8x7b': (8, 4096, 14336), 'qwen3-30b-a3b-ep1': (128, 2048, 768), 'qwen3-30b-a3b-ep8': (16, 2048, 768),
}


def grouped_gemm_sweep(deadline):
    """Every local expert's GEMM at equal rows per expert: PyTorch's grouped GEMM (one
    kernel), a batched GEMM (one kernel, equal rows) and a loop of one GEMM per expert."""
    t = Table('moe_gemm.csv', ['model', 'proj', 'experts', 'rows_per_expert', 'k', 'n', 'impl', 'time_us', 'tflops'])
    for model, (experts, hidden, ffn) in MOE_SHAPES.items():
        for proj, k, n in (('up', hidden, 2 * ffn), ('down', ffn, hidden)):
            w = torch.randn(experts, n, k, device=dev, dtype=torch.bfloat16)  # nn.Linear layout per expert
            for rows in (1, 8, 64, 512, 2048):
                if elapsed() > deadline:
                    return
                if experts * rows * max(k, n) * 2 > 4 * 2**30:
                    continue
                x = torch.randn(experts * rows, k, device=dev, dtype=torch.bfloat16)
                xb = x.view(experts, rows, k)
                wt = w.transpose(-2, -1)  # (E, K, N), column-major per expert
                offs = torch.arange(1, experts + 1, device=dev, dtype=torch.int32) * rows
                flops = 2.0 * experts * rows * k * n
                impls = [('grouped_mm', lambda: torch._grouped_mm(x, wt, offs=offs)),
                         ('bmm', lambda: torch.bmm(xb, wt)),
                         ('loop', lambda: [F.linear(xb[e], w[e]) for e in range(experts)])]
                for impl, fn in impls:
                    try:
                        ms = bench_ms(fn)
                    except Exception as e:  # noqa: BLE001
                        print(f'moe {model} {proj} {impl} rows {rows}: {str(e)[:160]}', flush=True)
                        continue
                    t.row(model, proj, experts, rows, k, n, impl, f'{ms * 1e3:.2f}', f'{flops / (ms * 1e-3) / 1e12:.1f}')
                del x, xb, offs
                torch.cuda.empty_cache()
            del w
            torch.cuda.empty_cache()


# --- fourth pass: power ----------------------------------------------------------------
def power_phases(deadline):
    """Board power (nvidia-smi, sampled every 100 ms) while the GPU idles, streams HBM and runs
    bf16 and fp8 GEMMs, each for 4 s back to back: the energy per byte and per FLOP at the
    700 W cap. The mean over each phase's last 2.5 s is kept with the work done meanwhile."""
    t = Table('power_phases.csv', ['phase', 'seconds', 'power_w', 'power_instant_w', 'sm_clock_mhz', 'work_per_s',
                                   'work_unit'])
    fields = 'timestamp,power.draw,power.draw.instant,clocks.sm'
    if subprocess.run(['nvidia-smi', f'--query-gpu={fields}', '--format=csv,noheader'], capture_output=True).returncode:
        fields = 'timestamp,power.draw,power.draw,clocks.sm'  # a driver without the instant reading
    mon = subprocess.Popen(['nvidia-smi', f'--query-gpu={fields}', '--format=csv,noheader,nounits', '-lms', '100'],
                           stdout=subprocess.PIPE, text=True)
    marks = []

    def run_phase(name, step, work_per_call, unit, seconds=4.0):
        begin = time.time()
        calls = 0
        e0 = e1 = None
        while time.time() - begin < seconds:
            if e0 is None and time.time() - begin > seconds - 2.5:
                torch.cuda.synchronize()
                e0, counted, t_mark = torch.cuda.Event(enable_timing=True), calls, time.time()
                e0.record()
            step()
            calls += 1
            if calls % 16 == 0:
                torch.cuda.synchronize()
        e1 = torch.cuda.Event(enable_timing=True)
        e1.record()
        e1.synchronize()
        rate = (calls - counted) * work_per_call / (e0.elapsed_time(e1) * 1e-3) if unit else 0.0
        marks.append((name, t_mark, time.time(), rate, unit))

    time.sleep(2.0)
    run_phase('idle', lambda: time.sleep(0.05), 0.0, '')
    n = 2**29  # 1 GiB bf16 buffers, four of them: every copy streams from HBM
    bufs = [torch.randn(n, device=dev, dtype=torch.bfloat16) for _ in range(4)]
    k = [0]

    def copy_step():
        k[0] += 1
        bufs[(k[0] + 1) % 4].copy_(bufs[k[0] % 4])
    run_phase('hbm_copy', copy_step, 2.0 * n * 2, 'bytes')
    del bufs
    torch.cuda.empty_cache()
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    run_phase('gemm_bf16_8192', lambda: torch.matmul(a, b), 2.0 * 8192**3, 'flop')
    a8 = a.to(torch.float8_e4m3fn)
    b8 = b.to(torch.float8_e4m3fn).t().contiguous().t()
    one = torch.ones((), device=dev)
    run_phase('gemm_fp8_8192', lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
              2.0 * 8192**3, 'flop')
    x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    w = torch.randn(14336, 4096, device=dev, dtype=torch.bfloat16)
    run_phase('gemm_bf16_4096x14336x4096', lambda: F.linear(x, w), 2.0 * 4096 * 14336 * 4096, 'flop')
    time.sleep(0.3)
    mon.terminate()
    samples = []
    for line in mon.communicate()[0].strip().splitlines():
        parts = [p.strip() for p in line.split(',')]
        if len(parts) < 4:
            continue
        try:
            stamp = time.mktime(time.strptime(parts[0].split('.')[0], '%Y/%m/%d %H:%M:%S'))
            stamp += float('0.' + parts[0].split('.')[1]) if '.' in parts[0] else 0.0
            samples.append((stamp, float(parts[1]), float(parts[2]) if parts[2][0].isdigit() else float('nan'),
                            float(parts[3])))
        except (ValueError, IndexError):
            continue
    for name, start, end, rate, unit in marks:
        inside = [s for s in samples if start <= s[0] <= end]
        if not inside:
            print(f'power: no samples in {name} ({len(samples)} samples in all)', flush=True)
            continue
        mean = lambda i: sum(s[i] for s in inside) / len(inside)  # noqa: E731
        t.row(name, f'{end - start:.2f}', f'{mean(1):.1f}', f'{mean(2):.1f}', f'{mean(3):.0f}', f'{rate:.4g}', unit)


def main():
    os.makedirs(OUT, exist_ok=True)
    environment()
    sections = [('hbm', hbm_sweep, 0.08), ('sustained', None, 0.04), ('gemm', gemm_sweep, 0.40),
                ('attention', attention_sweep, 0.25), ('decode', decode_attention_sweep, 0.06),
                ('memory', memory_kernels, 0.17)]
    if os.environ.get('PASS') == '2':
        sections = [('streaming', streaming_sweep, 0.35), ('k_sweep', k_sweep, 0.15),
                    ('sustained_shapes', sustained_shapes, 0.50)]
    if os.environ.get('PASS') == '3':
        sections = [('grouped_gemm', grouped_gemm_sweep, 1.0)]
    if os.environ.get('PASS') == '4':
        sections = [('power', power_phases, 1.0)]
    budget_end = 0.0
    for name, fn, share in sections:
        budget_end += share * TOTAL_BUDGET_S
        print(f'[{elapsed():6.1f} s] {name}', flush=True)
        try:
            if fn is None:
                sustained_clock()
            else:
                fn(budget_end)
        except Exception as e:  # noqa: BLE001
            print(f'{name} failed: {e}', flush=True)
    with open(os.path.join(OUT, 'environment.txt'), 'a') as f:
        f.write('after: ' + smi('clocks.sm,clocks.mem,power.draw,temperature.gpu') + '\n')
    print(f'[{elapsed():6.1f} s] done', flush=True)
    for name in sorted(os.listdir(OUT)):
        with open(os.path.join(OUT, name)) as f:
            print(f'{name}: {sum(1 for _ in f) - 1} rows')


if __name__ == '__main__':
    main()
