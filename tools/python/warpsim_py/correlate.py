"""`warpsim correlate`: measured kernel times (a real GPU under `warpsim
profile`, GPGPU-Sim's output, or a CSV) joined with warpsim's statistics, kernel
by kernel in launch order, with the error of each, the mean absolute percentage
error, Pearson's correlation and a log-log scatter plot."""
import csv
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from .results import UserError, warn


@dataclass
class Launch:
    kernel: str      # mangled name; "" for a whole program's total
    ns: float = 0.0  # kernel time
    cycles: float = 0.0


@dataclass
class Program:
    key: str          # "suite/name" or "name"
    klass: str        # the program class: its suite (parent directory), or "other"
    source: str       # the file it came from
    launches: list = field(default_factory=list)
    clock_mhz: float = 0.0
    wall_seconds: float = 0.0  # host time of the simulation or run, where known

    def total_ns(self):
        return sum(launch.ns for launch in self.launches)


def _program_key(path_text):
    parts = [p for p in Path(str(path_text)).parts if p not in ("", "/", ".")]
    if not parts:
        return "", "other"
    name = parts[-1]
    suite = parts[-2] if len(parts) >= 2 else ""
    return (f"{suite}/{name}" if suite else name), (suite or "other")


def _from_stats(data, source):
    """A warpsim statistics JSON: `warpsim run` (cycles, timing mode) or
    `warpsim profile` (kernel times measured with CUDA events)."""
    meta = data.get("warpsim", {})
    key, klass = _program_key(meta.get("program", Path(source).stem))
    clock = float(meta.get("core_clock_mhz") or 0)
    measured = meta.get("mode") == "profile"
    launches = data.get("launches")
    if not isinstance(launches, list):
        raise UserError(f"{source}: no per-launch records ('launches'): written by a warpsim older than "
                        "correlate, run it again")
    program = Program(key, klass, str(source), clock_mhz=clock,
                      wall_seconds=float(meta.get("simulation_seconds") or meta.get("wall_seconds") or 0))
    for launch in launches:
        cycles = float(launch.get("cycles") or 0)
        if measured:
            ns = float(launch.get("duration_ns") or 0)
        elif cycles > 0 and clock > 0:
            ns = cycles * 1000.0 / clock
        else:
            raise UserError(f"{source}: launch {launch.get('index')} has no cycles: correlate compares "
                            "timing-mode runs (warpsim run --mode timing)")
        program.launches.append(Launch(str(launch.get("kernel", "")), ns, cycles))
    return program


_GS_CLOCK = re.compile(r"^-gpgpu_clock_domains\s+([0-9.]+)", re.M)
_GS_KERNEL = re.compile(r"^kernel_name\s*=\s*(\S+)", re.M)
_GS_CYCLES = re.compile(r"^gpu_sim_cycle\s*=\s*(\d+)", re.M)
_GS_TOTAL = re.compile(r"^gpu_tot_sim_cycle\s*=\s*(\d+)", re.M)
_GS_WALL = re.compile(r"^gpgpu_simulation_time\s*=.*\((\d+)\s*sec\)", re.M)


def _from_gpgpusim(text, source, clock_override):
    """GPGPU-Sim's standard output: its option dump (for the core clock) and
    each kernel's `kernel_name` ... `gpu_sim_cycle` block."""
    clock = clock_override
    if not clock:
        m = _GS_CLOCK.search(text)
        if not m:
            raise UserError(f"{source}: GPGPU-Sim output without its -gpgpu_clock_domains line: "
                            "give the core clock with --measured-clock MHZ")
        clock = float(m.group(1))
    key, klass = _program_key(Path(source).stem)
    program = Program(key, klass, str(source), clock_mhz=clock)
    names = [(m.start(), m.group(1)) for m in _GS_KERNEL.finditer(text)]
    cycles = [(m.start(), int(m.group(1))) for m in _GS_CYCLES.finditer(text)]
    for i, (at, name) in enumerate(names):
        end = names[i + 1][0] if i + 1 < len(names) else len(text)
        inside = [c for pos, c in cycles if at < pos < end]
        if inside:  # the block's first gpu_sim_cycle is the kernel's own
            program.launches.append(Launch(name, inside[0] * 1000.0 / clock, inside[0]))
    if not program.launches:
        totals = _GS_TOTAL.findall(text)
        if not totals:
            raise UserError(f"{source}: no kernel_name/gpu_sim_cycle or gpu_tot_sim_cycle lines: "
                            "not GPGPU-Sim output, or the simulation did not finish")
        program.launches.append(Launch("", int(totals[-1]) * 1000.0 / clock, int(totals[-1])))
    wall = _GS_WALL.findall(text)
    if wall:
        program.wall_seconds = float(wall[-1])
    return program


def _from_csv(path, clock_override):
    """Rows of program, kernel (empty: the whole program), launch (its index
    among that kernel's launches) and ns, or cycles with clock_mhz."""
    programs = {}
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise UserError(f"{path}: cannot read: {e}") from None
    for n, row in enumerate(rows, start=2):
        if not row.get("program"):
            raise UserError(f"{path}:{n}: a row without a program")
        try:
            clock = float(row.get("clock_mhz") or clock_override or 0)
            cycles = float(row.get("cycles") or 0)
            ns = float(row.get("ns") or 0) or (cycles * 1000.0 / clock if clock else 0)
        except ValueError as e:
            raise UserError(f"{path}:{n}: {e}") from None
        if ns <= 0:
            raise UserError(f"{path}:{n}: needs ns, or cycles with clock_mhz (or --measured-clock)")
        key, klass = _program_key(row["program"])
        program = programs.setdefault(key, Program(key, row.get("class") or klass, str(path), clock_mhz=clock))
        if row.get("wall_seconds"):
            program.wall_seconds = float(row["wall_seconds"])
        program.launches.append(Launch(row.get("kernel") or "", ns, cycles))
    return list(programs.values())


def load_programs(paths, clock_override=0.0, simulated=False):
    """Every program in the given files and directories (searched for
    statistics JSONs, GPGPU-Sim logs and CSVs)."""
    files = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in (".json", ".log", ".txt", ".csv"))
        elif p.is_file():
            files.append(p)
        else:
            raise UserError(f"{p}: no such file or directory")
    programs = []
    for f in files:
        try:
            text = f.read_text(errors="replace")
        except OSError as e:
            raise UserError(f"{f}: cannot read: {e}") from None
        if f.suffix == ".csv" and not simulated:
            programs += _from_csv(f, clock_override)
            continue
        if text.lstrip().startswith("{"):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                raise UserError(f"{f}: not valid JSON: {e}") from None
            if isinstance(data, dict) and "warpsim" in data:
                programs.append(_from_stats(data, f))
            elif f in map(Path, paths):
                raise UserError(f"{f}: not a warpsim statistics file")
            continue
        if not simulated and ("gpu_tot_sim_cycle" in text or "kernel_name" in text):
            programs.append(_from_gpgpusim(text, f, clock_override))
        elif f in map(Path, paths):
            raise UserError(f"{f}: neither warpsim statistics nor GPGPU-Sim output")
    return programs


@dataclass
class Pair:
    program: str
    klass: str
    kernel: str   # "" for a whole program
    launch: int   # index among the kernel's launches
    measured_ns: float
    simulated_ns: float

    @property
    def error(self):
        return (self.simulated_ns - self.measured_ns) / self.measured_ns


def _match(measured, simulated):
    """The simulated program for each measured one: by suite/name, else by a
    name only one simulated program has."""
    by_key = {}
    for p in simulated:
        if p.key in by_key:
            raise UserError(f"two simulated runs of {p.key} ({by_key[p.key].source}, {p.source}): "
                            "give the runs of one configuration")
        by_key[p.key] = p
    by_name = {}
    for p in simulated:
        by_name.setdefault(p.key.split("/")[-1], []).append(p)
    for m in measured:
        s = by_key.get(m.key)
        if s is None:
            candidates = by_name.get(m.key.split("/")[-1], [])
            s = candidates[0] if len(candidates) == 1 else None
        yield m, s


def join(measured, simulated, note=warn):
    """Pairs of measured and simulated kernel times: the i-th launch of a
    kernel with the i-th launch of the same kernel; a measured whole-program
    total with the sum of the program's simulated launches."""
    pairs = []
    for m, s in _match(measured, simulated):
        if s is None:
            note(f"{m.source}: no simulated run of {m.key}")
            continue
        klass = s.klass if s.klass != "other" else m.klass
        totals = [launch for launch in m.launches if not launch.kernel]
        if totals:
            pairs.append(Pair(m.key, klass, "", 0, sum(t.ns for t in totals), s.total_ns()))
        seen, queues = {}, {}
        for launch in s.launches:
            queues.setdefault(launch.kernel, []).append(launch)
        for launch in m.launches:
            if not launch.kernel:
                continue
            i = seen.get(launch.kernel, 0)
            seen[launch.kernel] = i + 1
            sim = queues.get(launch.kernel, [])
            if i < len(sim):
                pairs.append(Pair(m.key, klass, launch.kernel, i, launch.ns, sim[i].ns))
        for kernel, count in seen.items():
            have = len(queues.get(kernel, []))
            if have != count:
                note(f"{m.key}: kernel {kernel} launched {count} times measured, {have} simulated: "
                     f"the first {min(have, count)} are compared")
    return [p for p in pairs if p.measured_ns > 0]


def pearson(xs, ys):
    n = len(xs)
    if n < 2:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def summary(pairs):
    """MAPE, mean error, Pearson's r (on the times and on their logarithms)."""
    if not pairs:
        return {"count": 0}
    errors = [p.error for p in pairs]
    meas = [p.measured_ns for p in pairs]
    sim = [p.simulated_ns for p in pairs]
    return {
        "count": len(pairs),
        "mape": sum(abs(e) for e in errors) / len(errors),
        "mean_error": sum(errors) / len(errors),
        "max_abs_error": max(abs(e) for e in errors),
        "pearson": pearson(meas, sim),
        "pearson_log": pearson([math.log(x) for x in meas], [math.log(y) for y in sim if y > 0])
        if all(y > 0 for y in sim) else float("nan"),
    }


def _fmt_pct(x):
    return "-" if x != x else f"{100 * x:+.1f}%"


def _fmt_r(x):
    return "-" if x != x else f"{x:.3f}"


def _no_nan(value):
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    return None if isinstance(value, float) and value != value else value


def scatter(pairs, out, title, label="measured"):
    from . import plot  # matplotlib only when a figure is asked for
    fig = plot.Figure(figsize=(5.6, 5.0))
    ax = fig.add_subplot()
    classes = sorted({p.klass for p in pairs})
    for color, klass in zip(plot.colors(len(classes)), classes):
        sel = [p for p in pairs if p.klass == klass]
        ax.scatter([p.measured_ns / 1000 for p in sel], [p.simulated_ns / 1000 for p in sel],
                   s=22, color=color, label=f"{klass} ({len(sel)})", alpha=0.85, edgecolors="none")
    values = [v / 1000 for p in pairs for v in (p.measured_ns, p.simulated_ns) if v > 0]
    lo, hi = min(values) / 1.5, max(values) * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=1, label="y = x")
    ax.fill_between([lo, hi], [lo * 0.75, hi * 0.75], [lo * 1.25, hi * 1.25], color="grey", alpha=0.15,
                    linewidth=0, label="±25%")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel(f"{label} time (µs)")
    ax.set_ylabel("warpsim simulated time (µs)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    if title:
        ax.set_title(title, fontsize=10)
    plot.save(fig, out, plot.figure_format(out))


def run(args):
    measured = load_programs([args.measured], args.measured_clock)
    simulated = load_programs(args.simulated, simulated=True)
    if not measured:
        raise UserError(f"{args.measured}: no measured programs found")
    if not simulated:
        raise UserError("no warpsim statistics among the simulated inputs")
    pairs = join(measured, simulated)
    if not pairs:
        raise UserError("no kernel or program is in both the measured and the simulated inputs")
    kernels = [p for p in pairs if p.kernel]
    totals = [p for p in pairs if not p.kernel]
    lines = [f"{'program':<28} {'kernel':<40} {'#':>3} {args.label[:9] + ' us':>12} {'warpsim us':>12} {'error':>8}"]
    for p in pairs:
        lines.append(f"{p.program:<28} {(p.kernel or '(whole program)')[:40]:<40} {p.launch:>3} "
                     f"{p.measured_ns / 1000:>12.2f} {p.simulated_ns / 1000:>12.2f} {_fmt_pct(p.error):>8}")
    result = {"all": summary(pairs), "kernels": summary(kernels), "programs": summary(totals), "classes": {}}
    for klass in sorted({p.klass for p in pairs}):
        result["classes"][klass] = summary([p for p in pairs if p.klass == klass])
    lines.append("")
    lines.append(f"{'set':<20} {'pairs':>6} {'MAPE':>8} {'mean err':>9} {'Pearson r':>10} {'r (log)':>8}")
    rows = [("all", result["all"])] + [(f"class {k}", v) for k, v in result["classes"].items()]
    for name, s in rows:
        if s["count"]:
            lines.append(f"{name:<20} {s['count']:>6} {100 * s['mape']:>7.1f}% {_fmt_pct(s['mean_error']):>9} "
                         f"{_fmt_r(s['pearson']):>10} {_fmt_r(s['pearson_log']):>8}")
    print("\n".join(lines))
    if args.output:
        out = Path(args.output)
        try:
            out.mkdir(parents=True, exist_ok=True)
            with open(out / "pairs.csv", "w", newline="") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(["program", "class", "kernel", "launch", "measured_ns", "simulated_ns", "error"])
                for p in pairs:
                    w.writerow([p.program, p.klass, p.kernel, p.launch, f"{p.measured_ns:.1f}",
                                f"{p.simulated_ns:.1f}", f"{p.error:.4f}"])
            (out / "summary.json").write_text(json.dumps(_no_nan(result), indent=2) + "\n")
            (out / "summary.txt").write_text("\n".join(lines) + "\n")
        except OSError as e:
            raise UserError(f"{out}: cannot write: {e}") from None
        s = result["all"]
        scatter(pairs, out / "correlation.png",
                args.title or f"{s['count']} pairs: MAPE {100 * s['mape']:.1f}%, r = {_fmt_r(s['pearson'])}", args.label)
        print(f"\nwrote {out}/pairs.csv, summary.json, summary.txt, correlation.png")
    return 0
