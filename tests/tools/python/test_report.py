"""`warpsim report`: the summary table, the figures, the configuration, a
page without external resources; in headless Chromium when it is installed."""
import json
import re
import shutil
import subprocess
import tempfile
import unittest
from html.parser import HTMLParser
from pathlib import Path

import fixtures
from fixtures import run

PROGRAMS = ["rodinia/bfs", "rodinia/hotspot"]
IPC = {"2L-RR": 2.0, "D": 2.5}


class Page(HTMLParser):
    """The parts of a report the tests look at: table rows, figures, details."""

    def __init__(self, text):
        super().__init__()
        self.rows, self.figures, self.images, self.details, self.body = [], 0, [], [], {}
        self._cell = self._row = self._details = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "figure":
            self.figures += 1
        elif tag == "img":
            self.images.append(attrs.get("src", ""))
        elif tag == "details":
            self._details = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr":
            self.rows.append(self._row)
            self._row = None
        elif tag == "details":
            self.details.append(self._details)
            self._details = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._details is not None:
            self._details += data


def sweep(directory, functional=False):
    def measure(label, params, program):
        if program == "rodinia/hotspot" and label == "D":
            return "crash", "SIGSEGV in the simulator", None
        nested = fixtures.stats(IPC[label] * (2 if program == "rodinia/hotspot" else 1))
        if functional:  # no timing model: no cycles, IPC or energy
            nested = {"gpu_tot_sim_insn": nested["gpu_tot_sim_insn"], "warpsim": nested["warpsim"], "kernels": []}
        return "pass", None, nested
    return fixtures.write_sweep(directory, [(p, {"policy": p}) for p in IPC], PROGRAMS, measure)


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="warpsim-report-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def report(self, *argv):
        rc, stdout, stderr = run("report", *argv)
        self.assertEqual(rc, 0, stderr)
        path = Path(stdout.strip())
        return path, Page(path.read_text())

    def assert_self_contained(self, path):
        text = path.read_text()
        self.assertIsNone(re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", text))
        self.assertNotIn("<link", text)

    def test_sweep_report(self):
        directory = sweep(self.tmp / "s")
        path, page = self.report(directory)
        self.assertEqual(path, directory / "report.html")
        self.assert_self_contained(path)
        summary = [r for r in page.rows if len(r) == 8]
        self.assertEqual(summary[0], ["point", "program", "status", "cycles", "IPC", "energy (J)", "EDP (J s)",
                                      "reason"])
        self.assertEqual([(r[0], r[1], r[2]) for r in summary[1:]],
                         [("2L-RR", "rodinia/bfs", "pass"), ("2L-RR", "rodinia/hotspot", "pass"),
                          ("D", "rodinia/bfs", "pass"), ("D", "rodinia/hotspot", "crash")])
        self.assertEqual(summary[1][4], "2")
        self.assertEqual(summary[4][7], "SIGSEGV in the simulator")
        # IPC, energy by group, issue slots, and the four memory figures
        self.assertEqual(page.figures, 7)
        self.assertEqual(page.body.get("data-figures-expected"), "7")
        self.assertEqual(len(page.images), 7)
        self.assertTrue(all(src.startswith("data:image/png;base64,iVBOR") for src in page.images))
        text = path.read_text()
        self.assertIn("IPC per program, normalized to 2L-RR", text)
        self.assertIn("crash: 1, pass: 3", text)
        self.assertIn('policy = ["2L-RR", "D"]', "\n".join(page.details))  # the sweep spec
        self.assertIn('cta_policy = "D"', "\n".join(page.details))  # a point's config file

    def test_functional_sweep_says_which_figures_it_could_not_draw(self):
        directory = sweep(self.tmp / "s", functional=True)
        path, page = self.report(directory / "results.csv", "-o", self.tmp / "out" / "r.html")
        self.assertEqual(path, self.tmp / "out" / "r.html")
        self.assertEqual(page.figures, 0)
        self.assertEqual(page.body.get("data-figures-expected"), "0")
        self.assertIn("IPC per program, normalized to 2L-RR: not drawn", path.read_text())

    def test_single_run_report(self):
        stats = self.tmp / "run.stats.json"
        stats.write_text(json.dumps(fixtures.stats(2.0, program="/bench/vecadd")))
        path, page = self.report(stats)
        self.assertEqual(path, self.tmp / "run.stats.html")
        self.assert_self_contained(path)
        kernels = [r[0] for r in page.rows if len(r) == 7][1:]
        self.assertEqual(len(kernels), 3)
        self.assertEqual(kernels[-1], "total")
        self.assertTrue(kernels[0].startswith("step") or kernels[0] == "_Z4stepPfi", kernels)
        # IPC and energy per kernel, issue slots, memory
        self.assertEqual(page.figures, 4)
        self.assertEqual(page.body.get("data-figures-expected"), "4")

    def test_bad_input(self):
        rc, _, stderr = run("report", self.tmp / "nothing")
        self.assertEqual(rc, 2)
        self.assertIn("no such file", stderr)

    @unittest.skipUnless(shutil.which("chromium"), "no chromium")
    def test_figures_render_in_a_browser(self):
        path, _ = self.report(sweep(self.tmp / "s"))
        script = fixtures.REPO / "tests" / "tools" / "report_browser_test.sh"
        done = subprocess.run(["bash", str(script), str(path)], capture_output=True, text=True, timeout=90)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("figures expected 7, rendered 7", done.stdout)


if __name__ == "__main__":
    unittest.main()
