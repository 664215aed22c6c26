#!/usr/bin/env python3
"""What a torch.distributed benchmark adds around the NCCL kernel it times, on one GPU.
Writes torch_collective_call.csv and appends to environment.txt under $OUT (or argv[1]).

Benchmarks written with PyTorch (ml-engineering's all_reduce_bench.py and its kind) time one
collective per iteration: `dist.barrier()`, a CUDA event, `dist.all_reduce(t)`, a second
event, `torch.cuda.synchronize()`. The GPU records the first event at once, then waits while
the host goes through c10d (the Python call, ProcessGroupNCCL's stream handshake, NCCL's
enqueue) before the kernel can start, so the measured duration is the kernel plus that host
path. With one rank NCCL's in-place all-reduce has nothing to move, so what the events show
is the host path alone; it is measured here against two controls:

- `event_pair`: the two events with nothing between them (the host's time from one record
  call to the next, which the timed call's window holds as well);
- `tiny_kernel`: one elementwise kernel on 8 floats between them (an ordinary launch);
- `all_reduce`: the harness as the benchmark writes it, in-place fp32, 32 KiB to 256 MiB;
- `all_reduce_host`: the host time of the `dist.all_reduce` call alone (perf_counter).

Per size: mean, median, 10th and 90th percentile of TRIALS timed iterations after WARMUP.
"""
import csv
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('OUT', '.')
WARMUP = 20
TRIALS = 200


def summary(samples_us):
    s = sorted(samples_us)
    return (statistics.fmean(s), statistics.median(s), s[len(s) // 10], s[(9 * len(s)) // 10])


def timed(op, start, end):
    """The benchmark's loop body: barrier, events around one call, synchronize."""
    dist.barrier()
    start.record()
    op()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3  # us


def main():
    os.environ.setdefault('MASTER_ADDR', '127.0.0.1')
    os.environ.setdefault('MASTER_PORT', '29511')
    dev = torch.device('cuda', 0)
    torch.cuda.set_device(dev)
    dist.init_process_group('nccl', rank=0, world_size=1, device_id=dev)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    rows = []

    def measure(name, size_bytes, op):
        for _ in range(WARMUP):
            timed(op, start, end)
        samples = [timed(op, start, end) for _ in range(TRIALS)]
        rows.append((name, size_bytes) + tuple(f'{v:.2f}' for v in summary(samples)))
        print(name, size_bytes, rows[-1][2:], flush=True)

    tiny = torch.zeros(8, device=dev)
    measure('event_pair', 0, lambda: None)
    measure('tiny_kernel', 32, lambda: tiny.add_(1.0))
    for p in range(15, 29):  # 32 KiB .. 256 MiB, as all_reduce_bench.py's sweep starts
        t = torch.rand((2**p) // 4, device=dev, dtype=torch.float32)
        measure('all_reduce', 2**p, lambda t=t: dist.all_reduce(t))
        host = []
        for _ in range(TRIALS):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            host.append((time.perf_counter() - t0) * 1e6)
            torch.cuda.synchronize()
        rows.append(('all_reduce_host', 2**p) + tuple(f'{v:.2f}' for v in summary(host)))
        print(rows[-1], flush=True)
        del t
    with open(os.path.join(OUT, 'torch_collective_call.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['measure', 'size_bytes', 'mean_us', 'median_us', 'p10_us', 'p90_us'])
        w.writerows(rows)
    with open(os.path.join(OUT, 'environment.txt'), 'a') as f:
        props = torch.cuda.get_device_properties(dev)
        cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '?')
        f.write(f'torch_collective_call: {props.name}; torch {torch.__version__}, CUDA {torch.version.cuda}, '
                f'NCCL {".".join(map(str, torch.cuda.nccl.version()))}; host CPU {cpu}\n')
    dist.destroy_process_group()


if __name__ == '__main__':
    main()
