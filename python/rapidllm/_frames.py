"""pandas DataFrames of rapidllm's results, when pandas is importable (Debian:
python3-pandas). Nested fields become dotted columns (``breakdown.compute.mlp``), except
a sweep point's plan and varied keys, which become plain columns (``tp``, ``pp``, and the
varied key's path)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as e:  # the caller asked for a frame: say how to get one
        raise ImportError("rapidllm: DataFrames need pandas (Debian: apt-get install python3-pandas); "
                          "without it, use the dicts the functions return") from e
    return pandas


def frame(records: Iterable[Mapping[str, Any]]) -> Any:
    """One row per record, nested dicts flattened into dotted column names."""
    return _pandas().json_normalize(list(records), sep=".")


def to_frame(results: Any) -> Any:
    """A DataFrame of one prediction (dict), several (list of dicts) or a sweep result
    (its points): one row each, nested fields as dotted columns."""
    if isinstance(results, Mapping):
        if "points" in results and "summary" in results:
            return sweep_frame(results)
        results = [results]
    return frame(results)


def sweep_frame(result: Mapping[str, Any]) -> Any:
    """A sweep's points, one row each: index, status, reason, the plan axes (tp, sp, cp,
    ep, pp, dp, schedule, vpp, micro_batch_size, zero_stage, recompute, placement), the
    varied keys, and the predicted figures (time_s, tokens_per_s_per_gpu, mfu,
    peak_memory_bytes, energy_j, ...)."""
    df = frame(result["points"])
    return df.rename(columns=lambda c: c.split(".", 1)[1] if c.startswith(("plan.", "varied.")) else c)
