"""The numbers a figure shows: rows grouped into cells, combined, normalized
and averaged. Drawing them is plot.py's job; `--data` writes exactly these."""
import csv
import fnmatch
import math
from dataclasses import dataclass, field

from .results import KEY_COLUMNS, NoDataError, UserError, check_column, fmt, is_number, matches, select, warn

KINDS = ("bar", "line", "scatter", "stacked", "heatmap")
MEAN_LABELS = {"geo": "GMEAN", "harmonic": "HMEAN", "arith": "MEAN"}
AGGREGATES = ("sum", "mean", "first")


@dataclass
class Spec:
    kind: str
    x: str
    y: str  # stacked: components, comma-separated; heatmap: the second key column
    z: str = None
    group: str = None
    normalize_to: str = None
    mean: str = None
    where: list = field(default_factory=list)
    rows: str = "program"
    aggregate: str = None
    all_status: bool = False
    share: bool = False
    title: str = None
    xlabel: str = None
    ylabel: str = None
    logx: bool = False
    logy: bool = False
    diagonal: bool = False


@dataclass
class Data:
    spec: Spec
    xs: list  # x values in drawing order
    groups: list  # group values in drawing order; [None] without a group column
    values: dict  # (x, group) -> y; stacked (x, group) -> [component values]; heatmap (x, y, group) -> z
    header: list  # the --data file: header and records
    records: list
    components: list = field(default_factory=list)
    ys: list = field(default_factory=list)  # heatmap rows
    points: list = field(default_factory=list)  # scatter: (x, y, group)
    mean_label: str = None
    means: dict = field(default_factory=dict)  # bar: group -> mean; line: x -> mean over groups
    baseline: str = None  # "policy=2L-RR" when normalized
    ylabel: str = ""


def mean(values, how):
    values = list(values)
    if how == "arith":
        return sum(values) / len(values)
    if any(v <= 0 for v in values):
        raise UserError(f"the {'geometric' if how == 'geo' else 'harmonic'} mean needs positive values; "
                        "use --mean arith")
    if how == "geo":
        return math.exp(sum(math.log(v) for v in values) / len(values))
    return len(values) / sum(1 / v for v in values)


def ordered(values):
    """Distinct values: numbers sorted, anything else in order of appearance."""
    distinct = list(dict.fromkeys(values))
    if distinct and all(is_number(v) for v in distinct):
        return sorted(distinct)
    return distinct


def _common_parts(names):
    """How many leading and trailing dotted parts all names share."""
    parts = [n.split(".") for n in names]
    head = tail = 0
    if len(parts) < 2:
        return parts, head, tail
    while all(len(p) > head + 1 and p[head] == parts[0][head] for p in parts):
        head += 1
    while all(len(p) > head + tail + 1 and p[-1 - tail] == parts[0][-1 - tail] for p in parts):
        tail += 1
    return parts, head, tail


def short_names(names):
    """Component names without the dotted parts they all share
    (power.group.sm.energy_J, power.group.l2.energy_J -> sm, l2)."""
    parts, head, tail = _common_parts(names)
    return [".".join(p[head:len(p) - tail]) for p in parts] if len(parts) > 1 else list(names)


def common_name(names):
    """One name for all components, for an axis (power.group.*.energy_J)."""
    parts, head, tail = _common_parts(names)
    if len(parts) < 2:
        return ", ".join(names)
    return ".".join(parts[0][:head] + ["*"] + (parts[0][len(parts[0]) - tail:] if tail else []))


def numeric_cell(row, column):
    """A row's number in `column`, or None; text there is an error."""
    value = row.get(column)
    if value is None or is_number(value):
        return value
    raise UserError(f"column '{column}' is not numeric: {value!r} in the row of program "
                    f"{fmt(row.get('program'))}, point {fmt(row.get('point'))}")


def _describe(keys, key):
    return ", ".join(f"{k}={fmt(v)}" for k, v in zip(keys, key))


def _collision(table, keys, key, rows):
    candidates = [c for c in table.parameters + list(KEY_COLUMNS) if c in table.columns and c not in keys]
    differ = [c for c in candidates if len({fmt(r.get(c)) for r in rows}) > 1]
    # label and point follow from the parameters: name them only when nothing else differs
    shown = [c for c in differ if c not in ("point", "label")] or differ
    message = f"{len(rows)} rows share {_describe(keys, key)}"
    if not shown:
        return message + " and differ in no parameter; combine them with --aggregate sum|mean|first"
    return (message + f"; they differ in {', '.join(shown)}: pick one with --where {shown[0]}="
            f"{fmt(rows[0].get(shown[0]))}, or combine them with --aggregate sum|mean|first")


def collect(table, rows, keys, columns, aggregate, note=warn):
    """Cells keyed by the key columns' values, each a list with one value per
    column; rows that share a key are an error unless `aggregate` says how to
    combine them. Rows without any value are left out; single missing
    components of a stacked bar count as 0."""
    buckets, empty = {}, 0
    for r in rows:
        values = [numeric_cell(r, c) for c in columns]
        if all(v is None for v in values):
            empty += 1
            continue
        buckets.setdefault(tuple(r.get(k) for k in keys), []).append((r, [v or 0.0 for v in values]))
    if empty:
        note(f"left out {empty} rows with no value of {', '.join(columns)}")
    if not buckets:
        raise NoDataError(f"no values of {', '.join(columns)} in the selected rows")
    cells = {}
    for key, items in buckets.items():
        if len(items) > 1 and not aggregate:
            raise UserError(_collision(table, keys, key, [r for r, _ in items]))
        columns_of = list(zip(*(v for _, v in items)))
        if aggregate == "first" or len(items) == 1:
            cells[key] = [float(v) for v in items[0][1]]
        elif aggregate == "sum":
            cells[key] = [float(sum(c)) for c in columns_of]
        else:
            cells[key] = [sum(c) / len(c) for c in columns_of]
    return cells


def normalization(table, spec, default_column, keys, cells=None):
    """(column, text) of --normalize-to: VALUE of the default column, or COL=VALUE
    (a value of the default column that contains '=' still counts as a value)."""
    column, value = default_column, spec.normalize_to
    if "=" in value and value.split("=", 1)[0] in table.columns:
        present = [k[keys.index(column)] for k in cells or ()] if column in keys else []
        if not any(matches(v, value) for v in present):
            column, value = value.split("=", 1)
    if column is None:
        raise UserError("--normalize-to VALUE names a value of the --group column: give --group, or write COL=VALUE")
    if column not in keys:
        raise UserError(f"--normalize-to {column}=...: {column} is not a key of this figure "
                        f"(use one of {', '.join(keys)})")
    return column, value


def normalize(cells, keys, column, text, note=warn):
    """Each cell divided by the total of the cell whose `column` is the baseline
    value and whose other keys are the same."""
    i = keys.index(column)
    present = list(dict.fromkeys(k[i] for k in cells))
    base_value = next((v for v in present if matches(v, text)), None)
    if base_value is None:
        raise NoDataError(f"no baseline {column}={text} to normalize to; values of {column}: "
                        + ", ".join(fmt(v) for v in present))
    out, missing = {}, []
    for key, values in cells.items():
        base = cells.get(key[:i] + (base_value,) + key[i + 1:])
        if not base or sum(base) == 0:
            missing.append(key)
            continue
        out[key] = [v / sum(base) for v in values]
    if missing:
        note(f"left out {len(missing)} values without a (non-zero) baseline {column}={fmt(base_value)}: "
             + "; ".join(_describe(keys, k) for k in missing[:4]) + ("; ..." if len(missing) > 4 else ""))
    if not out:
        raise NoDataError(f"nothing left after normalizing to {column}={fmt(base_value)}")
    return out, f"{column}={fmt(base_value)}"


def compute(table, spec, note=warn):
    if spec.kind not in KINDS:
        raise UserError(f"unknown --kind '{spec.kind}' (use {', '.join(KINDS)})")
    if spec.mean and spec.kind not in ("bar", "line"):
        raise UserError("--mean applies to bar and line figures")
    if spec.mean and spec.mean not in MEAN_LABELS:
        raise UserError(f"unknown --mean '{spec.mean}' (use {', '.join(MEAN_LABELS)})")
    if spec.aggregate and spec.aggregate not in AGGREGATES:
        raise UserError(f"unknown --aggregate '{spec.aggregate}' (use {', '.join(AGGREGATES)})")
    if spec.share and (spec.kind != "stacked" or spec.normalize_to):
        raise UserError("--share applies to stacked figures without --normalize-to")
    by_group = spec.kind in ("bar", "stacked", "heatmap")
    if spec.normalize_to and by_group and not spec.group and "=" not in spec.normalize_to:
        raise UserError("--normalize-to VALUE names a value of the --group column: give --group, or write COL=VALUE")
    check_column(table, spec.x, "--x column")
    if spec.group:
        check_column(table, spec.group, "--group column")
    rows = select(table, spec.rows, spec.where, spec.all_status, note)
    return {"bar": _bar_or_line, "line": _bar_or_line, "stacked": _stacked, "scatter": _scatter,
            "heatmap": _heatmap}[spec.kind](table, spec, rows, note)


def _keys(spec, *extra):
    return [spec.x, *extra] + ([spec.group] if spec.group else [])


def _group_of(spec, key):
    return key[-1] if spec.group else None


def _bar_or_line(table, spec, rows, note):
    y = check_column(table, spec.y, "--y column")
    keys = _keys(spec)
    cells = collect(table, rows, keys, [y], spec.aggregate, note)
    baseline, ylabel = None, y
    if spec.normalize_to:
        default = spec.group if spec.kind == "bar" else spec.x
        column, text = normalization(table, spec, default, keys, cells)
        cells, baseline = normalize(cells, keys, column, text, note)
        ylabel = f"{y} (normalized to {baseline})"
    values = {(k[0], _group_of(spec, k)): v[0] for k, v in cells.items()}
    xs, groups = ordered(k[0] for k in values), ordered(k[1] for k in values)
    data = Data(spec, xs, groups, values, header=[spec.x] + ([spec.group] if spec.group else []) + [y],
                records=[], baseline=baseline, ylabel=ylabel)
    for (x, g), v in sorted(values.items(), key=lambda kv: (xs.index(kv[0][0]), groups.index(kv[0][1]))):
        data.records.append([x] + ([g] if spec.group else []) + [v])
    if spec.mean:
        data.mean_label = MEAN_LABELS[spec.mean]
        if spec.kind == "bar":
            for g in groups:
                data.means[g] = mean((v for (_, vg), v in values.items() if vg == g), spec.mean)
                data.records.append([data.mean_label] + ([g] if spec.group else []) + [data.means[g]])
        else:
            for x in xs:
                data.means[x] = mean((v for (vx, _), v in values.items() if vx == x), spec.mean)
                data.records.append([x] + ([data.mean_label] if spec.group else []) + [data.means[x]])
    return data


def _stacked(table, spec, rows, note):
    components = []
    for name in (c.strip() for c in spec.y.split(",") if c.strip()):
        if "*" in name:  # a pattern such as power.group.*.energy_J
            found = [c for c in table.columns if fnmatch.fnmatchcase(c, name)]
            if not found:
                raise UserError(f"no column matches '{name}'")
            components += found
        else:
            components.append(check_column(table, name, "--y column"))
    if not components:
        raise UserError("--y: give the stacked components, comma-separated")
    keys = _keys(spec)
    cells = collect(table, rows, keys, components, spec.aggregate, note)
    baseline, ylabel = None, common_name(components)
    if spec.normalize_to:
        column, text = normalization(table, spec, spec.group, keys, cells)
        cells, baseline = normalize(cells, keys, column, text, note)
        ylabel = f"{ylabel} (normalized to the total of {baseline})"
    elif spec.share:
        cells = {k: [100 * v / sum(vs) if sum(vs) else 0.0 for v in vs] for k, vs in cells.items()}
        ylabel = "share of the total (%)"
    values = {(k[0], _group_of(spec, k)): v for k, v in cells.items()}
    xs, groups = ordered(k[0] for k in values), ordered(k[1] for k in values)
    data = Data(spec, xs, groups, values, components=components, baseline=baseline, ylabel=ylabel,
                header=[spec.x] + ([spec.group] if spec.group else []) + ["component", "value"], records=[])
    for x in xs:
        for g in groups:
            for c, v in zip(components, values.get((x, g), [])):
                data.records.append([x] + ([g] if spec.group else []) + [c, v])
    return data


def _scatter(table, spec, rows, note):
    y = check_column(table, spec.y, "--y column")
    points = [(numeric_cell(r, spec.x), numeric_cell(r, y), r.get(spec.group) if spec.group else None)
              for r in rows]
    left_out = sum(1 for p in points if p[0] is None or p[1] is None)
    points = [p for p in points if p[0] is not None and p[1] is not None]
    if left_out:
        note(f"left out {left_out} rows without a value of {spec.x} or {y}")
    if not points:
        raise NoDataError(f"no rows with values of both {spec.x} and {y}")
    baseline, ylabel = None, y
    if spec.normalize_to:
        column, text = normalization(table, spec, spec.x, [spec.x])
        bases = {}
        for px, py, g in points:
            if matches(px, text):
                if g in bases:
                    which = f" for {spec.group}={fmt(g)}" if spec.group else ""
                    raise UserError(f"several points at {spec.x}={text}{which}: pick one with --where")
                bases[g] = py
        if not any(bases.values()):
            raise NoDataError(f"no baseline {spec.x}={text} to normalize to")
        kept = [(px, py / bases[g], g) for px, py, g in points if bases.get(g)]
        if len(kept) < len(points):
            note(f"left out {len(points) - len(kept)} points without a (non-zero) baseline {spec.x}={text}")
        points, baseline = kept, f"{spec.x}={text}"
        ylabel = f"{y} (normalized to {baseline})"
    groups = ordered(p[2] for p in points)
    return Data(spec, ordered(p[0] for p in points), groups, {}, points=points, baseline=baseline, ylabel=ylabel,
                header=[spec.x] + ([spec.group] if spec.group else []) + [y],
                records=[[px] + ([g] if spec.group else []) + [py] for px, py, g in points])


def _heatmap(table, spec, rows, note):
    if not spec.z:
        raise UserError("a heatmap needs --z COL, the value of each cell (--x and --y are its coordinates)")
    y, z = check_column(table, spec.y, "--y column"), check_column(table, spec.z, "--z column")
    keys = _keys(spec, y)
    cells = collect(table, rows, keys, [z], spec.aggregate, note)
    baseline, label = None, z
    if spec.normalize_to:
        column, text = normalization(table, spec, spec.group, keys, cells)
        cells, baseline = normalize(cells, keys, column, text, note)
        label = f"{z} (normalized to {baseline})"
    values = {(k[0], k[1], _group_of(spec, k)): v[0] for k, v in cells.items()}
    xs, ys, groups = (ordered(k[i] for k in values) for i in range(3))
    data = Data(spec, xs, groups, values, ys=ys, baseline=baseline, ylabel=label,
                header=[spec.x, y] + ([spec.group] if spec.group else []) + [z], records=[])
    for g in groups:
        for yv in ys:
            for x in xs:
                if (x, yv, g) in values:
                    data.records.append([x, yv] + ([g] if spec.group else []) + [values[(x, yv, g)]])
    return data


def write_data(data, path):
    try:
        with open(path, "w", newline="") as f:
            out = csv.writer(f, lineterminator="\n")
            out.writerow(data.header)
            for record in data.records:
                out.writerow([repr(v) if isinstance(v, float) else fmt(v) for v in record])
    except OSError as e:
        raise UserError(f"{path}: cannot write: {e}") from None
