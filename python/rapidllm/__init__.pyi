# Type stubs of the public `rapidllm` API (docs/python.md). Units: seconds, bytes, bytes/s,
# joules, watts. tests/test_stubs.py checks these against the functions' real signatures.
import os
from typing import Any, Callable, Mapping, Optional, Sequence, Tuple, Union

from ._core import Scenario as Scenario

__version__: str

class Error(Exception): ...

class ConfigError(Error, ValueError):
    file: str
    line: int
    column: int
    override: str
    key_path: str
    problem: str
    hint: str
    def __init__(self, message: str, *, file: str = ..., line: int = ..., column: int = ..., override: str = ...,
                 key_path: str = ..., problem: str = ..., hint: str = ...) -> None: ...

class InfeasibleError(Error, RuntimeError): ...
class RapidllmWarning(UserWarning): ...

class ConfigText:
    text: str
    name: str
    def __init__(self, text: str, name: str = ...) -> None: ...

class HfModel(ConfigText):
    architecture: str
    warnings: Tuple[str, ...]
    total_parameters: float
    active_parameters: float

_Path = Union[str, os.PathLike[str]]
ConfigLike = Union[_Path, Mapping[str, Any], ConfigText]
Overrides = Union[None, str, Mapping[str, Any], Sequence[str]]

def load_scenario(hardware: ConfigLike, model: ConfigLike, *, set: Overrides = ..., **overrides: Any) -> Scenario: ...
def predict(hardware: Union[ConfigLike, Scenario], model: Optional[ConfigLike] = ..., *, set: Overrides = ...,
            trace: Optional[_Path] = ..., trace_ranks: Optional[str] = ..., chakra: Optional[_Path] = ...,
            fail_if_oom: bool = ..., **overrides: Any) -> dict[str, Any]: ...
def collective(hardware: ConfigLike, op: str, bytes: Union[int, float, str], ranks: int, *, dim: Optional[str] = ...,
               backend: str = ..., progress: Optional[Callable[[float, float], None]] = ..., set: Overrides = ...,
               **overrides: Any) -> dict[str, Any]: ...
def sweep(hardware: ConfigLike, model: ConfigLike, gpus: int, *, top: int = ..., jobs: int = ...,
          grid: Optional[Mapping[str, Any]] = ..., vary: Optional[Mapping[str, Sequence[Any]]] = ...,
          max_ttft_s: Optional[float] = ..., max_tpot_s: Optional[float] = ..., refine: int = ...,
          progress: Optional[Callable[[int, int], None]] = ..., as_frame: bool = ..., set: Overrides = ...,
          **overrides: Any) -> Any: ...
def validate(*, data_dir: Optional[_Path] = ..., configs_dir: Optional[_Path] = ..., source: str = ...,
             as_frame: bool = ...) -> Any: ...
def validation_scenario(row: str, *, data_dir: Optional[_Path] = ..., configs_dir: Optional[_Path] = ...) -> Scenario: ...
def serve(hardware: Union[ConfigLike, Scenario], model: Optional[ConfigLike] = ..., *, rate: Optional[float] = ...,
          concurrency: Optional[int] = ..., trace_file: Optional[_Path] = ..., offline: bool = ...,
          isl: Union[int, Tuple[int, int], None] = ..., osl: Union[int, Tuple[int, int], None] = ...,
          requests: int = ..., duration_s: Optional[float] = ..., seed: Optional[int] = ..., router: str = ...,
          slo_ttft_s: Optional[float] = ..., slo_tpot_s: Optional[float] = ..., engine: str = ...,
          max_num_seqs: Optional[int] = ..., max_num_batched_tokens: Optional[int] = ...,
          block_size: Optional[int] = ..., kv_memory_fraction: Optional[float] = ...,
          chunked_prefill: Optional[bool] = ..., policy: Optional[str] = ...,
          reserve_full_sequence: Optional[bool] = ..., iteration_overhead_s: Optional[float] = ...,
          prefill: Any = ..., decode: Any = ..., steady_state: bool = ..., keep_requests: bool = ...,
          trace_out: Optional[_Path] = ..., as_frame: bool = ..., set: Overrides = ..., **overrides: Any) -> Any: ...
def settings() -> list[dict[str, Any]]: ...
def engine_profiles() -> list[str]: ...
def keywords() -> dict[str, str]: ...
def to_frame(results: Any) -> Any: ...
def import_hf(config: Union[_Path, Mapping[str, Any]], *, run_type: str = ..., global_batch_size: Optional[int] = ...,
              seq_len: Optional[int] = ..., decode_len: Optional[int] = ..., flash_attention: bool = ...) -> HfModel: ...
