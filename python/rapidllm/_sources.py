"""Where a config comes from: a file path, a Python dict, or YAML text.

A dict is dumped as indented JSON (which YAML reads) and loaded by the same C++ loader as a
file, so a mistake in it is reported with the same key path, problem and hint; its "file"
is the dict's name (``<hardware dict>``), its line the line of the dumped JSON.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Mapping, Tuple, Union

from . import _core
from ._errors import RapidllmWarning

Source = Tuple[str, str, str]  # (kind "file" | "text", path or text, name)


@dataclass(frozen=True)
class ConfigText:
    """A config held as YAML (or JSON) text; ``name`` stands for the file in errors and reports."""

    text: str
    name: str = "<text>"


@dataclass(frozen=True)
class HfModel(ConfigText):
    """A model YAML converted from a Hugging Face ``config.json`` (:func:`rapidllm.import_hf`);
    usable wherever a model config is taken."""

    architecture: str = ""
    warnings: Tuple[str, ...] = field(default_factory=tuple)
    total_parameters: float = 0.0   # every weight (tied embeddings once)
    active_parameters: float = 0.0  # what one token passes through (= total when dense)


ConfigLike = Union[str, "os.PathLike[str]", Mapping[str, Any], ConfigText]


def to_source(config: ConfigLike, kind: str) -> Source:
    """The (kind, value, name) triple the compiled module loads; ``kind`` names a dict."""
    if isinstance(config, ConfigText):
        return ("text", config.text, config.name)
    if isinstance(config, Mapping):
        return ("text", json.dumps(config, indent=2, allow_nan=False), f"<{kind} dict>")
    if isinstance(config, (str, os.PathLike)):
        return ("file", os.fspath(config), "")
    raise TypeError(f"a {kind} config is a file path, a dict or rapidllm.ConfigText, not {type(config).__name__}")


class SourceFiles:
    """Context manager giving file paths for sources the C++ API reads by path only (the
    sweep reloads the configs per variant): text is written to a temporary folder, named
    after the source, and removed on exit."""

    def __init__(self, *sources: Source) -> None:
        self._sources = sources
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> list[str]:
        paths = []
        for i, (kind, value, name) in enumerate(self._sources):
            if kind == "file":
                paths.append(value)
                continue
            if self._dir is None:
                self._dir = tempfile.TemporaryDirectory(prefix="rapidllm-")
            stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip("_") or f"config{i}"
            path = os.path.join(self._dir.name, f"{i}-{stem}.yaml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(value)
            paths.append(path)
        return paths

    def __exit__(self, *exc: object) -> None:
        if self._dir is not None:
            self._dir.cleanup()


def import_hf(config: Union[str, "os.PathLike[str]", Mapping[str, Any]], *, run_type: str = "training",
              global_batch_size: int | None = None, seq_len: int | None = None, decode_len: int | None = None,
              flash_attention: bool = True) -> HfModel:
    """Converts a Hugging Face ``config.json`` (a path or the parsed dict) into a model config,
    as ``rapidllm import-hf`` does.

    Args:
        config: the config.json file, or its contents as a dict.
        run_type: ``"training"`` or ``"inference"``.
        global_batch_size: sequences per global batch (default 128 training, 1 inference).
        seq_len: tokens per sequence (inference: prompt + decode_len); default
            min(max_position_embeddings, 8192).
        decode_len: tokens generated per sequence (inference; default 1024).
        flash_attention: False models unfused attention.

    Facts the schema cannot express are kept as ``# WARNING:`` comments in the YAML, in
    ``.warnings`` and raised as :class:`RapidllmWarning`.

    Raises:
        ConfigError: malformed JSON, a missing field, an unsupported architecture.
    """
    import warnings

    if isinstance(config, ConfigText) or not isinstance(config, (Mapping, str, os.PathLike)):
        raise TypeError(f"config is a config.json path or dict, not {type(config).__name__}")
    source = to_source(config, "config.json")
    from ._api import call  # the library's log passed on, as for every call
    r = call(_core.import_hf, source, run_type, global_batch_size, seq_len, decode_len, flash_attention)
    for w in r["warnings"]:
        warnings.warn(w, RapidllmWarning, stacklevel=2)
    return HfModel(text=r["yaml"], name=f"{source[1] if source[0] == 'file' else source[2]} ({run_type} import)",
                   architecture=r["architecture"], warnings=tuple(r["warnings"]),
                   total_parameters=r["total_parameters"], active_parameters=r["active_parameters"])
