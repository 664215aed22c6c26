"""Python and the CLI give identical numbers for the same inputs: every command's JSON,
compared whole (the same renderer produces both, so any difference is a binding bug)."""

from __future__ import annotations

import rapidllm
from conftest import GEMM, HW_A100, HW_H100, LLAMA2_7B, LLAMA31_8B, LLAMA31_8B_INF


def test_predict_training(cli_json):
    py = rapidllm.predict(HW_A100, LLAMA2_7B, dp=8, micro_batch_size=1, dp_zero_stage=1)
    assert py == cli_json("predict", "--hardware", HW_A100, "--model", LLAMA2_7B, "--set", "parallelism.train.dp=8",
                          "--set", "parallelism.micro_batch_size=1", "--set", "sw_param.dp_zero_stage=1")


def test_predict_training_pipelined(cli_json):
    py = rapidllm.predict(HW_H100, LLAMA31_8B, set={"parallelism": {"tp": 2, "pp": 2, "train": {"dp": 2}},
                                                    "parallelism.pp_schedule": "interleaved_1f1b", "parallelism.vpp": 2})
    assert py == cli_json("predict", "--hardware", HW_H100, "--model", LLAMA31_8B, "--set", "parallelism.tp=2",
                          "--set", "parallelism.pp=2", "--set", "parallelism.train.dp=2",
                          "--set", "parallelism.pp_schedule=interleaved_1f1b", "--set", "parallelism.vpp=2")


def test_predict_inference_and_gemm(cli_json):
    assert rapidllm.predict(HW_H100, LLAMA31_8B_INF, tp=2) == \
        cli_json("predict", "--hardware", HW_H100, "--model", LLAMA31_8B_INF, "--set", "parallelism.tp=2")
    assert rapidllm.predict(HW_H100, GEMM, set={"tech_param.DRAM.bandwidth": "1.5TB/s"}) == \
        cli_json("predict", "--hardware", HW_H100, "--model", GEMM, "--set", "tech_param.DRAM.bandwidth=1.5TB/s")


def test_collective(cli_json):
    for backend in ("analytical", "flow"):
        py = rapidllm.collective(HW_H100, "all_reduce", "1GiB", 16, backend=backend)
        assert py == cli_json("collective", "--hardware", HW_H100, "--op", "all_reduce", "--bytes", "1GiB",
                              "--ranks", "16", "--backend", backend)
    assert rapidllm.collective(HW_H100, "all_gather", 2**26, 8, dim="nvlink") == \
        cli_json("collective", "--hardware", HW_H100, "--op", "all_gather", "--bytes", "67108864", "--ranks", "8",
                 "--dim", "nvlink")


def test_sweep(cli_json):
    py = rapidllm.sweep(HW_H100, LLAMA31_8B, 16, top=3, grid={"tp": [1, 2], "zero": [1], "recompute": "selective"},
                        vary={"tech_param.DRAM.bandwidth": ["2 TB/s", "3.35 TB/s"]}, jobs=2)
    assert py == cli_json("sweep", "--hardware", HW_H100, "--model", LLAMA31_8B, "--gpus", "16", "--top", "3",
                          "--grid", "tp=1,2", "--grid", "zero=1", "--grid", "recompute=selective",
                          "--vary", "tech_param.DRAM.bandwidth=2 TB/s,3.35 TB/s")


def test_validate(cli_json):
    assert rapidllm.validate(source="nccl") == cli_json("validate", "--source", "nccl")


def test_validate_explain(cli_json):
    assert rapidllm.predict(rapidllm.validation_scenario("T0026")) == cli_json("validate", "--explain", "T0026")


def test_serve(cli_json):
    py = rapidllm.serve(HW_H100, LLAMA31_8B_INF, rate=20, requests=60, isl=(100, 400), osl=(20, 60), seed=3,
                        slo_ttft_s=0.2, tp=2)
    assert py == cli_json("serve", "--hardware", HW_H100, "--model", LLAMA31_8B_INF, "--set", "parallelism.tp=2",
                          "--rate", "20", "--requests", "60", "--isl", "100..400", "--osl", "20..60", "--seed", "3",
                          "--slo-ttft", "0.2")
