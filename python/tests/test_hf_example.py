"""import_hf() and the examples/ script reproducing RAPID-LLM's Qwen2.5-3B tutorial."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import rapidllm
from conftest import HW_H100, ROOT

QWEN3B = "tests/data/hf/Qwen2.5-3B/config.json"


def test_import_hf_matches_the_cli(tmp_path: Path, cli: str):
    model = rapidllm.import_hf(QWEN3B, run_type="inference", seq_len=1536, decode_len=512)
    assert model.architecture == "Qwen2ForCausalLM"
    assert model.total_parameters == pytest.approx(3.09e9, rel=0.01)  # the model card's 3.09B
    yaml = tmp_path / "qwen.yaml"
    subprocess.run([cli, "import-hf", QWEN3B, "--run-type", "inference", "--seq-len", "1536", "--decode-len", "512",
                    "-o", str(yaml)], cwd=ROOT, check=True, capture_output=True)
    assert model.text == yaml.read_text()
    # The imported model predicts as the CLI's file does (model_file aside: the YAML's name).
    py = rapidllm.predict(HW_H100, model, tp=2)
    via_file = rapidllm.predict(HW_H100, yaml, tp=2)
    assert {k: v for k, v in py.items() if k != "model_file"} == {k: v for k, v in via_file.items() if k != "model_file"}


def test_import_hf_from_a_dict_and_its_errors():
    config = json.loads(Path(QWEN3B).read_text())
    assert rapidllm.import_hf(config).text.startswith("#")
    del config["num_hidden_layers"]
    with pytest.raises(rapidllm.ConfigError, match="num_hidden_layers"):
        rapidllm.import_hf(config)
    with pytest.raises(rapidllm.ConfigError, match="run_type"):
        rapidllm.import_hf(QWEN3B, run_type="serving")
    with pytest.raises(rapidllm.ConfigError):
        rapidllm.import_hf("tests/data/hf/none/config.json")


def test_example_script_runs_and_plots(tmp_path: Path):
    # The package this suite imports, for the script run from another folder.
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(Path(rapidllm.__file__).resolve().parents[1]))
    out = subprocess.run([sys.executable, str(ROOT / "examples/qwen2.5_3b_tp.py"), "--out", str(tmp_path)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    rows = {line.split()[0]: line.split() for line in out.stdout.splitlines() if line.split()[:1] in (["1"], ["2"])}
    assert set(rows) == {"1", "2"}
    # Columns: TP, TTFT ms, TPOT ms, decode tok/s, GiB/GPU, energy J. Splitting a 3B model
    # halves the weights per GPU and shortens the prefill; at batch 1 the decode step is
    # mostly per-kernel overheads, so two GPUs gain little per token and spend more energy.
    one, two = ([float(x) for x in rows[tp][1:]] for tp in ("1", "2"))
    assert two[0] < one[0]
    assert two[3] == pytest.approx(one[3] / 2, rel=0.1)
    assert two[4] > one[4]
    for png in ("qwen2.5_3b_tp.png", "breakdown.png", "memory.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
