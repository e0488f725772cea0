"""Reading results into rows.

A row is a dict from column name to a number, a string or None. Three inputs
give the same shape: a sweep's results.json, its results.csv, and one run's
statistics JSON (`warpsim run --stats`), which becomes one program row and one
row per kernel.
"""
import csv
import difflib
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path


class UserError(Exception):
    """A problem with the user's input: reported in one line, exit status 2."""


class NoDataError(UserError):
    """Well-formed input that leaves nothing to show."""


# Besides the parameter columns, these tell rows of one sweep apart.
KEY_COLUMNS = ("point", "label", "program", "kernel", "kernel_index")
DERIVED_COLUMNS = ("cycles", "thread_instructions", "ipc", "energy_J", "average_power_W", "edp_Js")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


@dataclass
class Table:
    columns: list
    rows: list
    name: str = ""
    parameters: list = field(default_factory=list)
    points: list = field(default_factory=list)
    source: Path = None
    base_dir: Path = None  # config_file paths of points are relative to it
    kind: str = "sweep"  # "sweep" or "stats"
    stats: dict = None  # the nested statistics of a single run


PROGRAM = "warpsim"  # main.py names the command, for messages


def warn(message):
    print(f"{PROGRAM}: {message}", file=sys.stderr)


def fmt(value):
    """A cell as text: how values appear in labels, filters and --data files."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def matches(cell, text):
    """Whether a cell equals a value typed on the command line (64 matches 64.0)."""
    if is_number(cell) and _NUMBER.fullmatch(text.strip()):
        return float(cell) == float(text)
    return fmt(cell) == text


def parse_cell(text):
    if text == "":
        return None
    if _NUMBER.fullmatch(text):
        return float(text) if any(c in text for c in ".eE") else int(text)
    return text


def demangle(names):
    """C++ symbol names as source names, where binutils' c++filt is at hand
    (a sweep's kernel column is demangled; a bare stats file is not)."""
    tool = shutil.which("c++filt")
    if not tool or not names:
        return list(names)
    try:
        done = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return list(names)
    out = done.stdout.splitlines()
    return out if done.returncode == 0 and len(out) == len(names) else list(names)


def flatten(obj, prefix="", skip=()):
    """Nested statistics as dotted names, as `warpsim sweep` flattens them: a
    name that is also a prefix of others keeps its value under "value", list
    items get their index; top-level members in `skip` are left out."""
    out = {}
    items = obj.items() if isinstance(obj, dict) else ((str(i), v) for i, v in enumerate(obj))
    for key, value in items:
        if not prefix and key in skip:
            continue
        name = prefix[:-1] if key == "value" and prefix and isinstance(obj, dict) else prefix + key
        if isinstance(value, (dict, list)):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def load(path):
    path = Path(path)
    if path.is_dir():
        for name in ("results.json", "results.csv"):
            if (path / name).is_file():
                return load(path / name)
        raise UserError(f"{path}: no results.json or results.csv in this directory")
    if not path.is_file():
        raise UserError(f"{path}: no such file or directory")
    try:
        if path.suffix == ".csv":
            return _load_csv(path)
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise UserError(f"{path}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise UserError(f"{path}: not valid JSON: {e}") from None
    if isinstance(data, dict) and "rows" in data and "columns" in data:
        return _sweep_table(data, path)
    if isinstance(data, dict) and ("warpsim" in data or "gpu_tot_sim_insn" in data or "kernels" in data):
        return stats_table(data, path)
    raise UserError(f"{path}: neither sweep results (rows, columns) nor a warpsim statistics file")


def _infer_parameters(columns):
    # The contract puts the parameter columns between `label` and `program`.
    if "label" in columns and "program" in columns:
        return columns[columns.index("label") + 1:columns.index("program")]
    return []


def _points_from_rows(rows, parameters):
    points, seen = [], set()
    for r in rows:
        if r.get("point") is not None and r["point"] not in seen:
            seen.add(r["point"])
            points.append({"point": r["point"], "label": r.get("label"),
                           "parameters": {p: r.get(p) for p in parameters}})
    return points


def _load_csv(path):
    with path.open(newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header:
            raise UserError(f"{path}: empty CSV file")
        rows = []
        for n, cells in enumerate(reader, start=2):
            if len(cells) != len(header):
                raise UserError(f"{path}:{n}: {len(cells)} cells, the header has {len(header)}")
            rows.append({c: parse_cell(v) for c, v in zip(header, cells)})
    parameters = _infer_parameters(header)
    return Table(columns=header, rows=rows, name=path.parent.name, parameters=parameters,
                 points=_points_from_rows(rows, parameters), source=path, base_dir=path.parent)


def _sweep_table(data, path):
    columns, rows = data["columns"], data["rows"]
    if not isinstance(columns, list) or not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise UserError(f"{path}: 'columns' must be a list of names and 'rows' a list of objects")
    parameters = data.get("parameters") or _infer_parameters(columns)
    points = data.get("points") or _points_from_rows(rows, parameters)
    return Table(columns=list(columns), rows=[{c: r.get(c) for c in columns} for r in rows],
                 name=data.get("sweep") or path.parent.name, parameters=list(parameters), points=points,
                 source=path, base_dir=path.parent)


def _ratio(values, numerator, denominator):
    # IPC as `warpsim sweep` derives it: instructions over cycles, null without cycles
    n, d = values.get(numerator), values.get(denominator)
    return n / d if is_number(n) and is_number(d) and d > 0 else None


def stats_table(stats, path):
    """One run's statistics as one program row and one row per kernel."""
    program = Path(str(stats.get("warpsim", {}).get("program") or path.stem)).name
    flat = flatten(stats, skip=("kernels", "launches"))
    base = {"point": "p000", "label": program, "program": program, "status": "pass", "reason": None}
    rows = [{**flat, **base, "row": "program", "kernel": None, "kernel_index": None,
             "wall_seconds": flat.get("warpsim.wall_seconds"), "cycles": flat.get("gpu_tot_sim_cycle"),
             "thread_instructions": flat.get("gpu_tot_sim_insn"),
             "ipc": _ratio(flat, "gpu_tot_sim_insn", "gpu_tot_sim_cycle"),
             "energy_J": flat.get("power.total_energy_J"), "average_power_W": flat.get("power.average_power_W"),
             "edp_Js": flat.get("power.edp_Js")}]
    kernels = [k for k in stats.get("kernels") or [] if isinstance(k, dict)]
    names = demangle([str(k.get("name", "")) for k in kernels])
    for i, (k, name) in enumerate(zip(kernels, names)):
        fields = flatten(k, skip=("name",))
        rows.append({**fields, **base, "row": "kernel", "kernel": name, "kernel_index": i,
                     "ipc": _ratio(fields, "thread_instructions", "cycles"),
                     "energy_J": fields.get("power.total_energy_J"),
                     "average_power_W": fields.get("power.average_power_W"), "edp_Js": fields.get("power.edp_Js")})
    head = ["row", "point", "label", "program", "kernel", "kernel_index", "status", "reason", "wall_seconds",
            *DERIVED_COLUMNS]
    rest = sorted({c for r in rows for c in r} - set(head))
    columns = head + rest
    rows = [{c: r.get(c) for c in columns} for r in rows]
    return Table(columns=columns, rows=rows, name=program, points=_points_from_rows(rows, []),
                 source=path, base_dir=path.parent, kind="stats", stats=stats)


def check_column(table, name, option="column"):
    if name in table.columns:
        return name
    close = difflib.get_close_matches(name, table.columns, n=5, cutoff=0.6)
    close += [c for c in table.columns if name.lower() in c.lower() and c not in close]
    message = f"unknown {option} '{name}'"
    if close:
        message += "; close matches: " + ", ".join(close[:6])
    raise UserError(message)


def parse_where(table, text):
    """COL=VALUE or COL!=VALUE, as a predicate on rows."""
    m = re.fullmatch(r"([^=!]+)(!?=)(.*)", text)
    if not m:
        raise UserError(f"--where '{text}': write COL=VALUE or COL!=VALUE")
    column, op, value = check_column(table, m.group(1).strip(), "column in --where"), m.group(2), m.group(3)
    if op == "=":
        return column, lambda r: matches(r.get(column), value)
    return column, lambda r: not matches(r.get(column), value)


def _values(rows, column, limit=12):
    seen = list(dict.fromkeys(fmt(r.get(column)) for r in rows))
    return ", ".join(seen[:limit]) + (", ..." if len(seen) > limit else "")


def select(table, rows="program", where=(), all_status=False, note=warn):
    """The rows of one kind that pass every filter and, unless all_status,
    whose status is `pass`; says how many it left out for their status."""
    picked = [r for r in table.rows if (r.get("row") or "program") == rows]
    if not picked:
        raise NoDataError(f"no {rows} rows in {table.source}")
    filters = [parse_where(table, w) for w in where]
    for (column, keep), text in zip(filters, where):
        narrowed = [r for r in picked if keep(r)]
        if not narrowed:
            raise NoDataError(f"no {rows} rows match --where {text} (values of {column}: {_values(picked, column)})")
        picked = narrowed
    if all_status or "status" not in table.columns or any(c == "status" for c, _ in filters):
        return picked
    passed = [r for r in picked if r.get("status") == "pass"]
    dropped = Counter(fmt(r.get("status")) or "(none)" for r in picked if r.get("status") != "pass")
    if dropped:
        counts = ", ".join(f"{s}: {n}" for s, n in sorted(dropped.items()))
        if not passed:
            raise NoDataError(f"no {rows} rows passed ({counts}); --all-status keeps them")
        note(f"left out {sum(dropped.values())} {rows} rows whose status is not pass ({counts}); "
             "--all-status keeps them")
    return passed
