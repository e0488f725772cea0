"""Drawing a figure's numbers (plotdata.Data) with matplotlib, and the
`warpsim plot` command."""
import io
import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "warpsim"  # stable element ids, so SVGs repeat byte for byte
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)
from matplotlib.patches import Patch  # noqa: E402

from . import plotdata  # noqa: E402
from .results import UserError, fmt, load  # noqa: E402

FORMATS = ("png", "svg", "pdf")
# Dates left out so that the same input writes the same file.
METADATA = {"png": {}, "svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}
HATCHES = ["", "//", "..", "xx", "\\\\", "++", "oo", "--"]


def colors(n):
    cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20" if n <= 20 else "viridis"]
    return [cmap(i if n <= 20 else i / max(1, n - 1)) for i in range(n)]


def _tick_labels(ax, labels):
    ax.set_xticks(range(len(labels)))
    long = len(labels) > 8 or max((len(s) for s in labels), default=0) > 6
    ax.set_xticklabels(labels, rotation=40 if long else 0, ha="right" if long else "center",
                       rotation_mode="anchor", fontsize=8 if len(labels) > 16 else 9)


def _legend(ax, title=None, handles=None):
    kwargs = {"handles": handles} if handles else {}
    if handles or len(ax.get_legend_handles_labels()[0]) > 0:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, title=title,
                  title_fontsize=8, **kwargs)


def _width(clusters, per_cluster):
    return min(22.0, max(4.0, 2.0 + clusters * per_cluster))


def _bar(fig, data):
    spec, groups = data.spec, data.groups
    labels = [fmt(x) for x in data.xs] + ([data.mean_label] if data.means else [])
    fig.set_size_inches(_width(len(labels), max(0.45, 0.2 * len(groups) + 0.15)), 4.5)
    ax = fig.add_subplot()
    width, palette = 0.8 / len(groups), colors(len(groups))
    for gi, g in enumerate(groups):
        offset = (gi - (len(groups) - 1) / 2) * width
        pos = [i + offset for i, x in enumerate(data.xs) if (x, g) in data.values]
        vals = [data.values[(x, g)] for x in data.xs if (x, g) in data.values]
        if g in data.means:
            pos.append(len(data.xs) + offset)
            vals.append(data.means[g])
        ax.bar(pos, vals, width, color=palette[gi], edgecolor="black", linewidth=0.4,
               label=fmt(g) if spec.group else None)
    if data.means:
        ax.axvline(len(data.xs) - 0.5, color="gray", linestyle=":", linewidth=1)
    if data.baseline:
        ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
    _tick_labels(ax, labels)
    _legend(ax, spec.group)
    return ax


def _stacked(fig, data):
    spec, groups, n = data.spec, data.groups, len(data.components)
    fig.set_size_inches(_width(len(data.xs), max(0.5, 0.3 * len(groups) + 0.2)), 4.5)
    ax = fig.add_subplot()
    width, palette = 0.8 / len(groups), colors(n)
    for gi, g in enumerate(groups):
        offset = (gi - (len(groups) - 1) / 2) * width
        present = [(i, data.values[(x, g)]) for i, x in enumerate(data.xs) if (x, g) in data.values]
        bottom = [0.0] * len(present)
        for ci in range(n):
            heights = [v[ci] for _, v in present]
            ax.bar([i + offset for i, _ in present], heights, width, bottom=bottom, color=palette[ci],
                   hatch=HATCHES[gi % len(HATCHES)] if spec.group else None, edgecolor="black", linewidth=0.4)
            bottom = [b + h for b, h in zip(bottom, heights)]
    if data.baseline:
        ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
    handles = [Patch(facecolor=palette[ci], edgecolor="black", linewidth=0.4, label=name)
               for ci, name in reversed(list(enumerate(plotdata.short_names(data.components))))]
    if spec.group:
        handles += [Patch(facecolor="white", edgecolor="black", hatch=HATCHES[gi % len(HATCHES)],
                          label=f"{spec.group}={fmt(g)}") for gi, g in enumerate(groups)]
    _tick_labels(ax, [fmt(x) for x in data.xs])
    _legend(ax, handles=handles)
    return ax


def _positions(xs):
    """Numeric x values stand for themselves; anything else gets an index."""
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs):
        return {x: x for x in xs}, False
    return {x: i for i, x in enumerate(xs)}, True


def _line(fig, data):
    spec = data.spec
    fig.set_size_inches(7.5, 4.5)
    ax = fig.add_subplot()
    pos, categorical = _positions(data.xs)
    for gi, (g, color) in enumerate(zip(data.groups, colors(len(data.groups)))):
        xs = [x for x in data.xs if (x, g) in data.values]
        ax.plot([pos[x] for x in xs], [data.values[(x, g)] for x in xs], marker="o", markersize=4,
                color=color, label=fmt(g) if spec.group else None)
    if data.means:
        xs = [x for x in data.xs if x in data.means]
        ax.plot([pos[x] for x in xs], [data.means[x] for x in xs], color="black", linewidth=2.5, marker="s",
                label=data.mean_label)
    if data.baseline:
        ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
    if categorical:
        _tick_labels(ax, [fmt(x) for x in data.xs])
    _legend(ax, spec.group)
    return ax


def _scatter(fig, data):
    spec = data.spec
    fig.set_size_inches(6.5, 5.0)
    ax = fig.add_subplot()
    for g, color in zip(data.groups, colors(len(data.groups))):
        pts = [(px, py) for px, py, pg in data.points if pg == g]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=22, color=color, edgecolor="black", linewidth=0.3,
                   label=fmt(g) if spec.group else None)
    if spec.diagonal:
        every = [v for px, py, _ in data.points for v in (px, py)
                 if not ((spec.logx or spec.logy) and v <= 0)]
        if every:
            lo, hi = min(every), max(every)
            ax.plot([lo, hi], [lo, hi], color="gray", linestyle="--", linewidth=1, label="y = x")
    _legend(ax, spec.group)
    return ax


def _heatmap(fig, data):
    spec, groups = data.spec, data.groups
    nx, ny = len(data.xs), len(data.ys)
    panel_w, panel_h = max(3.5, 0.75 * nx + 1.5), max(3.0, 0.45 * ny + 1.5)
    fig.set_size_inches(min(24, panel_w * len(groups) + 1.2), panel_h)
    axes = fig.subplots(1, len(groups), squeeze=False)[0]
    finite = list(data.values.values())
    lo, hi = min(finite), max(finite)
    for ax, g in zip(axes, groups):
        grid = [[data.values.get((x, y, g), math.nan) for x in data.xs] for y in data.ys]
        image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis", vmin=lo, vmax=hi)
        for yi, row in enumerate(grid):
            for xi, v in enumerate(row):
                if not math.isnan(v):
                    dark = hi == lo or (v - lo) / (hi - lo) < 0.6
                    ax.text(xi, yi, f"{v:.3g}", ha="center", va="center", fontsize=7,
                            color="white" if dark else "black")
        _tick_labels(ax, [fmt(x) for x in data.xs])
        ax.set_yticks(range(ny))
        ax.set_yticklabels([fmt(y) for y in data.ys], fontsize=8)
        ax.set_xlabel(spec.xlabel or spec.x)
        if spec.group:
            ax.set_title(f"{spec.group}={fmt(g)}", fontsize=9)
    axes[0].set_ylabel(spec.ylabel or spec.y)
    fig.colorbar(image, ax=list(axes), label=data.ylabel, shrink=0.9)
    return None


def figure(data):
    spec = data.spec
    fig = Figure(layout=None)
    draw_kind = {"bar": _bar, "stacked": _stacked, "line": _line, "scatter": _scatter, "heatmap": _heatmap}
    ax = draw_kind[spec.kind](fig, data)
    if ax is not None:
        ax.set_xlabel(spec.xlabel if spec.xlabel is not None else spec.x)
        ax.set_ylabel(textwrap.fill(spec.ylabel if spec.ylabel is not None else data.ylabel, 48))
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        if spec.logx and spec.kind in ("line", "scatter"):
            ax.set_xscale("log")
        if spec.logy:
            ax.set_yscale("log")
    if spec.title:
        fig.suptitle(spec.title, fontsize=11)
    return fig


def save(fig, target, fmt_name):
    """Writes the figure to a path or a binary file object."""
    fig.savefig(target, format=fmt_name, dpi=110, bbox_inches="tight", metadata=METADATA[fmt_name])


def figure_format(path):
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise UserError(f"{path}: unsupported figure format '.{suffix}' (use .png, .svg or .pdf)")
    return suffix


def png_bytes(data):
    buffer = io.BytesIO()
    save(figure(data), buffer, "png")
    return buffer.getvalue()


def draw(table, spec, out, data_out=None, note=None):
    """Computes, draws and writes one figure (and its numbers to data_out)."""
    kind = figure_format(out)
    data = plotdata.compute(table, spec, **({"note": note} if note else {}))
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        save(figure(data), out, kind)
    except OSError as e:
        raise UserError(f"{out}: cannot write: {e}") from None
    if data_out:
        plotdata.write_data(data, data_out)
    return data


def spec_from_args(args):
    return plotdata.Spec(kind=args.kind, x=args.x, y=args.y, z=args.z, group=args.group,
                         normalize_to=args.normalize_to, mean=args.mean, where=args.where or [], rows=args.rows,
                         aggregate=args.aggregate, all_status=args.all_status, share=args.share, title=args.title,
                         xlabel=args.xlabel, ylabel=args.ylabel, logx=args.logx, logy=args.logy,
                         diagonal=args.diagonal)


def run(args):
    figure_format(args.output)  # a bad name fails before the work
    draw(load(args.results), spec_from_args(args), args.output, args.data)
    return 0
