"""Config overrides from Python: ``set=`` (nested or dotted dicts, or ``"a.b=v"`` texts) and
keyword arguments, turned into the ``a.b.c=value`` texts of the CLI's ``--set``.

The keywords come from the settings registry (``rapidllm config list``), not from a list
kept here: every setting can be given by its path with ``__`` for ``.``
(``parallelism__train__dp=8``), and by its last key alone when no other setting ends in
that key (``tp=4``, ``dp=8``, ``seq_len=4096``, ``max_events=1e6``). A name that is also an
argument of the function (``model``, ``backend``) keeps its long form.
"""

from __future__ import annotations

import difflib
import json
import math
from collections import Counter
from functools import lru_cache
from typing import Any, Iterable, Mapping

from . import _core
from ._errors import argument_error

_reserved: frozenset[str] = frozenset()


def reserve(names: Iterable[str]) -> None:
    """Names of the API functions' own arguments: never short keywords for settings."""
    global _reserved
    _reserved = _reserved | frozenset(names)
    _keyword_map.cache_clear()


@lru_cache(maxsize=1)
def _keyword_map() -> dict[str, str]:
    settings = [s["key"] for s in _core.settings()]
    leaves = Counter(k.rsplit(".", 1)[-1] for k in settings)
    out: dict[str, str] = {}
    for key in settings:
        if "[]" in key or "<" in key:
            continue  # list items and keys of your choosing: use set= with the real path
        leaf = key.rsplit(".", 1)[-1]
        if leaves[leaf] == 1 and leaf.isidentifier() and leaf not in _reserved:
            out[leaf] = key
        long_form = key.replace(".", "__")
        if long_form.isidentifier():
            out[long_form] = key
    return out


def keywords() -> dict[str, str]:
    """Every override keyword and the setting it sets, e.g. ``{"tp": "parallelism.tp", ...}``."""
    return dict(_keyword_map())


def plain(value: Any) -> Any:
    """A numpy scalar (np.int64, np.float64, np.bool_) as the Python number it holds."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


def value_text(value: Any) -> str:
    """A Python value as the YAML text ``--set key=TEXT`` would carry."""
    value = plain(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)  # the loader refuses it with the key's own message
        return float.__repr__(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, Mapping)):
        return json.dumps(value)  # JSON flow style is YAML
    return str(value)


def _flatten(prefix: str, value: Any, out: list[str]) -> None:
    if isinstance(value, Mapping) and value:
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out.append(f"{prefix}={value_text(value)}")


def setting_key(name: str, function: str) -> str:
    """The setting a keyword names; ConfigError (with a "did you mean") when none."""
    known = _keyword_map()
    if name in known:
        return known[name]
    close = difflib.get_close_matches(name, list(known), n=1)
    raise argument_error(function, name, "not an argument nor a setting keyword",
                         f"did you mean '{close[0]}'?" if close else
                         "rapidllm.keywords() lists them; any setting also goes in set={'a.b.c': value}")


def overrides(set: Any, kwargs: Mapping[str, Any], function: str) -> list[str]:
    """The ``a.b=v`` texts of ``set`` (first) and the keyword arguments (after, so they win)."""
    out: list[str] = []
    if set is None:
        pass
    elif isinstance(set, str):
        out.append(set)
    elif isinstance(set, Mapping):
        _flatten("", set, out)
    elif isinstance(set, (list, tuple)):
        for item in set:
            if not isinstance(item, str):
                raise TypeError(f"{function}(): set= items are 'a.b=value' strings, not {type(item).__name__}")
            out.append(item)
    else:
        raise TypeError(f"{function}(): set= is a dict or a list of 'a.b=value' strings, not {type(set).__name__}")
    for name, value in kwargs.items():
        out.append(f"{setting_key(name, function)}={value_text(value)}")
    return out
