"""`warpsim study`: draws a study's figures (studies/NAME/study.toml) from a
sweep's results and compares the paper's numbers with ours."""
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import plot
from .plotdata import Spec, mean, numeric_cell
from .results import NoDataError, UserError, check_column, fmt, load, matches, select

try:
    import tomllib
except ImportError:  # Python < 3.11: Debian's python3-toml
    tomllib = None
    import toml

DEFAULT_TOLERANCE = 0.05
TEXT, NUMBER, FLAG = (str,), (int, float), (bool,)
VALUE = (str, int, float)
# Each key of a [[figure]] mirrors a `warpsim plot` option.
FIGURE_KEYS = {"file": TEXT, "kind": TEXT, "x": TEXT, "y": (str, list), "z": TEXT, "group": TEXT,
               "normalize_to": VALUE, "mean": TEXT, "where": (str, list), "rows": TEXT, "aggregate": TEXT,
               "all_status": FLAG, "share": FLAG, "title": TEXT, "xlabel": TEXT, "ylabel": TEXT, "logx": FLAG,
               "logy": FLAG, "diagonal": FLAG, "data": TEXT}
FIGURE_REQUIRED = ("file", "kind", "x", "y")
EXPECT_KEYS = {"name": TEXT, "y": TEXT, "group": TEXT, "value": VALUE, "baseline": VALUE, "over": TEXT,
               "aggregate": TEXT, "paper": NUMBER, "tolerance": NUMBER, "where": (str, list), "rows": TEXT}
EXPECT_REQUIRED = ("name", "y", "group", "value", "paper")
TOP_KEYS = ("title", "paper", "description", "sweep", "figure", "expect")
VERDICT_HELP = ("agrees: within the tolerance of the paper's number (default ±5%); same trend: the same "
                "direction as the paper (both above 1.02, both below 0.98, or both within 2% of 1.0); "
                "differs: otherwise; no data: rows missing")


@dataclass
class Check:
    name: str
    paper: float
    ours: float = None
    verdict: str = "no data"
    basis: str = ""  # what ours rests on, or why there is none
    ratios: list = field(default_factory=list)  # (over-value and keys, ratio)


def _check_table(path, what, index, entry, keys, required):
    label = f"{path}: [[{what}]] {index}"
    if not isinstance(entry, dict):
        raise UserError(f"{label}: not a table")
    label += f" ({entry.get('file') or entry.get('name') or '?'})"
    for key, value in entry.items():
        if key not in keys:
            raise UserError(f"{label}: unknown key '{key}' (known: {', '.join(keys)})")
        if isinstance(value, bool) and keys[key] is not FLAG or not isinstance(value, keys[key]):
            raise UserError(f"{label}: '{key}' has the wrong type ({type(value).__name__})")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise UserError(f"{label}: '{key}' must be a list of strings")
    missing = [k for k in required if k not in entry]
    if missing:
        raise UserError(f"{label}: missing key{'s' if len(missing) > 1 else ''} {', '.join(missing)}")


def read_study(path):
    path = Path(path)
    try:
        if tomllib:
            with path.open("rb") as f:
                study = tomllib.load(f)
        else:
            study = toml.load(str(path))
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e}") from None
    except Exception as e:  # each TOML module has its own decode error
        raise UserError(f"{path}: not valid TOML: {e}") from None
    for key in study:
        if key not in TOP_KEYS:
            print(f"warpsim study: {path}: ignoring unknown top-level key '{key}'", file=sys.stderr)
    for what, keys, required in (("figure", FIGURE_KEYS, FIGURE_REQUIRED), ("expect", EXPECT_KEYS, EXPECT_REQUIRED)):
        entries = study.get(what, [])
        if not isinstance(entries, list):
            raise UserError(f"{path}: '{what}' must be an array of tables ([[{what}]])")
        for i, entry in enumerate(entries, start=1):
            _check_table(path, what, i, entry, keys, required)
    for entry in study.get("figure", []):
        plot.figure_format(entry["file"])
        if Path(entry["file"]).is_absolute() or ".." in Path(entry["file"]).parts:
            raise UserError(f"{path}: [[figure]] file '{entry['file']}' must be a name inside the figures folder")
    return study


def _list(value):
    return [value] if isinstance(value, str) else list(value or [])


def figure_spec(entry):
    y = entry["y"] if isinstance(entry["y"], str) else ",".join(entry["y"])
    return Spec(kind=entry["kind"], x=entry["x"], y=y, z=entry.get("z"), group=entry.get("group"),
                normalize_to=fmt(entry["normalize_to"]) if "normalize_to" in entry else None,
                mean=entry.get("mean"), where=_list(entry.get("where")), rows=entry.get("rows", "program"),
                aggregate=entry.get("aggregate"), all_status=entry.get("all_status", False),
                share=entry.get("share", False), title=entry.get("title"), xlabel=entry.get("xlabel"),
                ylabel=entry.get("ylabel"), logx=entry.get("logx", False), logy=entry.get("logy", False),
                diagonal=entry.get("diagonal", False))


# A ratio within this of 1.0 is "no change": a trend needs a direction on both sides.
NEUTRAL_BAND = 0.02


def direction(ratio):
    if abs(ratio - 1.0) <= NEUTRAL_BAND:
        return 0
    return 1 if ratio > 1.0 else -1


def judge(ours, paper, tolerance, relative=True):
    """relative: ours and paper are ratios to a baseline, so a direction
    (above or below 1.0) is a trend; an absolute value only agrees or not."""
    if ours is None:
        return "no data"
    if abs(ours - paper) <= tolerance * abs(paper):
        return "agrees"
    if relative and direction(ours) == direction(paper):
        return "same trend"
    return "differs"


def ratios(table, rule, note):
    """The ratios value / baseline of the rule's y, one per benchmark: rows are
    matched on the over column and on every other key column that varies.
    Without a baseline, the values themselves (an absolute figure of the paper).
    Returns (key columns, [(key values, ratio)], rows without a baseline)."""
    y, group = check_column(table, rule["y"]), check_column(table, rule["group"])
    over = check_column(table, rule.get("over", "program"))
    rows = select(table, rule.get("rows", "program"), _list(rule.get("where")), note=note)
    value_rows = [r for r in rows if matches(r.get(group), fmt(rule["value"]))]
    absolute = "baseline" not in rule
    base_rows = value_rows if absolute else [r for r in rows if matches(r.get(group), fmt(rule["baseline"]))]
    for rows_of, name in ((value_rows, rule["value"]), (base_rows, rule.get("baseline", rule["value"]))):
        if not rows_of:
            raise NoDataError(f"no rows with {group}={fmt(name)}")
    # Columns constant within each side (a config file per policy, say) do not identify benchmarks.
    candidates = [c for c in table.parameters + ["program", "kernel", "kernel_index"]
                  if c in table.columns and c not in (group, over)]
    keys = [over] + [c for c in dict.fromkeys(candidates)
                     if any(len({fmt(r.get(c)) for r in side}) > 1 for side in (value_rows, base_rows))]

    def index(side):
        out = {}
        for r in side:
            key = tuple(fmt(r.get(c)) for c in keys)
            if key in out:
                raise UserError(f"several rows with {group}={fmt(r.get(group))}, "
                                + ", ".join(f"{c}={k}" for c, k in zip(keys, key)))
            out[key] = numeric_cell(r, y)
        return out

    base, found, unmatched = index(base_rows), [], 0
    for key, v in index(value_rows).items():
        if absolute:
            if v is None:
                unmatched += 1
            else:
                found.append((key, v))
            continue
        b = base.get(key)
        if v is None or not b:
            unmatched += 1
            continue
        found.append((key, v / b))
    return keys, found, unmatched


def _describe(keys, key):
    """micro/copy-aligned (l1=16KiB): the benchmark, then the other keys."""
    rest = ", ".join(f"{c}={v}" for c, v in zip(keys[1:], key[1:]))
    return key[0] + (f" ({rest})" if rest else "")


def evaluate(table, rule, note):
    check = Check(rule["name"], rule["paper"])
    how = rule.get("aggregate", "geomean")
    if how not in ("geomean", "mean", "max", "min") and not how.startswith("program:"):
        raise UserError(f"[[expect]] {rule['name']}: unknown aggregate '{how}' "
                        "(geomean, mean, max, min or program:<name>)")
    try:
        keys, found, unmatched = ratios(table, rule, note)
    except NoDataError as e:
        check.basis = str(e)
        return check
    if how.startswith("program:"):
        name = how.split(":", 1)[1]
        picked = [f for f in found if f[0][0] == name] or [f for f in found if f[0][0].split("/")[-1] == name]
        found = picked
    check.ratios = [(_describe(keys, k), r) for k, r in found]
    if not found:
        check.basis = f"no {keys[0]} with both values" + (f" ({how})" if how.startswith("program:") else "")
        return check
    values = [r for _, r in found]
    # One benchmark's figure is taken as it is (a geometric mean would refuse a zero).
    single = how.startswith("program:") and len(values) == 1
    try:
        check.ours = values[0] if single else {"max": max, "min": min}[how](values) if how in ("max", "min") else \
            mean(values, "arith" if how == "mean" else "geo")
    except UserError as e:
        check.basis = str(e)
        return check
    check.verdict = judge(check.ours, check.paper, rule.get("tolerance", DEFAULT_TOLERANCE), "baseline" in rule)
    if how.startswith("program:") and len(values) == 1:
        check.basis = f"the {'ratio' if 'baseline' in rule else 'value'} of {check.ratios[0][0]}"
    else:
        plural = "s" if len(values) != 1 else ""
        what = "ratio" if "baseline" in rule else "value"
        check.basis = f"{how.replace('program:', 'geomean over ')} of {len(values)} {what}{plural}"
    if unmatched:
        check.basis += f", {unmatched} without a baseline"
    return check


def _rows(checks):
    return [[c.name, fmt(c.paper), f"{c.ours:.3f}" if c.ours is not None else "-", c.verdict, c.basis]
            for c in checks]


def text_table(checks):
    header = ["rule", "paper", "ours", "verdict", "based on"]
    rows = [header] + _rows(checks)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = [" | ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown(study, results_dir, checks, figures, md_path):
    cell = lambda s: str(s).replace("|", "\\|").replace("\n", " ")
    out = [f"# {study.get('title', 'Study')}", ""]
    for key in ("paper", "description"):
        if study.get(key):
            out += [f"{'Paper: ' if key == 'paper' else ''}{study[key].strip()}", ""]
    out += [f"Results: `{results_dir}`", "", "## The paper's numbers and ours", "",
            "| rule | paper | ours | verdict | based on |", "|---|---:|---:|---|---|"]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in _rows(checks)]
    out += ["", f"Verdicts: {VERDICT_HELP}.", ""]
    detailed = [c for c in checks if c.ratios]
    if detailed:
        out += ["### Ratios per benchmark", ""]
        out += [f"- {cell(c.name)}: " + ", ".join(f"{k} {r:.3f}" for k, r in c.ratios) for c in detailed]
        out.append("")
    if figures:
        out += ["## Figures", ""]
        for entry, path, problem in figures:
            title = entry.get("title") or entry["file"]
            if problem:
                out += [f"- {cell(title)}: not drawn ({cell(problem)})"]
            else:
                link = Path(os.path.relpath(path, md_path.parent)).as_posix()
                out += [f"### {title}", "", f"![{title}]({link})", ""]
    return "\n".join(out).rstrip() + "\n"


def run(args):
    study = read_study(args.study)
    results_dir = Path(args.results)
    table = load(results_dir)
    figures_dir = Path(args.figures_dir) if args.figures_dir else (
        results_dir if results_dir.is_dir() else results_dir.parent) / "figures"
    md_path = Path(args.markdown) if args.markdown else (
        results_dir if results_dir.is_dir() else results_dir.parent) / "check.md"
    seen = set()

    def note(message):  # most figures and rules leave out the same rows: say it once
        if message not in seen:
            seen.add(message)
            print(f"warpsim study: {message}", file=sys.stderr)

    figures = []
    for entry in study.get("figure", []):
        out = figures_dir / entry["file"]
        try:
            plot.draw(table, figure_spec(entry), out, figures_dir / entry["data"] if "data" in entry else None, note)
            figures.append((entry, out, None))
        except NoDataError as e:
            note(f"figure {entry['file']} not drawn: {e}")
            figures.append((entry, out, str(e)))
        except UserError as e:
            raise UserError(f"[[figure]] {entry['file']}: {e}") from None
    checks = []
    for rule in study.get("expect", []):
        try:
            checks.append(evaluate(table, rule, note))
        except UserError as e:
            raise UserError(f"[[expect]] {rule['name']}: {e}") from None

    if study.get("title"):
        print(study["title"])
    if checks:
        print(text_table(checks))
    for entry, out, problem in figures:
        print(f"figure {out}" + (f": not drawn ({problem})" if problem else ""))
    try:
        md_path.parent.mkdir(parents=True, exist_ok=True)
        md_path.write_text(markdown(study, results_dir, checks, figures, md_path), encoding="utf-8")
    except OSError as e:
        raise UserError(f"{md_path}: cannot write: {e}") from None
    print(f"markdown {md_path}")
    return 0
