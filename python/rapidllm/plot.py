"""Plots of rapidllm's results (matplotlib). Each function returns a matplotlib
``Figure`` built without pyplot (no GUI backend, no global state: safe in scripts, servers
and threads; Jupyter shows a returned Figure) and, given ``path``, saves it (PNG by the
extension, or any format matplotlib writes).

    >>> import rapidllm, rapidllm.plot
    >>> r = rapidllm.predict(hw, model, tp=2)
    >>> rapidllm.plot.breakdown(r, path="breakdown.png")
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Sequence, Union

import matplotlib
from matplotlib.figure import Figure

_GiB = 1024.0**3
Report = Mapping[str, Any]


def _finish(fig: Figure, path: Union[str, "os.PathLike[str]", None]) -> Figure:
    fig.tight_layout()
    if path is not None:
        fig.savefig(os.fspath(path), dpi=120)
    return fig


def _reports(reports: Union[Report, Sequence[Report]], labels: Sequence[str] | None) -> tuple[list, list[str]]:
    items = [reports] if isinstance(reports, Mapping) else list(reports)
    if not items:
        raise ValueError("rapidllm.plot: no reports to draw")
    if labels is None:
        labels = [str(i) for i in range(len(items))] if len(items) > 1 else [""]
    if len(labels) != len(items):
        raise ValueError(f"rapidllm.plot: {len(labels)} labels for {len(items)} reports")
    return items, list(labels)


def _stacked(ax: Any, bars: list[tuple[str, Mapping[str, float]]], scale: float, colors: Mapping[str, str]) -> None:
    """Horizontal bars, one per (label, {category: value}), stacked by category."""
    left = [0.0] * len(bars)
    for c, color in colors.items():
        widths = [parts.get(c, 0.0) / scale for _, parts in bars]
        if any(widths):
            ax.barh(range(len(bars)), widths, left=left, color=color, label=c)
        left = [a + b for a, b in zip(left, widths)]
    ax.set_yticks(range(len(bars)), [label for label, _ in bars])
    ax.invert_yaxis()


def _colors(bars: list[tuple[str, Mapping[str, float]]]) -> dict[str, str]:
    """One colour per category, the same in every panel."""
    return {c: f"C{i % 10}" for i, c in enumerate(sorted({c for _, parts in bars for c in parts}))}


def _legend(fig: Figure, ax: Any) -> None:
    handles, names = [], []
    for a in fig.axes:  # every category once, whichever panel drew it
        for h, n in zip(*a.get_legend_handles_labels()):
            if n not in names:
                handles.append(h)
                names.append(n)
    ax.legend(handles, names, fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))


def breakdown(reports: Union[Report, Sequence[Report]], labels: Sequence[str] | None = None, *,
              path: Union[str, "os.PathLike[str]", None] = None) -> Figure:
    """Where the time goes: one stacked bar per prediction, seconds by category
    (compute.mlp, communication.tp, ...). Training steps share a panel; inference runs get
    a prefill panel and a decode panel, each on its own scale (prefill is often 1000x shorter)."""
    items, names = _reports(reports, labels)
    panels: dict[str, list[tuple[str, Mapping[str, float]]]] = {"step": [], "prefill": [], "decode": []}
    for report, name in zip(items, names):
        if "breakdown" in report:
            panels["step"].append((name or "step", report["breakdown"]))
        elif "prefill_breakdown" in report:
            panels["prefill"].append((name or "prefill", report["prefill_breakdown"]))
            panels["decode"].append((name or "decode", report["decode_breakdown"]))
        else:
            raise ValueError("rapidllm.plot.breakdown: a report without a time breakdown (a GEMM or a collective?)")
    used = {k: v for k, v in panels.items() if v}
    colors = _colors([bar for bars in used.values() for bar in bars])
    fig = Figure(figsize=(6 + 3 * len(used), 1.5 + 0.45 * max(len(v) for v in used.values())))
    for i, (panel, bars) in enumerate(used.items()):
        ax = fig.add_subplot(1, len(used), i + 1)
        _stacked(ax, bars, 1.0, colors)
        ax.set_xlabel(f"{panel} time by category (s)")
    _legend(fig, fig.axes[-1])
    return _finish(fig, path)


def memory(reports: Union[Report, Sequence[Report]], labels: Sequence[str] | None = None, *,
           path: Union[str, "os.PathLike[str]", None] = None) -> Figure:
    """Per-GPU memory on the peak stage: one stacked bar per prediction (weights, gradients,
    optimizer states, activations, KV cache, ...) in GiB, with the device's capacity."""
    items, names = _reports(reports, labels)
    bars = [(name or "peak GPU", report["memory_breakdown"]) for report, name in zip(items, names)]
    fig = Figure(figsize=(9, 1.4 + 0.5 * len(bars)))
    ax = fig.add_subplot()
    _stacked(ax, bars, _GiB, _colors(bars))
    capacity = items[0]["memory_capacity_bytes"] / _GiB
    ax.axvline(capacity, color="black", linestyle="--", linewidth=1)
    ax.annotate(f"capacity {capacity:.0f} GiB", (capacity, 0), xytext=(3, 0), textcoords="offset points",
                fontsize="small", va="center")
    ax.set_xlabel("memory per GPU (GiB)")
    ax.set_title("memory by kind")
    _legend(fig, ax)
    return _finish(fig, path)


def sweep(result: Report, *, path: Union[str, "os.PathLike[str]", None] = None) -> Figure:
    """A sweep's plans: throughput per GPU against peak memory per GPU (training) or
    against tokens/s per user (inference), plans that do not fit in grey, the Pareto front
    as a line and the best plan marked."""
    inference = result["summary"]["run_type"] == "inference"
    points = result.get("points") or result["best"]
    xkey = "tokens_per_s_per_user" if inference else "peak_memory_bytes"
    scale = 1.0 if inference else _GiB

    def xy(ps: Sequence[Report]) -> tuple[list[float], list[float]]:
        return [p.get(xkey, 0.0) / scale for p in ps], [p.get("tokens_per_s_per_gpu", 0.0) for p in ps]

    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    ok = [p for p in points if p["status"] == "ok"]
    oom = [p for p in points if p["status"] == "does_not_fit" and p.get("tokens_per_s_per_gpu", 0.0) > 0]
    if oom:
        ax.scatter(*xy(oom), s=10, color="0.75", label="does not fit")
    ax.scatter(*xy(ok), s=12, color="C0", label="fits")
    front = sorted(result.get("pareto", []), key=lambda p: p.get(xkey, 0.0))
    if front:
        ax.plot(*xy(front), color="C3", marker="o", markersize=4, label="Pareto front")
    if result.get("best"):
        bx, by = xy(result["best"][:1])
        ax.scatter(bx, by, s=120, marker="*", color="C2", zorder=3, label="best")
    ax.set_xlabel("tokens/s per user" if inference else "peak memory per GPU (GiB)")
    ax.set_ylabel("tokens/s per GPU")
    ax.set_title(f"{result['summary']['points']} plans")
    ax.legend(fontsize="small")
    return _finish(fig, path)


def validation(result: Report, *, path: Union[str, "os.PathLike[str]", None] = None) -> Figure:
    """Predicted against measured for every compared case of :func:`rapidllm.validate`
    (log-log, one colour per metric), with the y = x line and a +-20 % band."""
    cases = [c for c in result["cases"] if c.get("status") == "compared"]
    if not cases:
        raise ValueError("rapidllm.plot.validation: no compared cases")
    fig = Figure(figsize=(6.5, 6))
    ax = fig.add_subplot()
    palette = matplotlib.colormaps["tab20"]  # a dozen metrics: more than the ten default colours
    for i, metric in enumerate(sorted({c["metric"] for c in cases})):
        sel = [c for c in cases if c["metric"] == metric]
        ax.scatter([c["measured"] for c in sel], [c["predicted"] for c in sel], s=12, color=palette(i % 20),
                   label=f"{metric} ({len(sel)})")
    values = [v for c in cases for v in (c["measured"], c["predicted"]) if v > 0]
    lo, hi = min(values) / 1.5, max(values) * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=1)
    ax.fill_between([lo, hi], [lo * 0.8, hi * 0.8], [lo * 1.2, hi * 1.2], color="0.9", label="+-20 %")
    ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi), xlabel="measured", ylabel="predicted",
           title=f"{len(cases)} published measurements")
    ax.legend(fontsize="x-small")
    return _finish(fig, path)


def timeline(trace: Union[str, "os.PathLike[str]", Mapping[str, Any]], *, max_tracks: int = 32,
             path: Union[str, "os.PathLike[str]", None] = None) -> Figure:
    """A Chrome/Perfetto trace (``predict(..., trace=FILE)`` or ``serve(..., trace_out=FILE)``)
    as a Gantt chart: one row per track (GPU x stream, or serving replica), one bar per
    event coloured by category, time in ms. Only the first ``max_tracks`` tracks are drawn."""
    if not isinstance(trace, Mapping):
        with open(os.fspath(trace), encoding="utf-8") as f:
            trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, Mapping) else trace
    process: dict[int, str] = {}
    thread: dict[tuple[int, int], str] = {}
    spans: dict[tuple[int, int], list[tuple[float, float, str]]] = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            process[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            thread[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e.get("ph") == "X":
            spans.setdefault((e["pid"], e["tid"]), []).append((e["ts"] / 1e3, e["dur"] / 1e3, e.get("cat", "")))
    if not spans:
        raise ValueError("rapidllm.plot.timeline: the trace has no complete ('X') events")
    tracks = sorted(spans)[:max_tracks]
    categories = sorted({c for t in tracks for _, _, c in spans[t]})
    colors = {c: f"C{i % 10}" for i, c in enumerate(categories)}
    fig = Figure(figsize=(11, 1.0 + 0.35 * len(tracks)))
    ax = fig.add_subplot()
    labeled: set[str] = set()  # one legend entry per category
    for row, track in enumerate(tracks):
        for cat in categories:
            bars = [(start, dur) for start, dur, c in spans[track] if c == cat]
            if bars:
                ax.broken_barh(bars, (row - 0.4, 0.8), color=colors[cat], label=None if cat in labeled else cat)
                labeled.add(cat)
    names = [f"{process.get(p, f'pid {p}')} / {thread.get((p, t), f'tid {t}')}" for p, t in tracks]
    ax.set_yticks(range(len(tracks)), names, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    ax.set_title("timeline" + (f" (first {max_tracks} of {len(spans)} tracks)" if len(spans) > max_tracks else ""))
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    return _finish(fig, path)
