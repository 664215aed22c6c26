"""to_frame(): predictions as DataFrame rows with dotted columns."""

from __future__ import annotations

import pytest
import rapidllm
from conftest import HW_H100, LLAMA31_8B_INF


def test_predictions_become_rows():
    rs = [rapidllm.predict(HW_H100, LLAMA31_8B_INF, tp=tp) for tp in (1, 2)]
    df = rapidllm.to_frame(rs)
    assert list(df["num_gpus"]) == [1, 2]
    assert list(df["tpot_s"]) == [r["tpot_s"] for r in rs]
    assert df["decode_breakdown.compute.mlp"].iloc[1] == rs[1]["decode_breakdown"]["compute.mlp"]
    assert len(rapidllm.to_frame(rs[0])) == 1


def test_sweep_result_becomes_its_points():
    r = rapidllm.sweep(HW_H100, LLAMA31_8B_INF, 2, grid={"tp": [1, 2]})
    df = rapidllm.to_frame(r)
    assert len(df) == len(r["points"]) and "tp" in df.columns


def test_no_pandas_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch):
    import builtins
    real = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas":
            raise ImportError("no pandas")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(ImportError, match="python3-pandas"):
        rapidllm.to_frame({"a": 1})
