"""Shared fixtures: the repository's configs, the built CLI, and a runner that returns the
CLI's JSON for the parity tests. CTest sets RAPIDLLM_CLI and PYTHONPATH (tests/CMakeLists.txt);
run by hand, the release build's CLI is used."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HW_A100 = "configs/hardware/A100_SXM4_80GB.yaml"
HW_H100 = "configs/hardware/H100_SXM5_80GB.yaml"
LLAMA2_7B = "configs/models/llama2-7b.yaml"
LLAMA31_8B = "configs/models/llama3.1-8b.yaml"
LLAMA31_8B_INF = "tests/data/rapid-llm-reference/model/Llama3.1-8B_inf.yaml"
GEMM = "configs/examples/gemm_8192_bf16.yaml"


def pytest_configure(config: pytest.Config) -> None:
    # The library's warnings (uneven pipeline splits in the validation set, ...) are expected
    # here; the tests that are about them catch them with pytest.warns, which sees them still.
    config.addinivalue_line("filterwarnings", "ignore::rapidllm.RapidllmWarning")


@pytest.fixture(autouse=True)
def _in_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the configs are named relative to the root, as in the CLI tests


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("RAPIDLLM_CLI", str(ROOT / "build/release/apps/rapidllm/rapidllm"))
    assert os.access(path, os.X_OK), f"no rapidllm CLI at {path} (build the release preset)"
    return path


@pytest.fixture(scope="session")
def cli_json(cli: str):
    """cli_json(args...) -> the parsed stdout of `rapidllm ARGS --format json`."""
    def run(*args: str) -> dict:
        out = subprocess.run([cli, *args, "--format", "json"], cwd=ROOT, capture_output=True, text=True, check=True)
        return json.loads(out.stdout)
    return run


@pytest.fixture(scope="session")
def cli_error(cli: str):
    """cli_error(args...) -> (exit code, stderr) of a CLI run that must fail."""
    def run(*args: str) -> tuple[int, str]:
        out = subprocess.run([cli, *args], cwd=ROOT, capture_output=True, text=True)
        assert out.returncode != 0, out.stdout
        return out.returncode, out.stderr
    return run
