"""validate(): the published measurements compared, as a dict and as a DataFrame."""

from __future__ import annotations

from pathlib import Path

import pytest
import rapidllm


@pytest.fixture(scope="module")
def nccl() -> dict:
    return rapidllm.validate(source="nccl")  # about a second whatever the filter: run once


def test_filtered_run_compares_cases(nccl):
    r = nccl
    assert r["run_type"] == "validate"
    cases = r["cases"]
    assert cases and all("nccl" in c["source"].lower() for c in cases)
    compared = [c for c in cases if c["status"] == "compared"]
    assert compared
    for c in compared:
        assert c["error_pct"] == pytest.approx(100.0 * (c["predicted"] - c["measured"]) / c["measured"])
    assert sum(s["compared"] for s in r["summary"]) == len(compared)


def test_frame_of_cases(nccl):
    df = rapidllm.validate(source="nccl", as_frame=True)
    assert {"source", "metric", "measured", "predicted", "error_pct", "status"} <= set(df.columns)
    assert list(df["row_id"]) == [c["row_id"] for c in nccl["cases"]]


def test_missing_data_folder(tmp_path: Path):
    with pytest.raises(rapidllm.Error):
        rapidllm.validate(data_dir=tmp_path / "none")
