"""rapidllm.plot: every plot returns a Figure and writes a PNG."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import rapidllm
import rapidllm.plot
from conftest import HW_A100, HW_H100, LLAMA2_7B, LLAMA31_8B, LLAMA31_8B_INF
from matplotlib.figure import Figure

PNG = b"\x89PNG\r\n\x1a\n"


def written(fig: Figure, path: Path) -> bool:
    return isinstance(fig, Figure) and path.read_bytes()[:8] == PNG and path.stat().st_size > 5000


def test_breakdown_and_memory(tmp_path: Path):
    train = rapidllm.predict(HW_A100, LLAMA2_7B, dp=8, micro_batch_size=1, dp_zero_stage=1)
    inf = rapidllm.predict(HW_H100, LLAMA31_8B_INF, tp=2)
    assert written(rapidllm.plot.breakdown(train, path=tmp_path / "b.png"), tmp_path / "b.png")
    fig = rapidllm.plot.breakdown([inf, inf], ["a", "b"], path=tmp_path / "bi.png")
    assert written(fig, tmp_path / "bi.png")
    assert [a.get_xlabel() for a in fig.axes] == ["prefill time by category (s)", "decode time by category (s)"]
    assert [t.get_text() for t in fig.axes[1].get_yticklabels()] == ["a", "b"]
    assert written(rapidllm.plot.memory([train, inf], ["train", "inf"], path=tmp_path / "m.png"), tmp_path / "m.png")
    with pytest.raises(ValueError, match="labels"):
        rapidllm.plot.memory([train, inf], ["one"])


def test_sweep_scatter(tmp_path: Path):
    r = rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid={"tp": [1, 2, 4], "pp": [1, 2]})
    fig = rapidllm.plot.sweep(r, path=tmp_path / "s.png")
    assert written(fig, tmp_path / "s.png")
    assert "Pareto front" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_validation_scatter(tmp_path: Path):
    fig = rapidllm.plot.validation(rapidllm.validate(source="nccl"), path=tmp_path / "v.png")
    assert written(fig, tmp_path / "v.png")


def test_timeline_from_a_trace(tmp_path: Path):
    trace = tmp_path / "step.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rapidllm.RapidllmWarning)
        rapidllm.predict(HW_H100, LLAMA31_8B, tp=2, pp=2, dp=1, global_batch_size=8, mb=4,
                         set={"execution_backend.model": "astra",
                              "execution_backend.astra.mode": "full_astrasim_hierarchical"},
                         trace=trace, trace_ranks="0-3")
    fig = rapidllm.plot.timeline(trace, path=tmp_path / "t.png")
    assert written(fig, tmp_path / "t.png")
    assert any("GPU 0" in t.get_text() for t in fig.axes[0].get_yticklabels())
    with pytest.raises(ValueError, match="no complete"):
        rapidllm.plot.timeline({"traceEvents": []})
