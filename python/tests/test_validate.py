"""validate(): the published measurements compared, as a dict and as a DataFrame."""

from __future__ import annotations

from pathlib import Path

import pytest
import rapidllm


def test_filtered_run_compares_cases():
    r = rapidllm.validate(source="nccl")
    assert r["run_type"] == "validate"
    cases = r["cases"]
    assert cases and all("nccl" in c["source"].lower() for c in cases)
    compared = [c for c in cases if c["status"] == "compared"]
    assert compared
    for c in compared:
        assert c["error_pct"] == pytest.approx(100.0 * (c["predicted"] - c["measured"]) / c["measured"])
    assert sum(s["compared"] for s in r["summary"]) == len(compared)


def test_frame_of_cases():
    df = rapidllm.validate(source="nccl", as_frame=True)
    assert {"source", "metric", "measured", "predicted", "error_pct", "status"} <= set(df.columns)
    assert len(df) == len(rapidllm.validate(source="nccl")["cases"])


def test_missing_data_folder(tmp_path: Path):
    with pytest.raises(rapidllm.Error):
        rapidllm.validate(data_dir=tmp_path / "none")
