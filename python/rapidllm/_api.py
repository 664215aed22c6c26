"""The rapidllm functions. Each runs the C++ facade and returns what ``rapidllm <command>
--format json`` prints, parsed: the same renderer makes both, so a script and the CLI see
the same numbers. Units are SI throughout: seconds, bytes, bytes/s, joules, watts.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import re
import warnings
from typing import Any, Callable, Iterable, Mapping, Sequence, Tuple, Union

from . import _core, _frames, _overrides
from ._errors import InfeasibleError, RapidllmWarning, argument_error
from ._sources import ConfigLike, SourceFiles, to_source

Scenario = _core.Scenario
_GiB = 1024.0**3
_log = logging.getLogger("rapidllm")


def call(function: Callable[..., Any], *args: Any) -> Any:
    """Runs a C++ call and passes on what the library logged meanwhile: warnings as
    RapidllmWarning, the rest to the ``rapidllm`` logger (also when the call raises)."""
    try:
        return function(*args)
    finally:
        for level, message in _core.take_log():
            if level in ("warning", "error", "critical"):
                warnings.warn(message, RapidllmWarning, stacklevel=4)
            else:
                _log.log(logging.getLevelName(level.upper()) if level != "trace" else 5, message)


def _run(function: Callable[..., str], *args: Any) -> Any:
    """call() of a function that returns a report's JSON text, parsed."""
    return json.loads(call(function, *args))


def load_scenario(hardware: ConfigLike, model: ConfigLike, *, set: Any = None, **overrides: Any) -> Scenario:
    """Loads and checks a hardware and a model config once, for several predictions.

    Args:
        hardware: a hardware YAML path, a dict in the same schema, or :class:`ConfigText`.
        model: a model YAML path, a dict, :class:`ConfigText` or :func:`import_hf`'s result.
        set: overrides: ``{"parallelism": {"tp": 4}}``, ``{"parallelism.tp": 4}`` or
            ``["parallelism.tp=4"]`` (the CLI's ``--set``), applied first.
        **overrides: settings by keyword (``tp=4``, ``parallelism__train__dp=8``;
            :func:`keywords` lists them), applied after ``set``.

    Raises:
        ConfigError: a missing file, an unknown key, a bad value (file:line, key, hint).
    """
    return _load(hardware, model, set, overrides, "load_scenario")


def _load(hardware: ConfigLike, model: ConfigLike, set: Any, overrides: Mapping[str, Any], function: str) -> Scenario:
    sets = _overrides.overrides(set, overrides, function)  # errors name the function called
    return call(_core.load_scenario, to_source(hardware, "hardware"), to_source(model, "model"), sets)


def predict(hardware: Union[ConfigLike, Scenario], model: ConfigLike | None = None, *, set: Any = None,
            trace: str | os.PathLike[str] | None = None, trace_ranks: str | None = None,
            chakra: str | os.PathLike[str] | None = None, fail_if_oom: bool = False, **overrides: Any) -> dict:
    """Predicts one training step, one inference run or one GEMM (``rapidllm predict``).

    Args:
        hardware: a hardware config (path, dict, :class:`ConfigText`) or a :class:`Scenario`
            from :func:`load_scenario` (then no model and no overrides).
        model: the model config (path, dict, :class:`ConfigText`, :func:`import_hf`).
        set, **overrides: config overrides, as for :func:`load_scenario`.
        trace: write the simulated step as a Chrome/Perfetto JSON timeline (needs
            ``execution_backend.astra.mode`` full_astrasim_hierarchical or _flattened).
        trace_ranks: ranks the trace and Chakra files cover, e.g. ``"0-7,64"`` (default all).
        chakra: folder for one Chakra execution trace per rank (``rapidllm.<rank>.et``).
        fail_if_oom: raise InfeasibleError when the workload does not fit in GPU memory
            (default: a RapidllmWarning, as the CLI warns).

    Returns:
        The JSON report as a dict. Training: ``step_time_s`` (s), ``tokens_per_s``,
        ``mfu`` (0-1), ``breakdown`` (s by category), ``peak_memory_bytes`` (B),
        ``memory_breakdown`` (B), ``energy_j`` (J), ``fits_in_memory`` ...; inference:
        ``ttft_s``, ``tpot_s``, ``decode_time_s``, ``total_time_s`` (s),
        ``decode_tokens_per_s``, ``prefill_breakdown`` / ``decode_breakdown`` (s) ...;
        GEMM: ``time_s``, ``flops``, ``achieved_flops_per_s``.

    Raises:
        ConfigError: a bad config, override or export.
        InfeasibleError: a scenario that cannot run (the CLI's exit 1).
    """
    if isinstance(hardware, Scenario):
        if model is not None or set is not None or overrides:
            raise argument_error("predict", "model", "a Scenario already holds the model and its overrides",
                                 "predict(scenario) alone, or predict(hardware, model, ...)")
        scenario = hardware
    else:
        if model is None:
            raise argument_error("predict", "model", "missing", "predict(hardware, model, ...)")
        scenario = _load(hardware, model, set, overrides, "predict")
    report = _run(_core.predict, scenario, os.fspath(trace) if trace else "", trace_ranks or "",
                  os.fspath(chakra) if chakra else "")
    # As the CLI: an LLM workload that does not fit is reported, then warned about.
    if report["run_type"] in ("training", "inference") and not report["fits_in_memory"]:
        verdict = (f"does not fit in memory: {report['peak_memory_bytes'] / _GiB:.4g} GiB per GPU on pipeline stage "
                   f"{report.get('peak_memory_stage', 0)} needs more than the "
                   f"{report['memory_capacity_bytes'] / _GiB:.4g} GiB the device has")
        if fail_if_oom:
            raise InfeasibleError(verdict + " (fail_if_oom)")
        warnings.warn(verdict + "; the prediction assumes it would (fail_if_oom=True raises instead)",
                      RapidllmWarning, stacklevel=2)
    return report


def _size_text(value: Any, function: str, argument: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise argument_error(function, argument, f"{value!r} is not a size", "e.g. '1GiB', '64MiB' or 1e9")
    return _overrides.value_text(value)


def collective(hardware: ConfigLike, op: str, bytes: Union[int, float, str], ranks: int, *, dim: str | None = None,
               backend: str = "analytical", progress: Callable[[float, float], None] | None = None,
               set: Any = None, **overrides: Any) -> dict:
    """Predicts one collective (``rapidllm collective``), nccl-tests style.

    Args:
        hardware: the hardware config (path, dict, :class:`ConfigText`).
        op: all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send_recv.
        bytes: the per-rank buffer (nccl-tests size): a number of bytes or ``"1GiB"``.
        ranks: participating GPUs.
        dim: run in this network dimension only (its id); default: span the dimensions,
            innermost first.
        backend: ``"analytical"`` (alpha-beta), ``"flow"`` (congestion-aware flow
            simulation) or ``"ns3"`` (packet level; needs the ns-3 build).
        progress: ``progress(done, total)`` during a flow or ns-3 simulation.
        set, **overrides: hardware overrides (``max_events=1e6`` bounds a simulation).

    Returns:
        ``time_s`` (s), ``algbw_bytes_per_s`` and ``busbw_bytes_per_s`` (B/s), ``phases``
        (per-dimension steps with their ``time_s``) and the report header.
    """
    if isinstance(ranks, bool) or not isinstance(ranks, int):
        raise argument_error("collective", "ranks", f"{ranks!r} is not a whole number of ranks")
    sets = _overrides.overrides(set, overrides, "collective")
    return _run(_core.collective, to_source(hardware, "hardware"), op, _size_text(bytes, "collective", "bytes"),
                ranks, dim, backend, sets, progress)


def _axis_text(value: Any) -> str:
    value = _overrides.plain(value)
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _as_list(value: Any) -> list:
    """A grid or vary value: one value, or any sequence of them (list, tuple, range, numpy array)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        return [value]
    return list(value)


def sweep(hardware: ConfigLike, model: ConfigLike, gpus: int, *, top: int = 10, jobs: int = 1,
          grid: Mapping[str, Any] | None = None, vary: Mapping[str, Sequence[Any]] | None = None,
          max_ttft_s: float | None = None, max_tpot_s: float | None = None, refine: int = 0,
          progress: Callable[[int, int], None] | None = None, as_frame: bool = False, set: Any = None,
          **overrides: Any) -> Any:
    """Searches the parallel plans of a model on ``gpus`` GPUs (``rapidllm sweep``).

    Args:
        hardware, model: the configs (path, dict, :class:`ConfigText`, :func:`import_hf`).
        gpus: GPUs every plan uses.
        top: how many best points to rank.
        jobs: worker threads (the result does not depend on it).
        grid: plan axis values, e.g. ``{"tp": [2, 4, 8], "schedule": ["1f1b"], "sp": True}``
            (axes tp, sp, cp, ep, pp, schedule, vpp, mbs, zero, recompute, placement).
        vary: config keys crossed with the plans, ``{"tech_param.DRAM.bandwidth":
            ["2 TB/s", "3 TB/s"]}`` (a keyword name such as ``seq_len`` works too).
        max_ttft_s, max_tpot_s: inference limits (s).
        refine: re-predict the best ``refine`` plans with the simulated step.
        progress: ``progress(points_done, points_total)`` now and then.
        as_frame: return every point as a pandas DataFrame (plan axes as columns).
        set, **overrides: config overrides applied to every point.

    Returns:
        A dict with ``summary`` (counts by status), ``best`` and ``pareto`` (lists of
        points) and ``points`` (every point: ``plan``, ``status``, ``reason``, ``time_s``
        (s), ``tokens_per_s_per_gpu``, ``mfu``, ``peak_memory_bytes`` (B), ``energy_j``
        (J), ...), or with ``as_frame`` the points as a DataFrame.
    """
    sets = _overrides.overrides(set, overrides, "sweep")
    hw, md = to_source(hardware, "hardware"), to_source(model, "model")
    if hw[0] == "text" or md[0] == "text":
        call(_core.load_scenario, hw, md, sets)  # errors name the dict, not the temporary copy
    axes = [(str(axis), [_axis_text(v) for v in _as_list(values)]) for axis, values in (grid or {}).items()]
    varied = []
    for key, values in (vary or {}).items():
        path = key if "." in key else _overrides.setting_key(key, "sweep")
        varied.append((path, [_overrides.value_text(v) for v in _as_list(values)]))
    with SourceFiles(hw, md) as (hw_path, model_path):
        result = _run(_core.sweep, hw_path, model_path, sets, gpus, top, jobs, axes, varied, max_ttft_s, max_tpot_s,
                      refine, progress)
    return _frames.sweep_frame(result) if as_frame else result


def _data_folder(rel: str) -> str:
    """Where ``rapidllm validate`` looks, in its order: the working directory when it holds
    ``rel``, the data an install put beside the package (<prefix>/share/rapidllm, the package
    being in <prefix>/lib/python3.X/dist-packages), else "" (the C++ side then takes the
    checkout the module was built from)."""
    if os.path.isdir(rel):
        return rel
    installed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "share", "rapidllm", rel)
    return os.path.normpath(installed) if os.path.isdir(installed) else ""


def validate(*, data_dir: str | os.PathLike[str] | None = None, configs_dir: str | os.PathLike[str] | None = None,
             source: str = "", as_frame: bool = False) -> Any:
    """Predicts every published measurement and compares (``rapidllm validate``).

    Args:
        data_dir: folder of the ground-truth CSV files (default, as the CLI: ./validation/data,
            else an install's share/rapidllm/validation/data, else the checkout's).
        configs_dir: folder of the device configs (default likewise: configs).
        source: only sources whose short name contains this (e.g. ``"dgxc"``).
        as_frame: return the cases as a pandas DataFrame.

    Returns:
        ``cases`` (each: ``source``, ``metric``, ``measured``, ``predicted``, ``error_pct``,
        ``status`` compared/skipped/failed, ``reason``) and ``summary`` (per source and
        metric: mean/median/max absolute error in %), or the cases as a DataFrame.
    """
    result = _run(_core.validate, os.fspath(data_dir) if data_dir else _data_folder("validation/data"),
                  os.fspath(configs_dir) if configs_dir else _data_folder("configs"), source)
    return _frames.frame(result["cases"]) if as_frame else result


def validation_scenario(row: str, *, data_dir: str | os.PathLike[str] | None = None,
                        configs_dir: str | os.PathLike[str] | None = None) -> Scenario:
    """The scenario a training row of the ground truth is predicted on (``rapidllm validate
    --explain ROW``): ``predict()`` on it gives the row's case, with its breakdown.

    Args:
        row: a training.csv row id (``"T0026"``) or a nanotron_h100.csv run (``"NT0181"``).
        data_dir, configs_dir: as for :func:`validate`.

    Raises:
        ConfigError: no training row has that id; InfeasibleError: the row cannot be modelled.
    """
    return call(_core.validation_scenario, os.fspath(data_dir) if data_dir else _data_folder("validation/data"),
                os.fspath(configs_dir) if configs_dir else _data_folder("configs"), row)


_POOL = re.compile(r"([0-9]{1,6})xtp([0-9]{1,4})(?:pp([0-9]{1,4}))?")


def _pool(value: Any, argument: str) -> Tuple[int, int, int] | None:
    if value is None:
        return None
    if isinstance(value, str):
        m = _POOL.fullmatch(value)
        if not m:
            raise argument_error("serve", argument, f"'{value}' is not a pool NxtpT or NxtpTppP",
                                 f"e.g. {argument}='2xtp4' (two replicas of four GPUs)")
        return int(m[1]), int(m[2]), int(m[3] or 1)
    values = tuple(value)
    if len(values) not in (2, 3):
        raise argument_error("serve", argument, f"{value!r} is not (replicas, tp) or (replicas, tp, pp)")
    return (int(values[0]), int(values[1]), int(values[2]) if len(values) == 3 else 1)


def _tokens(value: Any) -> Tuple[int, int] | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value, value
    lo, hi = value
    return int(lo), int(hi)


def serve(hardware: Union[ConfigLike, Scenario], model: ConfigLike | None = None, *, rate: float | None = None,
          concurrency: int | None = None, trace_file: str | os.PathLike[str] | None = None, offline: bool = False,
          isl: Union[int, Tuple[int, int], None] = None, osl: Union[int, Tuple[int, int], None] = None,
          requests: int = 0, duration_s: float | None = None, seed: int | None = None, router: str = "round-robin",
          slo_ttft_s: float | None = None, slo_tpot_s: float | None = None, engine: str = "vllm",
          max_num_seqs: int | None = None, max_num_batched_tokens: int | None = None, block_size: int | None = None,
          kv_memory_fraction: float | None = None, chunked_prefill: bool | None = None, policy: str | None = None,
          reserve_full_sequence: bool | None = None, iteration_overhead_s: float | None = None,
          prefill: Any = None, decode: Any = None, steady_state: bool = False, keep_requests: bool = True,
          trace_out: str | os.PathLike[str] | None = None, as_frame: bool = False, set: Any = None,
          **overrides: Any) -> Any:
    """Simulates serving an LLM under load (``rapidllm serve``; docs/serving.md).

    Arrivals, exactly one of: ``rate`` (Poisson, requests/s), ``concurrency`` (closed loop
    of C clients), ``trace_file`` (CSV rows arrival_s,input_tokens,output_tokens) or
    ``offline=True`` (all queued at t = 0). ``isl`` / ``osl``: input / output tokens, N or
    (lo, hi) drawn uniformly (default 1024 / 128). ``requests`` / ``duration_s`` (s) end
    the arrivals; ``seed`` seeds what is random. ``router``: round-robin or least-loaded.
    ``slo_ttft_s`` / ``slo_tpot_s`` (s) define goodput. ``engine``: a profile
    (:func:`engine_profiles`) whose settings the engine arguments override.
    ``prefill`` / ``decode``: disaggregated pools, ``"2xtp4"`` or (replicas, tp, pp).
    ``steady_state=True``: the closed-form offline maximum instead of a simulation.
    ``trace_out``: write every iteration as a Perfetto timeline. ``as_frame``: return the
    request log (arrival_s, ttft_s, tpot_s, e2e_s ...) as a DataFrame.

    Returns:
        The JSON report: ``requests_per_s``, ``output_tokens_per_s``, latency stats
        ``ttft`` / ``tpot`` / ``itl`` / ``e2e`` (mean, p50, p90, p99, max in s),
        ``goodput_requests_per_s``, KV-cache use, and ``request_log`` when kept.
    """
    scenario = hardware if isinstance(hardware, Scenario) else None
    if scenario is None:
        if model is None:
            raise argument_error("serve", "model", "missing", "serve(hardware, model, ...)")
        scenario = _load(hardware, model, set, overrides, "serve")
    elif model is not None or set is not None or overrides:
        raise argument_error("serve", "model", "a Scenario already holds the model and its overrides")
    workload = _core.serve_workload(rate, concurrency, os.fspath(trace_file) if trace_file else None, offline,
                                    _tokens(isl), _tokens(osl), requests, duration_s, seed)
    args = _core._EngineArgs()
    args.name = engine
    for name, value in (("max_num_seqs", max_num_seqs), ("max_num_batched_tokens", max_num_batched_tokens),
                        ("block_size", block_size), ("kv_memory_fraction", kv_memory_fraction),
                        ("chunked_prefill", chunked_prefill), ("policy", policy),
                        ("reserve_full_sequence", reserve_full_sequence),
                        ("iteration_overhead_s", iteration_overhead_s)):
        setattr(args, name, value)
    result = _run(_core.serve, scenario, args, workload, router, slo_ttft_s, slo_tpot_s, _pool(prefill, "prefill"),
                  _pool(decode, "decode"), steady_state, keep_requests or as_frame,
                  os.fspath(trace_out) if trace_out else "")
    return _frames.frame(result.get("request_log", [])) if as_frame else result


def settings() -> list[dict]:
    """Every setting: ``key`` (YAML path), ``file`` (hardware|model), ``type``, ``unit``,
    ``default`` (None when required), ``description`` (``rapidllm config list``)."""
    return _core.settings()


def engine_profiles() -> list[str]:
    """The serving engine profiles :func:`serve` takes (``vllm``, ``tensorrt-llm``)."""
    return _core.engine_profiles()


# The functions' own arguments are never setting keywords (execution_backend.model keeps
# its long form, since `model` is the model config).
_overrides.reserve(name for f in (load_scenario, predict, collective, sweep, validate, serve)
                   for name in inspect.signature(f).parameters)
