"""Errors: each C++ error arrives as a rapidllm exception whose message is the CLI's (after
"rapidllm: error: "), with the file, line, key path and hint as attributes."""

from __future__ import annotations

from pathlib import Path

import pytest
import rapidllm
from conftest import HW_H100, LLAMA31_8B


def cli_message(cli_error, *args: str) -> str:
    code, stderr = cli_error("predict", *args)
    assert code == 2
    assert stderr.startswith("rapidllm: error: ")
    return stderr[len("rapidllm: error: "):].rstrip("\n")


def test_errors_are_a_hierarchy():
    assert issubclass(rapidllm.ConfigError, rapidllm.Error) and issubclass(rapidllm.ConfigError, ValueError)
    assert issubclass(rapidllm.InfeasibleError, rapidllm.Error) and issubclass(rapidllm.InfeasibleError, RuntimeError)


def test_unknown_override_key(cli_error):
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.predict(HW_H100, LLAMA31_8B, set={"parallelism.tpp": 4})
    assert e.value.key_path == "parallelism.tpp"
    assert e.value.override == "parallelism.tpp=4"
    assert e.value.problem == "unknown key"
    assert e.value.hint == "did you mean 'tp'?"
    assert str(e.value) == cli_message(cli_error, "--hardware", HW_H100, "--model", LLAMA31_8B,
                                       "--set", "parallelism.tpp=4")


def test_bad_override_value(cli_error):
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.predict(HW_H100, LLAMA31_8B, tp="four")
    assert e.value.key_path == "parallelism.tp"
    assert "expected an integer" in e.value.problem and e.value.hint == "write a whole number, e.g. 8"
    assert str(e.value) == cli_message(cli_error, "--hardware", HW_H100, "--model", LLAMA31_8B,
                                       "--set", "parallelism.tp=four")


def test_bad_key_in_a_file_has_its_line(tmp_path: Path, cli_error):
    bad = tmp_path / "bad.yaml"
    bad.write_text("model_param:\n  mode: LLM\n  num_layerz: 3\n")
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.predict(HW_H100, bad)
    assert (e.value.file, e.value.line, e.value.column) == (str(bad), 3, 3)
    assert e.value.key_path == "model_param.num_layerz" and e.value.hint == "did you mean 'num_layers'?"
    assert str(e.value) == cli_message(cli_error, "--hardware", HW_H100, "--model", str(bad))


def test_bad_key_in_a_dict_names_the_dict():
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.predict(HW_H100, {"model_param": {"mode": "LLM", "num_layerz": 3}})
    assert e.value.file == "<model dict>" and e.value.line == 4  # the line of the dumped JSON
    assert e.value.key_path == "model_param.num_layerz" and e.value.hint == "did you mean 'num_layers'?"
    assert str(e.value).startswith("<model dict>:4:")


def test_missing_file(cli_error):
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.predict("configs/hardware/nope.yaml", LLAMA31_8B)
    assert e.value.file == "configs/hardware/nope.yaml"
    assert "no such file" in e.value.problem
    assert str(e.value) == cli_message(cli_error, "--hardware", "configs/hardware/nope.yaml", "--model", LLAMA31_8B)


def test_hf_config_as_a_model_says_to_import_it():
    with pytest.raises(rapidllm.ConfigError, match="convert it first: rapidllm import-hf"):
        rapidllm.predict(HW_H100, "tests/data/hf/Qwen2.5-7B/config.json")


def test_unknown_keyword_suggests_the_closest():
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.predict(HW_H100, LLAMA31_8B, tpp=2)
    assert e.value.file == "predict()" and e.value.key_path == "tpp" and e.value.hint == "did you mean 'tp'?"
    assert str(e.value) == "predict(): tpp: not an argument nor a setting keyword\n  hint: did you mean 'tp'?"


def test_infeasible_scenario(cli_error):
    with pytest.raises(rapidllm.InfeasibleError) as e:
        rapidllm.predict(HW_H100, LLAMA31_8B, tp=3)
    code, stderr = cli_error("predict", "--hardware", HW_H100, "--model", LLAMA31_8B, "--set", "parallelism.tp=3")
    assert code == 1 and stderr == f"rapidllm: cannot run this scenario: {e.value}\n"
    assert "not divisible by tp = 3" in str(e.value)


def test_explaining_a_row_that_is_not_a_training_row(cli_error):
    with pytest.raises(rapidllm.ConfigError) as e:
        rapidllm.validation_scenario("I0108")  # an inference row
    assert e.value.key_path == "--explain" and "no training row 'I0108'" in e.value.problem
    code, stderr = cli_error("validate", "--explain", "I0108")
    assert code == 2 and "no training row 'I0108'" in stderr
    with pytest.raises(rapidllm.InfeasibleError, match="no shipped device config"):
        rapidllm.validation_scenario("T0011")  # a V100 row


def test_wrong_source_type_is_a_type_error():
    with pytest.raises(TypeError, match="file path, a dict or rapidllm.ConfigText"):
        rapidllm.predict(42, LLAMA31_8B)
    with pytest.raises(TypeError, match="set= is a dict"):
        rapidllm.predict(HW_H100, LLAMA31_8B, set=3)
