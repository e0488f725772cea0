"""`warpsim correlate`: reading each measured format, joining launches in
order, the error, MAPE and correlation figures, the written files, errors."""
import csv
import json
import math
import tempfile
import unittest
from pathlib import Path

from fixtures import run

from warpsim_py import correlate


def sim_stats(program, launches, clock=1000.0, mode="timing"):
    """A warpsim statistics file's members that correlate reads: launches as
    (kernel, cycles) in launch order."""
    return {"warpsim": {"program": program, "mode": mode, "core_clock_mhz": clock, "simulation_seconds": 2.0},
            "launches": [{"index": i, "kernel": k, "grid": [1, 1, 1], "block": [32, 1, 1], "cycles": c,
                          "duration_ns": 0.0 if mode != "profile" else c, "thread_instructions": 32}
                         for i, (k, c) in enumerate(launches)]}


GPGPUSIM_LOG = """\
GPGPU-Sim version 4.2.0 (build 667834c)
-gpgpu_clock_domains 500.0:500.0:500.0:924.0 # Clock Domain Frequencies in MhZ {<Core Clock>:<ICNT Clock>:<L2 Clock>:<DRAM Clock>}
kernel_name = _Z4stepPf
kernel_launch_uid = 1
gpu_sim_cycle = 1000
gpu_sim_insn = 4096
gpu_tot_sim_cycle = 1000
kernel_name = _Z6reducePf
kernel_launch_uid = 2
gpu_sim_cycle = 3000
gpu_tot_sim_cycle = 4000
kernel_name = _Z4stepPf
kernel_launch_uid = 3
gpu_sim_cycle = 500
gpu_tot_sim_cycle = 4500
gpgpu_simulation_time = 0 days, 0 hrs, 1 min, 4 sec (64 sec)
"""


class CorrelateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, data):
        path = self.dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data) if isinstance(data, dict) else data)
        return path

    def test_gpgpusim_log_joins_kernels_in_launch_order_across_clocks(self):
        # GPGPU-Sim at 500 MHz: 2000, 6000 and 1000 ns. warpsim at 1000 MHz.
        log = self.write("logs/app.log", GPGPUSIM_LOG)
        sim = self.write("sim/app.json", sim_stats("/x/suite/app", [("_Z4stepPf", 2200), ("_Z6reducePf", 4500),
                                                                    ("_Z4stepPf", 1000)]))
        rc, out, err = run("correlate", log.parent, sim, "-o", self.dir / "out")
        self.assertEqual(rc, 0, err)
        with open(self.dir / "out" / "pairs.csv") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(r["kernel"], r["launch"]) for r in rows],
                         [("_Z4stepPf", "0"), ("_Z6reducePf", "0"), ("_Z4stepPf", "1")])
        self.assertEqual([float(r["measured_ns"]) for r in rows], [2000.0, 6000.0, 1000.0])
        self.assertEqual([float(r["error"]) for r in rows], [0.1, -0.25, 0.0])
        summary = json.loads((self.dir / "out" / "summary.json").read_text())
        self.assertAlmostEqual(summary["all"]["mape"], (0.1 + 0.25 + 0.0) / 3)
        self.assertAlmostEqual(summary["all"]["pearson"],
                               correlate.pearson([2000, 6000, 1000], [2200, 4500, 1000]))
        self.assertEqual(summary["classes"]["suite"]["count"], 3)
        png = (self.dir / "out" / "correlation.png").read_bytes()
        self.assertTrue(png.startswith(b"\x89PNG"))
        self.assertIn("_Z6reducePf", out)
        self.assertIn("-25.0%", out)

    def test_gpgpusim_log_with_only_the_total_and_a_given_clock(self):
        log = self.write("app.log", "gpu_tot_sim_cycle = 7000\n")
        sim = self.write("app.json", sim_stats("app", [("_Z1kv", 5000), ("_Z1kv", 4000)], clock=1400))
        rc, out, err = run("correlate", log, sim, "--measured-clock", "700")
        self.assertEqual(rc, 0, err)
        self.assertIn("(whole program)", out)
        self.assertIn("-35.7%", out)  # 9000 / 1400 MHz = 6.43 us against 10 us
        rc, out, err = run("correlate", log, sim)
        self.assertEqual(rc, 2)
        self.assertIn("--measured-clock", err)

    def test_csv_totals_and_kernels_and_program_matching_by_suite(self):
        table = self.write("measured.csv", "program,kernel,ns,class\n"
                                           "rodinia/bfs,,1000,graph\n"
                                           "other/bfs,_Z1kv,400,\n"
                                           "rodinia/nw,,50,\n")
        a = self.write("runs/a.json", sim_stats("/b/rodinia/bfs", [("_Z1kv", 300), ("_Z2k2v", 900)]))
        b = self.write("runs/b.json", sim_stats("/b/other/bfs", [("_Z1kv", 500)]))
        rc, out, err = run("correlate", table, a.parent)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"rodinia/bfs +\(whole program\) +0 +1\.00 +1\.20 +\+20\.0%")
        self.assertRegex(out, r"other/bfs +_Z1kv +0 +0\.40 +0\.50 +\+25\.0%")
        self.assertIn("no simulated run of rodinia/nw", err)
        self.assertTrue(b.exists())

    def test_profile_json_uses_measured_durations(self):
        measured = self.write("gpu/app.json", sim_stats("/gpu/s/app", [("_Z1kv", 1000), ("_Z1kv", 3000)],
                                                        mode="profile"))
        sim = self.write("sim/app.json", sim_stats("/sim/s/app", [("_Z1kv", 1100), ("_Z1kv", 2700), ("_Z1kv", 9)]))
        rc, out, err = run("correlate", measured, sim)
        self.assertEqual(rc, 0, err)
        self.assertIn("+10.0%", out)
        self.assertIn("-10.0%", out)
        self.assertIn("launched 2 times measured, 3 simulated", err)

    def test_errors(self):
        functional = self.write("f.json", sim_stats("app", [("_Z1kv", 0)], mode="functional"))
        log = self.write("app.log", GPGPUSIM_LOG)
        rc, _, err = run("correlate", log, functional)
        self.assertEqual(rc, 2)
        self.assertIn("timing-mode", err)
        old = self.write("old.json", {"warpsim": {"program": "app"}, "kernels": []})
        rc, _, err = run("correlate", log, old)
        self.assertEqual(rc, 2)
        self.assertIn("no per-launch records", err)
        rc, _, err = run("correlate", self.dir / "missing.log", old)
        self.assertEqual(rc, 2)
        self.assertIn("no such file", err)
        other = self.write("x/other.json", sim_stats("zzz", [("_Z1kv", 10)]))
        rc, _, err = run("correlate", log, other)
        self.assertEqual(rc, 2)
        self.assertIn("no kernel or program is in both", err)
        bad = self.write("bad.csv", "program,kernel,cycles\napp,,100\n")
        rc, _, err = run("correlate", bad, other)
        self.assertEqual(rc, 2)
        self.assertIn("bad.csv:2", err)

    def test_two_runs_of_one_program_are_refused(self):
        log = self.write("app.log", GPGPUSIM_LOG)
        self.write("sweep/a/app.stats.json", sim_stats("/b/s/app", [("_Z4stepPf", 10)]))
        self.write("sweep/b/app.stats.json", sim_stats("/b/s/app", [("_Z4stepPf", 20)]))
        rc, _, err = run("correlate", log, self.dir / "sweep")
        self.assertEqual(rc, 2)
        self.assertIn("two simulated runs of s/app", err)

    def test_pearson(self):
        self.assertAlmostEqual(correlate.pearson([1, 2, 3], [2, 4, 6]), 1.0)
        self.assertAlmostEqual(correlate.pearson([1, 2, 3], [3, 2, 1]), -1.0)
        self.assertTrue(math.isnan(correlate.pearson([1], [1])))


if __name__ == "__main__":
    unittest.main()
