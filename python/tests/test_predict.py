"""predict() and load_scenario(): configs from files, dicts and text, overrides as keywords
and set= in every form, Scenario reuse, the memory verdict, exports."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import rapidllm
from conftest import GEMM, HW_A100, HW_H100, LLAMA2_7B, LLAMA31_8B, LLAMA31_8B_INF

# The README's example: Llama-2-7B on one DGX A100, DP 8, ZeRO-1, micro-batch 1.
DEMO = dict(dp=8, micro_batch_size=1, dp_zero_stage=1)


def test_training_prediction_is_the_readme_example():
    r = rapidllm.predict(HW_A100, LLAMA2_7B, **DEMO)
    assert r["run_type"] == "training"
    assert r["num_gpus"] == 8
    assert r["step_time_s"] == pytest.approx(15.108, rel=1e-3)
    assert r["tokens_per_s_per_gpu"] == pytest.approx(4337.8, rel=1e-3)
    assert r["peak_memory_bytes"] / 2**30 == pytest.approx(64.07, rel=1e-3)
    assert r["fits_in_memory"] is True
    assert 0.0 < r["mfu"] < 1.0
    assert r["breakdown"]["compute.mlp"] > 0.0
    assert r["hardware_file"] == HW_A100 and r["model_file"] == LLAMA2_7B


def test_inference_and_gemm_predictions():
    inf = rapidllm.predict(HW_H100, LLAMA31_8B_INF, tp=2)
    assert inf["run_type"] == "inference" and inf["num_gpus"] == 2
    assert inf["ttft_s"] == inf["prefill_time_s"] > 0.0
    assert inf["total_time_s"] == pytest.approx(inf["prefill_time_s"] + inf["decode_time_s"])
    gemm = rapidllm.predict(HW_H100, GEMM)
    assert gemm["run_type"] == "gemm"
    assert gemm["flops"] == 2 * 8192**3
    assert gemm["achieved_flops_per_s"] == pytest.approx(gemm["flops"] / gemm["time_s"])


def test_every_override_form_gives_the_same_prediction():
    forms = [
        rapidllm.predict(HW_A100, LLAMA2_7B, **DEMO),
        rapidllm.predict(HW_A100, LLAMA2_7B, parallelism__train__dp=8, parallelism__micro_batch_size=1,
                         sw_param__dp_zero_stage=1),
        rapidllm.predict(HW_A100, LLAMA2_7B, set={"parallelism": {"train": {"dp": 8}, "micro_batch_size": 1},
                                                  "sw_param.dp_zero_stage": 1}),
        rapidllm.predict(HW_A100, LLAMA2_7B, set=["parallelism.train.dp=8", "parallelism.micro_batch_size=1",
                                                  "sw_param.dp_zero_stage=1"]),
    ]
    assert all(f["step_time_s"] == forms[0]["step_time_s"] for f in forms)
    assert all(f["config_hash"] == forms[0]["config_hash"] for f in forms)


def test_keywords_come_from_the_settings_registry():
    kw = rapidllm.keywords()
    keys = {s["key"] for s in rapidllm.settings()}
    assert kw["tp"] == "parallelism.tp" and kw["dp"] == "parallelism.train.dp"
    assert kw["parallelism__train__dp"] == "parallelism.train.dp"
    assert set(kw.values()) <= keys
    # `model` names the model config: execution_backend.model keeps its long form only.
    assert "model" not in kw and kw["execution_backend__model"] == "execution_backend.model"
    # A leaf that ends several settings (util) is no short keyword.
    assert "util" not in kw


def test_values_reach_the_loader_as_their_yaml_text():
    # Decode is bound by HBM bandwidth: the same 1 TB/s written four ways, against the default.
    ways = ["1 TB/s", 1e12, 10**12, "1e12"]
    slow = [rapidllm.predict(HW_H100, LLAMA31_8B_INF, set={"tech_param.DRAM.bandwidth": v}) for v in ways]
    assert len({(r["tpot_s"], r["config_hash"]) for r in slow}) == 1
    assert slow[0]["tpot_s"] > 2 * rapidllm.predict(HW_H100, LLAMA31_8B_INF)["tpot_s"]
    assert rapidllm.predict(HW_H100, GEMM, backward=True)["backward"] is True


# configs/models/llama2-7b.yaml as a dict.
LLAMA2_7B_DICT = {"model_param": {
    "mode": "LLM", "run_type": "training", "model_type": "llama", "tied_embeddings": False,
    "global_batch_size": 128, "seq_len": 4096, "hidden_dim": 4096, "intermediate_size": 11008,
    "vocab_size": 32000, "num_layers": 32,
    "attention": {"attention_type": "mha", "num_heads": 32, "use_flashattention": True}}}


def test_dict_and_text_configs_predict_as_their_files():
    from_files = rapidllm.predict(HW_A100, LLAMA2_7B, **DEMO)
    hw_text = rapidllm.ConfigText(Path(HW_A100).read_text(), name="a100 text")
    from_dicts = rapidllm.predict(hw_text, LLAMA2_7B_DICT, **DEMO)
    assert from_dicts["model_file"] == "<model dict>" and from_dicts["hardware_file"] == "a100 text"
    for key in ("step_time_s", "tokens_per_s", "peak_memory_bytes", "energy_j", "breakdown", "memory_breakdown",
                "plan", "overrides"):
        assert from_dicts[key] == from_files[key], key
    # The dict and the text are the scenario's: a Scenario from them predicts the same.
    assert rapidllm.predict(rapidllm.load_scenario(hw_text, LLAMA2_7B_DICT, **DEMO))["step_time_s"] == \
        from_files["step_time_s"]


def test_scenario_is_loaded_once_and_reused():
    s = rapidllm.load_scenario(HW_A100, LLAMA2_7B, **DEMO)
    assert s.workload == "training" and s.model_file == LLAMA2_7B and s.hardware_file == HW_A100
    assert rapidllm.predict(s) == rapidllm.predict(HW_A100, LLAMA2_7B, **DEMO)
    with pytest.raises(rapidllm.ConfigError, match="a Scenario already holds"):
        rapidllm.predict(s, tp=2)


def test_a_workload_that_does_not_fit_warns_or_raises():
    with pytest.warns(rapidllm.RapidllmWarning, match="does not fit in memory: .* GiB per GPU on pipeline stage 0"):
        r = rapidllm.predict(HW_A100, LLAMA2_7B)
    assert r["fits_in_memory"] is False
    with pytest.raises(rapidllm.InfeasibleError, match=r"does not fit in memory.*\(fail_if_oom\)"):
        rapidllm.predict(HW_A100, LLAMA2_7B, fail_if_oom=True)


def test_library_warnings_become_rapidllm_warnings():
    # 32 layers over pp 3: an uneven split the library warns about.
    with pytest.warns(rapidllm.RapidllmWarning, match="do not split evenly"):
        rapidllm.predict(HW_H100, LLAMA31_8B, pp=3, dp=1, tp=2, micro_batch_size=1)


def test_trace_export(tmp_path: Path):
    trace = tmp_path / "step.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rapidllm.RapidllmWarning)
        r = rapidllm.predict(HW_H100, LLAMA31_8B, tp=2, pp=2, dp=1, global_batch_size=8, mb=4,
                             set={"execution_backend.model": "astra",
                                  "execution_backend.astra.mode": "full_astrasim_hierarchical"},
                             trace=trace, trace_ranks="0-1")
    events = json.loads(trace.read_text())["traceEvents"]
    assert r["execution"]["mode"] == "full_astrasim_hierarchical"
    assert {e["pid"] for e in events if e["ph"] == "X"} == {0, 1}


def test_numpy_values_are_plain_numbers():
    import numpy as np
    a = rapidllm.predict(HW_H100, LLAMA31_8B_INF, tp=np.int64(2), set={"tech_param.DRAM.bandwidth": np.float64(2e12)})
    b = rapidllm.predict(HW_H100, LLAMA31_8B_INF, tp=2, set={"tech_param.DRAM.bandwidth": 2e12})
    assert a == b
    assert rapidllm.sweep(HW_H100, LLAMA31_8B, 8, grid={"tp": np.array([2, 4]), "sp": np.bool_(True)})["points"]
