#!/usr/bin/env python3
"""warpsim plot | report | study: figures, an HTML report and a paper's
numbers compared with ours, from the results of `warpsim sweep` (or one run's
statistics). The `warpsim` command runs this file with an interpreter that
has matplotlib and passes its arguments through."""
import argparse
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # an installed copy may be read-only; the source tree keeps no caches
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from warpsim_py import results  # noqa: E402
from warpsim_py.results import UserError  # noqa: E402

PLOT_EPILOG = """\
kinds:
  bar      clustered bars: one cluster per --x value, one bar per --group value,
           and with --mean a last cluster with the mean over the x values
  stacked  --y is a comma-separated list of components (patterns like
           'power.group.*.energy_J' allowed); one stacked bar per x (and group)
  line     --y over --x (numeric x sorted), one line per group; --mean adds a
           bold mean line over the groups
  scatter  --x against --y, colored by group; --diagonal draws y = x
  heatmap  --x and --y are the coordinates, --z the value of each cell

normalization (--normalize-to VALUE, or COL=VALUE):
  bar, stacked, heatmap: VALUE is a value of the --group column; each value is
    divided by the baseline group's value with the same x (stacked: by the
    baseline bar's total)
  line, scatter: VALUE is a value of the --x column; each group's series is
    divided by its own value at that x
  Rows are combined (--aggregate) before they are normalized.

examples:
  warpsim plot out/ --kind bar --x program --y ipc --group policy \\
      --normalize-to 2L-RR --mean geo -o ipc.svg
  warpsim plot out/results.csv --kind stacked --x program \\
      --y 'power.group.*.energy_J' --group policy --normalize-to 2L-RR -o energy.png
"""


STUDY_EPILOG = """\
study.toml: title, paper, description, [sweep] (read by warpsim study), and
  [[figure]]  file (in the figures folder), kind, x, y, and any of z, group,
              normalize_to, mean, where, rows, aggregate, all_status, share,
              title, xlabel, ylabel, logx, logy, diagonal (as `warpsim plot`),
              data (a CSV of the plotted numbers, next to the figure)
  [[expect]]  name, y, group, value, baseline, paper, and any of
              over (default program), aggregate (geomean (default) | mean |
              max | min | program:NAME), tolerance (default 0.05), where, rows
  A rule compares value/baseline of y per benchmark (matched on `over` and
  any other parameter that varies) with the paper's ratio. Verdicts: agrees
  (|ours - paper| <= tolerance * |paper|), same trend (the same direction:
  both above 1.02, both below 0.98, or both within 2% of 1.0), differs, no data.
"""


CORRELATE_EPILOG = """\
programs are matched by suite/name (the last two parts of the program's path;
  a GPGPU-Sim log's or CSV row's program the same way), or by a name only one
  simulated program has; programs are classed by their suite.
kernels are matched by mangled name, the i-th launch with the i-th launch.
  Simulated time is cycles / the config's core clock; GPGPU-Sim's cycles are
  divided by its core clock, so two simulators with different clocks compare.
measured inputs:
  warpsim profile JSON  per-launch times from CUDA events on a real GPU
  GPGPU-Sim output      each kernel's kernel_name and gpu_sim_cycle lines; only
                        gpu_tot_sim_cycle: one whole-program total
  CSV                   columns program, kernel (empty: the whole program),
                        ns or cycles (+ clock_mhz), optional class, wall_seconds

examples:
  warpsim correlate h100-profile/ sim-h100/ -o fidelity/
  warpsim correlate gpgpusim-logs/ runs/*.json --measured-clock 700 -o out/
"""


def _plot_parser(sub):
    p = sub.add_parser("plot", help="draw one figure from sweep results", epilog=PLOT_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Draw one figure from a sweep's results (results.csv, results.json or\n"
                                   "the sweep directory) or one run's statistics JSON. Rows whose status is\n"
                                   "not pass are left out (--all-status keeps them).")
    p.add_argument("results", metavar="RESULTS", help="results.csv, results.json, a sweep directory or a stats JSON")
    p.add_argument("--kind", required=True, choices=["bar", "line", "scatter", "stacked", "heatmap"])
    p.add_argument("--x", required=True, metavar="COL", help="the x column")
    p.add_argument("--y", required=True, metavar="COL",
                   help="the y column (stacked: COL,COL,...; heatmap: the second coordinate)")
    p.add_argument("--z", metavar="COL", help="heatmap: the value of each cell")
    p.add_argument("--group", metavar="COL", help="one bar, line or color per value of this column")
    p.add_argument("--normalize-to", metavar="VALUE|COL=VALUE", help="divide by a baseline (see below)")
    p.add_argument("--mean", choices=["geo", "harmonic", "arith"],
                   help="bar: a mean cluster over the x values (GMEAN/HMEAN/MEAN); line: a mean line")
    p.add_argument("--where", action="append", metavar="COL=VALUE",
                   help="keep rows where COL equals (or with !=, differs from) VALUE; repeatable")
    p.add_argument("--rows", choices=["program", "kernel"], default="program",
                   help="program rows (default) or kernel rows")
    p.add_argument("--all-status", action="store_true", help="keep rows whose status is not pass")
    p.add_argument("--aggregate", choices=["sum", "mean", "first"],
                   help="combine rows that share the same x and group (otherwise an error)")
    p.add_argument("--share", action="store_true", help="stacked: each bar as shares (%%) of its own total")
    p.add_argument("--title")
    p.add_argument("--xlabel")
    p.add_argument("--ylabel")
    p.add_argument("--logx", action="store_true")
    p.add_argument("--logy", action="store_true")
    p.add_argument("--diagonal", action="store_true", help="scatter: draw y = x")
    p.add_argument("--data", metavar="OUT.csv", help="also write the plotted numbers (means included)")
    p.add_argument("-o", "--output", required=True, metavar="FIG", help="FIG.png, FIG.svg or FIG.pdf")


def parser():
    top = argparse.ArgumentParser(prog="warpsim", allow_abbrev=False,
                                  description="Figures, reports and paper checks from warpsim sweep results.")
    sub = top.add_subparsers(dest="command", required=True, metavar="plot|report|study|correlate")
    _plot_parser(sub)
    r = sub.add_parser("report", help="one self-contained HTML page about a sweep or a run",
                       description="Write one self-contained HTML page: summary table, figures (IPC, energy "
                                   "breakdown, issue slots, memory) and the configuration used.")
    r.add_argument("input", metavar="DIR|RESULTS|STATS.json")
    r.add_argument("-o", "--output", metavar="FILE.html",
                   help="default: DIR/report.html, or STATS.html next to STATS.json")
    s = sub.add_parser("study", help="draw a study's figures and compare its numbers with the paper's",
                       epilog=STUDY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Draw every [[figure]] of a study and evaluate every [[expect]] against the\n"
                                   "sweep's results; prints rule | paper | ours | verdict and writes Markdown.\n"
                                   "Exits 0 even when results differ from the paper, 2 on bad input.")
    s.add_argument("study", metavar="STUDY.toml")
    s.add_argument("results", metavar="RESULTS_DIR")
    s.add_argument("--figures-dir", metavar="DIR", help="default: RESULTS_DIR/figures")
    s.add_argument("--markdown", metavar="FILE", help="default: RESULTS_DIR/check.md")
    c = sub.add_parser("correlate", help="measured kernel times next to warpsim's, with MAPE and correlation",
                       epilog=CORRELATE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Join measured kernel times with warpsim's timing-mode statistics by program\n"
                                   "and kernel (launch order), print each pair's error, the mean absolute\n"
                                   "percentage error and Pearson's r, per program class, and with -o write\n"
                                   "pairs.csv, summary.json, summary.txt and a log-log scatter plot.")
    c.add_argument("measured", metavar="MEASURED",
                   help="a file or directory: warpsim profile JSONs, GPGPU-Sim output logs, or a CSV")
    c.add_argument("simulated", metavar="SIMULATED", nargs="+",
                   help="warpsim statistics JSONs (warpsim run --stats), or directories holding them")
    c.add_argument("--measured-clock", type=float, default=0.0, metavar="MHZ",
                   help="the measured side's core clock, to turn cycles into time (GPGPU-Sim's "
                        "-gpgpu_clock_domains is read from its log otherwise)")
    c.add_argument("--label", default="measured", help="what the measured side is, for the table and plot "
                                                       "(default: measured; e.g. H100, GPGPU-Sim)")
    c.add_argument("--title", help="the plot's title (default: the pair count, MAPE and r)")
    c.add_argument("-o", "--output", metavar="DIR", help="write the tables and correlation.png here")
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    results.PROGRAM = f"warpsim {args.command}"
    try:
        if args.command == "plot":
            from warpsim_py import plot
            return plot.run(args)
        if args.command == "report":
            from warpsim_py import report
            return report.run(args)
        if args.command == "correlate":
            from warpsim_py import correlate
            return correlate.run(args)
        from warpsim_py import study
        return study.run(args)
    except ImportError as e:
        if getattr(e, "name", "") and e.name.startswith("matplotlib"):
            print(f"warpsim {args.command}: error: {sys.executable} has no matplotlib "
                  "(Debian: apt-get install python3-matplotlib)", file=sys.stderr)
            return 2
        raise
    except UserError as e:
        print(f"warpsim {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
