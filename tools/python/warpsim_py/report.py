"""`warpsim report`: one self-contained HTML page (inline CSS, script and PNG
figures) about a sweep or a single run."""
import base64
import datetime
import html
import re
from collections import Counter
from pathlib import Path

from . import plot
from .plotdata import Spec, compute
from .results import Table, UserError, fmt, is_number, load

ISSUE_SLOTS = re.compile(r"timing\.issue_slots\.[^.]+")
POWER_GROUPS = re.compile(r"power\.group\.[^.]+\.energy_J")
MEMORY = [("L1D_total_cache_miss_rate", "L1D miss rate"), ("L2_total_cache_miss_rate", "L2 miss rate"),
          ("Row_Buffer_Locality", "DRAM row-buffer locality"), ("bw_util", "DRAM bandwidth utilisation")]

STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
td.key { white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.pass td.status { color: #186a1e; } tr.bad td.status { color: #b00020; font-weight: bold; }
figure { margin: 1em 0; } figure img { max-width: 100%; } figcaption { font-size: 0.9em; color: #555; }
.note { font-size: 0.85em; color: #8a5a00; } pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.1em 1em; }
dl.facts dt { font-weight: bold; } dl.facts dd { margin: 0; }
"""

# Counts the figures the browser really drew, for tests/tools/report_browser_test.sh.
SCRIPT = """
window.addEventListener("load", function () {
  var rendered = 0;
  document.querySelectorAll("figure img").forEach(function (img) {
    if (img.complete && img.naturalWidth > 0) rendered++;
  });
  document.querySelectorAll("figure svg").forEach(function (svg) {
    var box = svg.getBBox ? svg.getBBox() : null;
    if ((box && box.width > 0) || svg.getBoundingClientRect().width > 0) rendered++;
  });
  document.body.dataset.figuresRendered = String(rendered);
});
"""


def esc(value):
    return html.escape(fmt(value) if not isinstance(value, str) else value)


def number(value, digits=4):
    if not is_number(value):
        return ""
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 1000:
        return f"{int(value):,}"
    return f"{value:.{digits}g}"


class Page:
    def __init__(self):
        self.parts, self.figures, self.notes_shown = [], 0, set()

    def add(self, text):
        self.parts.append(text)

    def figure(self, table, spec, caption):
        """Draws one figure into the page, or says why there is none."""
        notes = []
        try:
            image = plot.png_bytes(compute(table, spec, note=notes.append))
        except UserError as e:
            self.add(f"<p class='note'>{esc(caption)}: not drawn ({esc(str(e))})</p>")
            return
        self.figures += 1
        data = base64.b64encode(image).decode("ascii")
        self.add(f"<figure><img alt='{esc(caption)}' src='data:image/png;base64,{data}'>"
                 f"<figcaption>Figure {self.figures}. {esc(caption)}</figcaption></figure>")
        for n in notes:  # the same rows are left out of most figures: say so once
            if n not in self.notes_shown:
                self.notes_shown.add(n)
                self.add(f"<p class='note'>{esc(n)}</p>")


def _table(headers, rows, classes=None):
    out = ["<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr></thead><tbody>"]
    for i, cells in enumerate(rows):
        cls = f" class='{classes[i]}'" if classes else ""
        out.append(f"<tr{cls}>" + "".join(
            f"<td class='{k}'>{v}</td>" for k, v in cells) + "</tr>")
    return "\n".join(out) + "</tbody></table>"


def _facts(items):
    return "<dl class='facts'>" + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items) + "</dl>"


def _reason(row, limit=160):
    """A failure's reason, cut short in the table; the whole text on hover."""
    text = fmt(row.get("reason"))
    if len(text) <= limit:
        return esc(text)
    return f"<span title='{esc(text)}'>{esc(text[:limit])}&hellip;</span>"


def _point_column(table):
    """The column that names points in figures: their labels, unless two share one."""
    labels = [p.get("label") for p in table.points]
    if all(labels) and len(set(labels)) == len(labels):
        return "label", labels
    return "point", [p.get("point") for p in table.points]


def _sweep_sections(table, page):
    programs = [r for r in table.rows if (r.get("row") or "program") == "program"]
    statuses = Counter(fmt(r.get("status")) for r in programs)
    wall = sum(r.get("wall_seconds") or 0 for r in programs if is_number(r.get("wall_seconds")))
    written = datetime.datetime.fromtimestamp(table.source.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    page.add(f"<h1>Sweep {esc(table.name)}</h1>")
    page.add(_facts([("results", f"{table.source} (written {written})"), ("points", len(table.points)),
                     ("programs", len({r.get('program') for r in programs})), ("runs", len(programs)),
                     ("status", ", ".join(f"{s or '(none)'}: {n}" for s, n in sorted(statuses.items()))),
                     ("total wall time", f"{wall:.1f} s")]))
    page.add("<h2>Summary</h2>")
    rows = [[("key", esc(r.get("label") or r.get("point"))), ("key", esc(r.get("program"))),
             ("status", esc(r.get("status"))), ("num", number(r.get("cycles"))), ("num", number(r.get("ipc"))),
             ("num", number(r.get("energy_J"))), ("num", number(r.get("edp_Js"))),
             ("", _reason(r) if r.get("status") != "pass" else "")] for r in programs]
    page.add(_table(["point", "program", "status", "cycles", "IPC", "energy (J)", "EDP (J s)", "reason"], rows,
                    ["pass" if r.get("status") == "pass" else "bad" for r in programs]))

    page.add("<h2>Figures</h2>")
    column, labels = _point_column(table)
    several = len(labels) > 1
    group = column if several else None
    first = f"{column}={labels[0]}" if several else None
    page.figure(table, Spec("bar", "program", "ipc", group=group, normalize_to=first, mean="geo"),
                f"IPC per program, normalized to {labels[0]}" if several else "IPC per program")
    energy = [c for c in table.columns if POWER_GROUPS.fullmatch(c)]
    if energy:
        page.figure(table, Spec("stacked", "program", ",".join(energy), group=group, normalize_to=first,
                                share=not several),
                    "Energy by power group" + (f", normalized to the total of {labels[0]}" if several else ""))
    _common_sections(table, page, group)


def _common_sections(table, page, group, x="program"):
    slots = [c for c in table.columns if ISSUE_SLOTS.fullmatch(c)]
    if slots:
        slots.sort(key=lambda c: c != "timing.issue_slots.issued")  # issued at the bottom of each bar
        page.figure(table, Spec("stacked", x, ",".join(slots), group=group, share=True),
                    "Issue slots: issued and lost to each stall reason (share of all slots)")
    for column, name in MEMORY:
        if column in table.columns:
            page.figure(table, Spec("bar", x, column, group=group), f"{name} per program")


def _config_sections(table, page):
    page.add("<h2>Configuration</h2>")
    spec_file = table.base_dir / "sweep.toml" if table.base_dir else None
    if spec_file and spec_file.is_file():
        page.add(f"<details open><summary>Sweep spec ({esc(str(spec_file))})</summary>"
                 f"<pre>{esc(spec_file.read_text(errors='replace'))}</pre></details>")
    for p in table.points:
        params = p.get("parameters") or {}
        body = _table(["parameter", "value"], [[("", esc(k)), ("", esc(v))] for k, v in params.items()])
        config = p.get("config_file")
        if config:
            path = Path(config) if Path(config).is_absolute() else table.base_dir / config
            text = path.read_text(errors="replace") if path.is_file() else "(file not found)"
            body += f"<p>{esc(str(config))}</p><pre>{esc(text)}</pre>"
        page.add(f"<details><summary>{esc(p.get('point'))}: {esc(p.get('label'))}</summary>{body}</details>")


def _stats_sections(table, page):
    program = table.rows[0]
    kernels = [r for r in table.rows if r.get("row") == "kernel"]
    info = (table.stats or {}).get("warpsim", {})
    page.add(f"<h1>Run {esc(table.name)}</h1>")
    page.add(_facts([("statistics", str(table.source)), ("program", info.get("program", "")),
                     ("GPU", info.get("gpu", "")), ("mode", info.get("mode", "")), ("kernels", len(kernels)),
                     ("cycles", number(program.get("cycles"))), ("IPC", number(program.get("ipc"))),
                     ("energy", f"{number(program.get('energy_J'))} J"),
                     ("wall time", f"{program.get('wall_seconds') or 0:.1f} s")]))
    page.add("<h2>Summary</h2>")
    numbers = ["launches", "ctas", "cycles", "ipc", "energy_J", "edp_Js"]
    rows = [[("", esc(r.get("kernel") or "total"))] + [("num", number(r.get(c))) for c in numbers]
            for r in kernels + [program]]
    page.add(_table(["kernel", "launches", "CTAs", "cycles", "IPC", "energy (J)", "EDP (J s)"], rows))

    page.add("<h2>Figures</h2>")
    short = _short_kernel_names(kernels)
    by_kernel = Table(columns=table.columns, rows=[dict(r, kernel=s) for r, s in zip(kernels, short)],
                      source=table.source)
    if kernels:
        page.figure(by_kernel, Spec("bar", "kernel", "ipc", rows="kernel"), "IPC per kernel")
        energy = [c for c in table.columns if POWER_GROUPS.fullmatch(c) and any(r.get(c) is not None for r in kernels)]
        if energy:
            page.figure(by_kernel, Spec("stacked", "kernel", ",".join(energy), rows="kernel"),
                        "Energy by power group per kernel (J)")
    slots = [c for c in table.columns if ISSUE_SLOTS.fullmatch(c)]
    if slots:
        slots.sort(key=lambda c: c != "timing.issue_slots.issued")
        page.figure(table, Spec("stacked", "program", ",".join(slots), share=True),
                    "Issue slots: issued and lost to each stall reason (share of all slots)")
    memory = [{"row": "program", "metric": name, "value": program.get(c)} for c, name in MEMORY
              if program.get(c) is not None]
    if memory:
        page.figure(Table(columns=["row", "metric", "value"], rows=memory, source=table.source),
                    Spec("bar", "metric", "value", ylabel="fraction"), "Memory: miss rates, DRAM locality and use")

    page.add("<h2>Configuration</h2>")
    for section in ("warpsim", "power.machine", "power.parameters"):
        prefix = section + "."
        items = [(c[len(prefix):], program.get(c)) for c in table.columns if c.startswith(prefix)]
        if items:
            page.add(f"<details><summary>{esc(section)}</summary>"
                     + _table(["name", "value"], [[("", esc(k)), ("", esc(v))] for k, v in items]) + "</details>")


def _short_kernel_names(kernels):
    """Kernel names without their argument lists, for axis labels; made unique."""
    short = [str(r.get("kernel") or "").split("(")[0] or "?" for r in kernels]
    counts = Counter(short)
    return [s if counts[s] == 1 else f"{s} #{r.get('kernel_index')}" for s, r in zip(short, kernels)]


def build(table):
    page = Page()
    if table.kind == "stats":
        _stats_sections(table, page)
    else:
        _sweep_sections(table, page)
        _config_sections(table, page)
    title = f"warpsim report: {table.name}"
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{esc(title)}</title><style>{STYLE}</style></head>\n"
            f"<body data-figures-expected='{page.figures}'>\n" + "\n".join(page.parts)
            + f"\n<script>{SCRIPT}</script>\n</body></html>\n")


def default_output(path, table):
    path = Path(path)
    if path.is_dir():
        return path / "report.html"
    if table.kind == "stats":
        return path.with_suffix(".html")
    return path.parent / "report.html"


def run(args):
    table = load(args.input)
    if not table.rows:
        raise UserError(f"{table.source}: no rows")
    out = Path(args.output) if args.output else default_output(args.input, table)
    text = build(table)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"{out}: cannot write: {e}") from None
    print(out)
    return 0
