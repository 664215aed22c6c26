"""serve(): a simulated serving run, the steady state, disaggregated pools, the request
log as a DataFrame, the iteration timeline, and the CLI's argument checks."""

from __future__ import annotations

from pathlib import Path

import pytest
import rapidllm
from conftest import HW_H100, LLAMA31_8B_INF


def test_poisson_run_completes_every_request():
    r = rapidllm.serve(HW_H100, LLAMA31_8B_INF, rate=20, requests=60, isl=(100, 400), osl=(20, 60), tp=2,
                       slo_ttft_s=0.2)
    assert r["run_type"] == "serve" and r["requests"] == 60 and len(r["request_log"]) == 60
    assert r["num_gpus"] == 2 and r["engine"]["name"] == "vllm"
    assert all(100 <= q["input_tokens"] <= 400 and 20 <= q["output_tokens"] <= 60 for q in r["request_log"])
    assert r["ttft"]["p50_s"] <= r["ttft"]["p99_s"] <= r["ttft"]["max_s"]
    assert r["requests_per_s"] == pytest.approx(60 / r["duration_s"])
    assert 0.0 <= r["slo_attainment"] <= 1.0


def test_steady_state_and_engine_arguments():
    r = rapidllm.serve(HW_H100, LLAMA31_8B_INF, offline=True, requests=100, steady_state=True)
    assert r["run_type"] == "serve_steady_state" and r["limited_by"] == "requests"
    assert r["output_tokens_per_s"] > 0.0
    small = rapidllm.serve(HW_H100, LLAMA31_8B_INF, offline=True, requests=100, steady_state=True, max_num_seqs=8)
    assert small["engine"]["max_num_seqs"] == 8 and small["limited_by"] == "max_num_seqs"
    assert small["output_tokens_per_s"] < r["output_tokens_per_s"]


def test_disaggregated_pools_and_frame(tmp_path: Path):
    trace = tmp_path / "iterations.json"
    df = rapidllm.serve(HW_H100, LLAMA31_8B_INF, rate=10, requests=20, isl=512, osl=32, prefill="1xtp1",
                        decode=(1, 1), as_frame=True, trace_out=trace)
    assert len(df) == 20 and {"arrival_s", "ttft_s", "tpot_s", "e2e_s", "replica"} <= set(df.columns)
    assert (df["ttft_s"] > 0).all()
    assert trace.stat().st_size > 0


@pytest.mark.parametrize("kwargs, key", [
    (dict(), "rate/concurrency/trace_file/offline"),
    (dict(rate=1, offline=True), "rate/concurrency/trace_file/offline"),
    (dict(offline=True, requests=10, seed=4), "seed"),
    (dict(rate=0.0, requests=10), "rate"),
    (dict(offline=True, requests=10, isl=(400, 100)), "isl"),
    (dict(rate=1, requests=10, router="random"), "router"),
    (dict(rate=1, requests=10, engine="sglang"), "engine"),
    (dict(rate=1, requests=10, prefill="1xtp1"), "decode"),
    (dict(rate=1, requests=10, steady_state=True), "steady_state"),
    (dict(rate=1, requests=10, prefill="1tp1", decode="1xtp1"), "prefill"),
])
def test_bad_arguments(kwargs, key):
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.serve(HW_H100, LLAMA31_8B_INF, **kwargs)
    assert e.value.key_path == key and e.value.file == "serve()"


def test_engine_range_errors_come_from_the_library():
    with pytest.raises(rapidllm.ConfigError, match="must lie in"):
        rapidllm.serve(HW_H100, LLAMA31_8B_INF, rate=1, requests=10, kv_memory_fraction=1.5)
    assert "vllm" in rapidllm.engine_profiles()
