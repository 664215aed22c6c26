"""sweep(): the ranked plans, the grid and vary arguments, progress, DataFrames, errors."""

from __future__ import annotations

import pytest
import rapidllm
from conftest import HW_H100, LLAMA31_8B

# tp x pp only: 6 plans (single values may be given bare).
GRID = {"tp": [1, 2, 4], "pp": [1, 2], "sp": False, "mbs": 1, "zero": [1], "recompute": ["selective"], "schedule": "1f1b"}


def test_sweep_ranks_the_plans():
    r = rapidllm.sweep(HW_H100, LLAMA31_8B, 8, top=3, grid=GRID)
    s = r["summary"]
    assert s["run_type"] == "training" and s["points"] == len(r["points"]) == 6
    assert sum(s["by_status"].values()) == 6
    best = r["best"]
    assert len(best) == 3 and all(p["status"] == "ok" for p in best)
    rates = [p["tokens_per_s_per_gpu"] for p in best]
    assert rates == sorted(rates, reverse=True)
    ok = [p for p in r["points"] if p["status"] == "ok"]
    assert max(p["tokens_per_s_per_gpu"] for p in ok) == rates[0]
    for p in r["points"]:
        assert p["plan"]["tp"] * p["plan"]["pp"] * p["plan"]["dp"] == 8


def test_progress_is_called_and_its_exception_stops_the_sweep():
    calls = []
    rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid=GRID, progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (6, 6)

    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop(f"{done}/{total}")

    with pytest.raises(Stop, match="6/6"):
        rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid=GRID, progress=stop)


def test_vary_crosses_config_values_with_the_plans():
    r = rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid={"tp": [2], "pp": [1], "zero": [1], "recompute": ["selective"]},
                       vary={"seq_len": [2048, 4096]})
    assert r["varied_keys"] == ["model_param.seq_len"]
    by_len = {p["varied"]["model_param.seq_len"]: p for p in r["points"]}
    assert set(by_len) == {"2048", "4096"}
    assert by_len["4096"]["peak_memory_bytes"] > by_len["2048"]["peak_memory_bytes"]


def test_results_do_not_depend_on_threads_and_frame_has_plan_columns():
    one = rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid=GRID, jobs=1)
    assert rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid=GRID, jobs=2) == one
    df = rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid=GRID, as_frame=True)
    assert len(df) == 6
    assert {"tp", "pp", "dp", "schedule", "status", "tokens_per_s_per_gpu", "peak_memory_bytes"} <= set(df.columns)
    assert list(df["tp"]) == [p["plan"]["tp"] for p in one["points"]]


def test_dict_model_sweeps_like_its_file():
    from test_predict import LLAMA2_7B_DICT
    from conftest import LLAMA2_7B
    assert rapidllm.sweep(HW_H100, LLAMA2_7B_DICT, 8, grid=GRID) == rapidllm.sweep(HW_H100, LLAMA2_7B, 8, grid=GRID)


@pytest.mark.parametrize("grid, problem, hint", [
    ({"tpp": [2]}, "no plan axis 'tpp'", "did you mean 'tp'?"),
    ({"zero": [4]}, "zero = 4 is outside 0..3", ""),
    ({"schedule": ["1f2b"]}, "schedule: '1f2b' is not a pipeline schedule", "gpipe, 1f1b, interleaved_1f1b, zero_bubble, dualpipe"),
    ({"tp": ["two"]}, "tp: 'two' is not an integer", ""),
])
def test_bad_grid(grid, problem, hint):
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid=grid)
    assert (e.value.key_path, e.value.problem, e.value.hint) == ("grid", problem, hint)


def test_bad_vary_key_is_the_registry_error():
    with pytest.raises(rapidllm.ConfigError, match="unknown key"):
        rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid=GRID, vary={"model_param.seq_lenn": [1024]})
