"""collective(): nccl-tests figures, sizes as numbers or text, argument errors, progress."""

from __future__ import annotations

import pytest
import rapidllm
from conftest import HW_H100


def test_all_reduce_figures_follow_nccl_tests_definitions():
    r = rapidllm.collective(HW_H100, "all_reduce", "1GiB", 16)
    assert r["bytes"] == 2**30 and r["ranks"] == 16 and r["op"] == "all_reduce"
    assert r["algbw_bytes_per_s"] == pytest.approx(2**30 / r["time_s"])
    assert r["busbw_bytes_per_s"] == pytest.approx(r["algbw_bytes_per_s"] * 2 * 15 / 16)
    # Two DGX H100 nodes: reduce-scatter and all-gather on NVLink around an InfiniBand all-reduce.
    assert [(p["dimension"], p["op"]) for p in r["phases"]] == [
        ("nvlink", "reduce_scatter"), ("infiniband", "all_reduce"), ("nvlink", "all_gather")]
    assert sum(p["time_s"] for p in r["phases"]) == pytest.approx(r["time_s"])


def test_sizes_as_numbers_or_text_agree():
    a = rapidllm.collective(HW_H100, "all_gather", 64 * 2**20, 8)
    assert a == rapidllm.collective(HW_H100, "all_gather", "64MiB", 8)
    assert a == rapidllm.collective(HW_H100, "all_gather", float(64 * 2**20), 8)


def test_flow_backend_reports_progress():
    seen = []
    r = rapidllm.collective(HW_H100, "all_reduce", "256MiB", 16, backend="flow",
                            progress=lambda done, total: seen.append((done, total)))
    assert r["backend"] == "flow" and r["time_s"] > 0.0
    assert seen and all(0 <= d <= t for d, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize("kwargs, key, hint", [
    (dict(op="all_reduc", bytes="1GiB", ranks=8), "op", "did you mean 'all_reduce'?"),
    (dict(op="all_reduce", bytes="1 GiBB", ranks=8), "bytes", "e.g. '1GiB', '64MiB' or 1e9"),
    (dict(op="all_reduce", bytes=0.5, ranks=8), "bytes", ""),
    (dict(op="all_reduce", bytes="1GiB", ranks=0), "ranks", ""),
    (dict(op="all_reduce", bytes="1GiB", ranks=8, backend="flo"), "backend", "did you mean 'flow'?"),
    (dict(op="all_reduce", bytes="1GiB", ranks=8, dim="nvlnk"), "dim", "did you mean 'nvlink'?"),
])
def test_bad_arguments_name_the_argument(kwargs, key, hint):
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.collective(HW_H100, **kwargs)
    assert e.value.file == "collective()" and e.value.key_path == key and e.value.hint == hint


def test_ranks_not_aligned_with_the_network_is_infeasible():
    with pytest.raises(rapidllm.InfeasibleError):
        rapidllm.collective(HW_H100, "all_reduce", "1GiB", 12)  # 8 per node: 12 do not align


def test_max_events_keyword_bounds_a_simulation():
    with pytest.raises(rapidllm.ConfigError, match="max_events"):
        rapidllm.collective(HW_H100, "all_reduce", "1GiB", 64, backend="flow", max_events=10)
