"""`warpsim plot`: the plotted numbers, every kind in every format, errors."""
import json
import math
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import fixtures
from fixtures import read_data, run

PROGRAMS = ["rodinia/bfs", "rodinia/hotspot", "parboil/sgemm"]
POLICIES = ["2L-RR", "D", "GTO"]
IPC = {("2L-RR", "rodinia/bfs"): 2.0, ("D", "rodinia/bfs"): 2.5, ("GTO", "rodinia/bfs"): 1.0,
       ("2L-RR", "rodinia/hotspot"): 4.0, ("D", "rodinia/hotspot"): 3.6, ("GTO", "rodinia/hotspot"): 4.4,
       ("2L-RR", "parboil/sgemm"): 8.0, ("D", "parboil/sgemm"): 9.0, ("GTO", "parboil/sgemm"): 7.0}
ENERGY = {"2L-RR": {"sm": 0.006, "dram": 0.004}, "D": {"sm": 0.005, "dram": 0.0035},
          "GTO": {"sm": 0.007, "dram": 0.005}}
SCALES = [2, 0.25, 1, 0.5]  # out of order on purpose: lines sort numeric x


def policy_sweep(directory, failing=()):
    """Three policies x three programs; (policy, program) pairs in `failing`
    ran but failed their output check (their statistics are there)."""
    def measure(label, params, program):
        nested = fixtures.stats(IPC[(label, program)], energy=ENERGY[label])
        return ("fail", "wrong output", nested) if (label, program) in failing else ("pass", None, nested)
    return fixtures.write_sweep(directory, [(p, {"config": f"{p}.toml", "mode": "timing", "policy": p})
                                            for p in POLICIES], PROGRAMS, measure)


def scale_sweep(directory):
    """policy x scale, IPC = base(policy) * scale, one program."""
    base = {"2L-RR": 2.0, "D": 3.0}
    points = [(f"{p} scale={s}", {"policy": p, "scale": s}) for p in base for s in SCALES]
    return fixtures.write_sweep(directory, points, ["rodinia/bfs", "rodinia/nw"],
                                lambda label, params, program: ("pass", None, fixtures.stats(
                                    base[params["policy"]] * params["scale"] * (2 if program == "rodinia/nw" else 1))))


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


class PlotTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="warpsim-plot-"))
        self.addCleanup(__import__("shutil").rmtree, self.tmp, True)

    def plot(self, results, *options, expect=0, out="fig.png"):
        rc, stdout, stderr = run("plot", results, *options, "-o", self.tmp / out, "--data", self.tmp / "data.csv")
        self.assertEqual(rc, expect, stderr)
        return (read_data(self.tmp / "data.csv") if expect == 0 else None), stderr

    def test_bar_normalized_with_each_mean(self):
        sweep = policy_sweep(self.tmp / "s")
        ratios = {(pol, prog): IPC[(pol, prog)] / IPC[("2L-RR", prog)] for pol in POLICIES for prog in PROGRAMS}
        for how, label, average in (("geo", "GMEAN", geomean),
                                    ("harmonic", "HMEAN", lambda v: len(v) / sum(1 / x for x in v)),
                                    ("arith", "MEAN", lambda v: sum(v) / len(v))):
            data, _ = self.plot(sweep / "results.json", "--kind", "bar", "--x", "program", "--y", "ipc",
                                "--group", "policy", "--normalize-to", "2L-RR", "--mean", how)
            self.assertEqual([r["program"] for r in data[:9]], [p for p in PROGRAMS for _ in POLICIES])
            for r in data[:9]:
                self.assertAlmostEqual(r["ipc"], ratios[(r["policy"], r["program"])], places=12)
            means = {r["policy"]: r["ipc"] for r in data[9:]}
            self.assertEqual([r["program"] for r in data[9:]], [label] * 3)
            for pol in POLICIES:
                self.assertAlmostEqual(means[pol], average([ratios[(pol, p)] for p in PROGRAMS]), places=12)

    def test_csv_json_and_directory_give_the_same_numbers(self):
        sweep = policy_sweep(self.tmp / "s")
        options = ("--kind", "bar", "--x", "program", "--y", "ipc", "--group", "policy", "--normalize-to",
                   "policy=D", "--mean", "geo")
        seen = [self.plot(source, *options)[0] for source in (sweep, sweep / "results.csv", sweep / "results.json")]
        self.assertEqual(seen[0], seen[1])
        self.assertEqual(seen[0], seen[2])
        self.assertEqual(seen[0][0]["ipc"], IPC[("2L-RR", "rodinia/bfs")] / IPC[("D", "rodinia/bfs")])

    def test_rows_not_passed_are_left_out_and_counted(self):
        sweep = policy_sweep(self.tmp / "s", failing={("D", "rodinia/bfs"), ("GTO", "parboil/sgemm")})
        options = ("--kind", "bar", "--x", "program", "--y", "ipc", "--group", "policy")
        data, stderr = self.plot(sweep, *options)
        self.assertEqual(len(data), 7)
        self.assertIn("left out 2 program rows whose status is not pass (fail: 2)", stderr)
        data, stderr = self.plot(sweep, *options, "--all-status")
        self.assertEqual(len(data), 9)
        self.assertNotIn("left out", stderr)

    def test_where_filters(self):
        sweep = policy_sweep(self.tmp / "s")
        data, _ = self.plot(sweep, "--kind", "bar", "--x", "program", "--y", "ipc", "--where", "policy=GTO")
        self.assertEqual([r["ipc"] for r in data], [IPC[("GTO", p)] for p in PROGRAMS])
        data, _ = self.plot(sweep, "--kind", "bar", "--x", "program", "--y", "ipc", "--group", "policy",
                            "--where", "policy!=GTO", "--where", "program=rodinia/bfs")
        self.assertEqual([(r["policy"], r["ipc"]) for r in data], [("2L-RR", 2.0), ("D", 2.5)])

    def test_rows_sharing_x_and_group_need_aggregate(self):
        sweep = scale_sweep(self.tmp / "s")
        _, stderr = self.plot(sweep, "--kind", "bar", "--x", "program", "--y", "ipc", "--group", "policy",
                              expect=2)
        self.assertIn("4 rows share program=rodinia/bfs, policy=2L-RR; they differ in scale", stderr)
        self.assertIn("--aggregate", stderr)
        data, _ = self.plot(sweep, "--kind", "bar", "--x", "program", "--y", "ipc", "--group", "policy",
                            "--aggregate", "mean")
        self.assertAlmostEqual(data[0]["ipc"], 2.0 * sum(SCALES) / len(SCALES))
        data, _ = self.plot(sweep, "--kind", "bar", "--x", "program", "--y", "ipc", "--group", "policy",
                            "--where", "scale=0.5")
        self.assertEqual([r["ipc"] for r in data], [1.0, 1.5, 2.0, 3.0])
        # kernel rows: one program has several kernels
        _, stderr = self.plot(sweep, "--kind", "bar", "--x", "program", "--y", "cycles", "--rows", "kernel",
                              "--where", "scale=1", "--where", "policy=D", expect=2)
        self.assertIn("they differ in kernel, kernel_index", stderr)
        data, _ = self.plot(sweep, "--kind", "bar", "--x", "program", "--y", "cycles", "--rows", "kernel",
                            "--where", "scale=1", "--where", "policy=D", "--aggregate", "sum")
        program_cycles = round(1_200_000 / 3.0)
        self.assertEqual(data[0]["cycles"], round(program_cycles * 0.6) + round(program_cycles * 0.4))

    def test_stacked_normalized_to_the_baseline_total(self):
        sweep = policy_sweep(self.tmp / "s")
        data, _ = self.plot(sweep, "--kind", "stacked", "--x", "program", "--group", "policy",
                            "--y", "power.group.sm.energy_J,power.group.dram.energy_J", "--normalize-to", "2L-RR")
        base = sum(ENERGY["2L-RR"].values())
        got = {(r["program"], r["policy"], r["component"]): r["value"] for r in data}
        self.assertEqual(len(got), 3 * 3 * 2)
        for pol in POLICIES:
            self.assertAlmostEqual(got[("rodinia/bfs", pol, "power.group.sm.energy_J")], ENERGY[pol]["sm"] / base)
            self.assertAlmostEqual(got[("rodinia/bfs", pol, "power.group.dram.energy_J")], ENERGY[pol]["dram"] / base)
        # a pattern picks every power group; --share makes each bar 100%
        data, _ = self.plot(sweep, "--kind", "stacked", "--x", "program", "--y", "power.group.*.energy_J",
                            "--where", "policy=D", "--share")
        self.assertEqual({r["component"] for r in data}, {"power.group.sm.energy_J", "power.group.dram.energy_J"})
        for prog in PROGRAMS:
            self.assertAlmostEqual(sum(r["value"] for r in data if r["program"] == prog), 100.0)

    def test_line_sorted_numerically_and_normalized_to_an_x_value(self):
        sweep = scale_sweep(self.tmp / "s")
        data, _ = self.plot(sweep, "--kind", "line", "--x", "scale", "--y", "ipc", "--group", "policy",
                            "--where", "program=rodinia/bfs", "--normalize-to", "1", "--mean", "geo")
        series = [r for r in data if r["policy"] != "GMEAN"]
        self.assertEqual([r["scale"] for r in series], [0.25, 0.25, 0.5, 0.5, 1, 1, 2, 2])
        for r in series:  # each policy's series divided by its own value at scale 1
            self.assertAlmostEqual(r["ipc"], r["scale"])
        means = [r for r in data if r["policy"] == "GMEAN"]
        self.assertEqual([(r["scale"], r["ipc"]) for r in means], [(0.25, 0.25), (0.5, 0.5), (1, 1), (2, 2)])

    def test_scatter_and_heatmap_numbers(self):
        sweep = scale_sweep(self.tmp / "s")
        data, _ = self.plot(sweep, "--kind", "scatter", "--x", "cycles", "--y", "thread_instructions",
                            "--group", "policy", "--diagonal", "--logx", "--logy")
        self.assertEqual(len(data), 16)
        self.assertTrue(all(r["thread_instructions"] == 1_200_000 for r in data))
        data, _ = self.plot(sweep, "--kind", "heatmap", "--x", "scale", "--y", "program", "--z", "ipc",
                            "--group", "policy", "--normalize-to", "2L-RR")
        self.assertEqual(len(data), 16)
        for r in data:
            self.assertAlmostEqual(r["ipc"], 1.0 if r["policy"] == "2L-RR" else 1.5)
        data, _ = self.plot(sweep, "--kind", "heatmap", "--x", "scale", "--y", "program", "--z", "ipc",
                            "--where", "policy=D", "--normalize-to", "scale=1")
        self.assertEqual([(r["scale"], r["program"], r["ipc"]) for r in data][:4],
                         [(0.25, "rodinia/bfs", 0.25), (0.5, "rodinia/bfs", 0.5), (1, "rodinia/bfs", 1.0),
                          (2, "rodinia/bfs", 2.0)])

    def test_every_kind_in_every_format(self):
        sweep = scale_sweep(self.tmp / "s")
        kinds = {"bar": ("--x", "program", "--y", "ipc", "--group", "policy", "--aggregate", "mean", "--mean", "geo"),
                 "line": ("--x", "scale", "--y", "ipc", "--group", "policy", "--where", "program=rodinia/bfs"),
                 "scatter": ("--x", "cycles", "--y", "ipc", "--group", "policy", "--diagonal"),
                 "stacked": ("--x", "program", "--y", "timing.issue_slots.*", "--group", "policy",
                             "--aggregate", "sum", "--share"),
                 "heatmap": ("--x", "scale", "--y", "policy", "--z", "ipc", "--where", "program=rodinia/nw")}
        magic = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}
        for kind, options in kinds.items():
            for fmt in ("png", "svg", "pdf"):
                out = self.tmp / f"{kind}.{fmt}"
                rc, _, stderr = run("plot", sweep, "--kind", kind, *options, "--title", f"a {kind}", "-o", out)
                self.assertEqual(rc, 0, f"{kind} {fmt}: {stderr}")
                head = out.read_bytes()[:400]
                if fmt == "svg":
                    self.assertIn(b"<svg", head, kind)
                else:
                    self.assertTrue(head.startswith(magic[fmt]), f"{kind}.{fmt} starts with {head[:8]!r}")

    def test_svg_and_pdf_repeat_byte_for_byte(self):
        sweep = policy_sweep(self.tmp / "s")
        for fmt in ("svg", "pdf"):
            outputs = []
            for n in range(2):
                out = self.tmp / f"{n}.{fmt}"
                rc, _, stderr = run("plot", sweep, "--kind", "bar", "--x", "program", "--y", "ipc", "--group",
                                    "policy", "--mean", "geo", "-o", out)
                self.assertEqual(rc, 0, stderr)
                outputs.append(out.read_bytes())
            self.assertEqual(outputs[0], outputs[1], fmt)

    def test_bare_stats_json(self):
        path = self.tmp / "run.json"
        path.write_text(json.dumps(fixtures.stats(2.0)))
        data, _ = self.plot(path, "--kind", "bar", "--x", "kernel", "--y", "ipc", "--rows", "kernel")
        self.assertEqual(len(data), 2)
        for r in data:
            self.assertAlmostEqual(r["ipc"], 2.0, places=4)

    def test_user_errors_exit_2_with_one_message(self):
        sweep = policy_sweep(self.tmp / "s")
        bad_json = self.tmp / "bad.json"
        bad_json.write_text("{not json")
        cases = [
            (("--kind", "bar", "--x", "program", "--y", "ipcc"), "unknown --y column 'ipcc'; close matches: ipc"),
            (("--kind", "bar", "--x", "program", "--y", "L1D_miss_rate"), "L1D_total_cache_miss_rate"),
            (("--kind", "bar", "--x", "program", "--y", "ipc", "--where", "program=nope"),
             "no program rows match --where program=nope (values of program: rodinia/bfs, rodinia/hotspot"),
            (("--kind", "bar", "--x", "policy", "--y", "program"), "column 'program' is not numeric"),
            (("--kind", "bar", "--x", "program", "--y", "ipc", "--group", "policy", "--normalize-to", "XYZ"),
             "no baseline policy=XYZ to normalize to; values of policy: 2L-RR, D, GTO"),
            (("--kind", "bar", "--x", "program", "--y", "ipc", "--normalize-to", "D"), "give --group"),
            (("--kind", "heatmap", "--x", "policy", "--y", "program"), "a heatmap needs --z"),
            (("--kind", "stacked", "--x", "program", "--y", "ipc", "--mean", "geo"), "--mean applies to bar and line"),
        ]
        for options, message in cases:
            _, stderr = self.plot(sweep, *options, expect=2)
            self.assertIn(message, stderr, options)
            self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
        for source, message in ((bad_json, "not valid JSON"), (self.tmp / "none.csv", "no such file"),
                                (self.tmp, "no results.json or results.csv")):
            _, stderr = self.plot(source, "--kind", "bar", "--x", "program", "--y", "ipc", expect=2)
            self.assertIn(message, stderr)
        _, stderr = self.plot(sweep, "--kind", "bar", "--x", "program", "--y", "ipc", out="fig.jpg", expect=2)
        self.assertIn("unsupported figure format '.jpg'", stderr)

    def test_entry_point(self):
        """The file the warpsim command runs: help, and a user error without a traceback."""
        for command in ("plot", "report", "study"):
            done = subprocess.run([sys.executable, str(fixtures.MAIN), command, "--help"], capture_output=True,
                                  text=True, timeout=60)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn(f"usage: warpsim {command}", done.stdout)
        done = subprocess.run([sys.executable, str(fixtures.MAIN), "plot", str(self.tmp / "missing.json"), "--kind",
                               "bar", "--x", "program", "--y", "ipc", "-o", str(self.tmp / "f.png")],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertNotIn("Traceback", done.stderr)
        self.assertIn("no such file", done.stderr)


if __name__ == "__main__":
    unittest.main()
