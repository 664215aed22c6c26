#!/usr/bin/env python3
# Prints the table of h100_allreduce_sweep.md: measured 8x H100 all-reduce (collectives.csv) vs
# rapidllm collective --backend flow on the H100 config with the overrides of each column.
# Run from the repository root after a release build (bash scripts/test.sh or cmake --preset release).
import csv, json, subprocess
rows=[r for r in csv.DictReader(open('../shared/validation/collectives.csv')) if r['gpu'].startswith('H100') and r['num_gpus']=='8' and r['time_us'] and float(r['size_bytes'])>=1048576]
variants=[('shipped: ring, 450 GB/s, 0.93 us', []),
 ('NVLS, util 0.686, 0.93 us', ['--set','network.dimensions[0].topology.in_network_reduction=true','--set','network.dimensions[0].topology.util=0.686']),
 ('ring util 0.46, 1.5 us + NVLS util 0.632, 26 us (auto = faster)', ['--set','network.dimensions[0].topology.in_network_reduction=true','--set','network.dimensions[0].topology.util=0.46','--set','network.dimensions[0].topology.latency=1.5us','--set','network.dimensions[0].topology.in_network_reduction_util=0.632','--set','network.dimensions[0].topology.in_network_reduction_latency=26us']),
 ('NVLS only, util 0.565, 14 us (best single alpha-beta)', ['--set','network.dimensions[0].topology.in_network_reduction=true','--set','network.dimensions[0].topology.util=0.565','--set','network.dimensions[0].topology.latency=14us'])]
res={}
for name,extra in variants:
    out=[]
    for r in rows:
        cmd=['build/release/apps/rapidllm/rapidllm','collective','--hardware','configs/hardware/H100_SXM5_80GB.yaml','--op','all_reduce','--bytes',r['size_bytes'],'--ranks','8','--backend','flow','--format','json']+extra
        out.append(json.loads(subprocess.check_output(cmd))['time_s']*1e6)
    res[name]=out
print("| row | size | measured | " + " | ".join(n for n,_ in variants) + " |")
print("|---|---:|---:|" + "---:|"*len(variants))
worst={n:0 for n,_ in variants}
for i,r in enumerate(rows):
    m=float(r['time_us']); cells=[]
    for n,_ in variants:
        p=res[n][i]; e=(p-m)/m; worst[n]=max(worst[n],abs(e)); cells.append(f"{p:.1f} us ({e*100:+.1f}%)")
    s=int(r['size_bytes'])
    size = f"{s/2**30:g} GiB" if s>=2**30 else f"{s/2**20:g} MiB"
    print(f"| {r['row_id']} | {size} | {m:.1f} us | " + " | ".join(cells) + " |")
print("| worst | | | " + " | ".join(f"{worst[n]*100:.1f}%" for n,_ in variants) + " |")
