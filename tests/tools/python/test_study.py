"""`warpsim study`: figures drawn, the paper's ratios checked against ours,
the verdicts, and bad study files."""
import math
import shutil
import tempfile
import unittest
from pathlib import Path

import fixtures
from fixtures import run
from warpsim_py import study
from warpsim_py.results import load

PROGRAMS = ["rodinia/bfs", "rodinia/hotspot", "parboil/sgemm"]
IPC = {("2L-RR", "rodinia/bfs"): 2.0, ("D", "rodinia/bfs"): 2.2,
       ("2L-RR", "rodinia/hotspot"): 4.0, ("D", "rodinia/hotspot"): 4.4,
       ("2L-RR", "parboil/sgemm"): 8.0, ("D", "parboil/sgemm"): 7.2}
RATIOS = {p: IPC[("D", p)] / IPC[("2L-RR", p)] for p in PROGRAMS}  # 1.1, 1.1, 0.9
GEOMEAN = math.exp(sum(math.log(r) for r in RATIOS.values()) / 3)

STUDY = """
title = "Fig. 7 of a CTA scheduling paper"
paper = "Someone et al., 2019"
description = "CTA scheduling policies"

[sweep]
programs = ["rodinia"]

[[figure]]
file = "fig7-ipc.png"
kind = "bar"
x = "program"
y = "ipc"
group = "policy"
normalize_to = "2L-RR"
mean = "geo"
title = "IPC normalized to 2L-RR"
where = ["mode=timing"]

[[figure]]
file = "energy.svg"
kind = "stacked"
x = "program"
y = ["power.group.sm.energy_J", "power.group.dram.energy_J"]
group = "policy"
data = "energy.csv"

[[expect]]
name = "geomean IPC, D over 2L-RR"
y = "ipc"
group = "policy"
value = "D"
baseline = "2L-RR"
aggregate = "geomean"
paper = {geomean}
tolerance = 0.01

[[expect]]
name = "best speedup"
y = "ipc"
group = "policy"
value = "D"
baseline = "2L-RR"
aggregate = "max"
paper = 1.3

[[expect]]
name = "sgemm"
y = "ipc"
group = "policy"
value = "D"
baseline = "2L-RR"
aggregate = "program:sgemm"
paper = 1.2

[[expect]]
name = "worst"
y = "ipc"
group = "policy"
value = "D"
baseline = "2L-RR"
aggregate = "min"
paper = 1.004
tolerance = 0.01

[[expect]]
name = "policy E"
y = "ipc"
group = "policy"
value = "E"
baseline = "2L-RR"
paper = 1.1
"""


def policy_sweep(directory, scales=(1,)):
    """2L-RR and D, each point with its own config file (a column constant
    per policy), optionally over several scales (IPC proportional)."""
    points = [(f"{p} x{s}", {"config": f"configs/{p}.toml", "mode": "timing", "policy": p, "scale": s})
              for p in ("2L-RR", "D") for s in scales]
    return fixtures.write_sweep(directory, points, PROGRAMS, lambda label, params, program: (
        "pass", None, fixtures.stats(IPC[(params["policy"], program)] * params["scale"])))


class StudyTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="warpsim-study-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, text):
        path = self.tmp / "study.toml"
        path.write_text(text)
        return path

    def test_figures_ratios_and_verdicts(self):
        results = policy_sweep(self.tmp / "s")
        rc, stdout, stderr = run("study", self.write(STUDY.replace("{geomean}", "1.10")), results)
        self.assertEqual(rc, 0, stderr)
        table = {line.split("|")[0].strip(): [c.strip() for c in line.split("|")[1:]]
                 for line in stdout.splitlines() if "|" in line}
        self.assertEqual(table["geomean IPC, D over 2L-RR"][:3], ["1.1", f"{GEOMEAN:.3f}", "same trend"])
        self.assertEqual(table["best speedup"][:3], ["1.3", "1.100", "same trend"])
        self.assertEqual(table["sgemm"][:3], ["1.2", "0.900", "differs"])
        self.assertEqual(table["sgemm"][3], "the ratio of parboil/sgemm")
        self.assertEqual(table["worst"][:3], ["1.004", "0.900", "differs"])
        self.assertEqual(table["policy E"][:3], ["1.1", "-", "no data"])
        self.assertIn("no rows with policy=E", table["policy E"][3])
        figures = results / "figures"
        self.assertTrue((figures / "fig7-ipc.png").read_bytes().startswith(b"\x89PNG"))
        self.assertIn(b"<svg", (figures / "energy.svg").read_bytes()[:400])
        self.assertTrue((figures / "energy.csv").is_file())
        check = (results / "check.md").read_text()
        self.assertIn("| geomean IPC, D over 2L-RR | 1.1 | 1.029 | same trend |", check)
        self.assertIn("![IPC normalized to 2L-RR](figures/fig7-ipc.png)", check)
        self.assertIn("rodinia/bfs 1.100", check)

    def test_agreement_within_tolerance(self):
        results = policy_sweep(self.tmp / "s")
        markdown, figures = self.tmp / "out" / "check.md", self.tmp / "figs"
        rc, stdout, stderr = run("study", self.write(STUDY.replace("{geomean}", f"{GEOMEAN * 1.005:.6f}")), results,
                                 "--markdown", markdown, "--figures-dir", figures)
        self.assertEqual(rc, 0, stderr)
        self.assertRegex(stdout, r"geomean IPC, D over 2L-RR \| [0-9.]+ +\| 1.029 \| agrees")
        self.assertTrue((figures / "fig7-ipc.png").is_file())
        self.assertIn("](../figs/fig7-ipc.png)", markdown.read_text())

    def test_ratios_matched_on_every_varying_key(self):
        results = policy_sweep(self.tmp / "s", scales=(0.5, 1, 2))
        rule = {"name": "r", "y": "ipc", "group": "policy", "value": "D", "baseline": "2L-RR", "paper": 1.0}
        keys, found, unmatched = study.ratios(load(results), rule, note=lambda m: None)
        # config differs between the policies but not within one: not a key; scale is
        self.assertEqual(keys, ["program", "scale"])
        self.assertEqual(len(found), 9)
        self.assertEqual(unmatched, 0)
        for (program, _), ratio in found:
            self.assertAlmostEqual(ratio, RATIOS[program])

    def test_numeric_axis_values_named_as_text(self):
        """An axis of numbers (a clock scale) named "1.0" in the study, as in studies/wang-tc19-fig2."""
        gain = {"rodinia/bfs": 0.4, "rodinia/hotspot": 0.1}
        points = [(f"scale={s}", {"config": "wang", "mode": "timing", "scale": s}) for s in (0.25, 0.5, 1.0, 2.0)]
        results = fixtures.write_sweep(self.tmp / "s", points, list(gain), lambda label, params, program: (
            "pass", None, fixtures.stats(2.0 * (1 + gain[program] * (params["scale"] - 1)))))
        text = ('[[figure]]\nfile = "f.png"\nkind = "line"\nx = "scale"\ny = "ipc"\ngroup = "program"\n'
                'normalize_to = "1.0"\nmean = "arith"\ndata = "f.csv"\n'
                '[[expect]]\nname = "mean at 2x"\ny = "ipc"\ngroup = "scale"\nvalue = "2.0"\nbaseline = "1.0"\n'
                'aggregate = "mean"\npaper = 1.25\n')
        for source in (results, results / "results.csv"):
            rc, stdout, stderr = run("study", self.write(text), source)
            self.assertEqual(rc, 0, stderr)
            self.assertRegex(stdout, r"mean at 2x \| 1.25 +\| 1.250 \| agrees")
            data = fixtures.read_data(results / "figures" / "f.csv")
            at_two = {r["program"]: r["ipc"] for r in data if r["scale"] == 2}
            self.assertAlmostEqual(at_two["rodinia/bfs"], 1.4)
            self.assertAlmostEqual(at_two["MEAN"], 1.25)

    def test_an_expect_without_baseline_checks_the_values_themselves(self):
        """An absolute figure of the paper (a locality fraction): no baseline,
        the mean of the values; agreement only, no trend."""
        results = policy_sweep(self.tmp / "s")
        text = ('[[expect]]\nname = "mean IPC of D"\ny = "ipc"\ngroup = "policy"\nvalue = "D"\n'
                'aggregate = "mean"\npaper = 4.6\n'
                '[[expect]]\nname = "sgemm IPC of D"\ny = "ipc"\ngroup = "policy"\nvalue = "D"\n'
                'aggregate = "program:sgemm"\npaper = 9.0\n')
        rc, stdout, stderr = run("study", self.write(text), results)
        self.assertEqual(rc, 0, stderr)
        self.assertRegex(stdout, r"mean IPC of D +\| 4.6 +\| 4.600 \| agrees +\| mean of 3 values")
        self.assertRegex(stdout, r"sgemm IPC of D +\| 9 +\| 7.200 \| differs +\| the value of parboil/sgemm")
        self.assertEqual(study.judge(1.5, 1.1, 0.05, relative=False), "differs")

    def test_judge(self):
        self.assertEqual(study.judge(1.05, 1.06, 0.05), "agrees")
        self.assertEqual(study.judge(1.20, 1.06, 0.05), "same trend")
        self.assertEqual(study.judge(0.995, 1.015, 0.001), "same trend")  # both within 2% of 1.0: no change
        self.assertEqual(study.judge(0.95, 1.06, 0.05), "differs")
        self.assertEqual(study.judge(1.013, 1.12, 0.05), "differs")  # no change where the paper sees +12%
        self.assertEqual(study.judge(None, 1.06, 0.05), "no data")

    def test_bad_study_files_exit_2(self):
        results = policy_sweep(self.tmp / "s")
        figure = '[[figure]]\nfile = "f.png"\nkind = "bar"\nx = "program"\ny = "ipc"\n'
        expect = '[[expect]]\nname = "n"\ny = "ipc"\ngroup = "policy"\nvalue = "D"\nbaseline = "2L-RR"\npaper = 1.0\n'
        cases = [(figure + 'colour = "red"\n', "[[figure]] 1 (f.png): unknown key 'colour'"),
                 (expect + "tolerence = 0.1\n", "[[expect]] 1 (n): unknown key 'tolerence'"),
                 (expect.replace('paper = 1.0\n', ''), "missing key paper"),
                 (expect.replace('paper = 1.0', 'paper = "1.0"'), "'paper' has the wrong type"),
                 (figure.replace('y = "ipc"', 'y = "ipcc"'), "[[figure]] f.png: unknown --y column 'ipcc'"),
                 (expect + 'aggregate = "median"\n', "unknown aggregate 'median'"),
                 ("title = [", "not valid TOML")]
        for text, message in cases:
            rc, _, stderr = run("study", self.write(text), results)
            self.assertEqual(rc, 2, text)
            self.assertIn(message, stderr)
            self.assertNotIn("Traceback", stderr)

    def test_a_figure_without_data_is_reported_not_fatal(self):
        results = policy_sweep(self.tmp / "s")
        text = '[[figure]]\nfile = "f.png"\nkind = "bar"\nx = "program"\ny = "ipc"\nwhere = ["policy=GTO"]\n'
        rc, stdout, stderr = run("study", self.write(text), results)
        self.assertEqual(rc, 0, stderr)
        self.assertIn("not drawn (no program rows match --where policy=GTO", stdout)
        self.assertIn("not drawn", (results / "check.md").read_text())


if __name__ == "__main__":
    unittest.main()
