"""What `warpsim run` and `warpsim bench` do around the program they run.

Each case runs the real warpsim on tests/cuda/long_run.cu in a private
directory that is also $TMPDIR, so that a temporary file left behind, a
program left running or a damaged output is seen. Environment: WARPSIM (the
warpsim executable), LONG_RUN (the program), WARPSIM_KILLS (the number of
random kills in the kill loop; the loop can also be run on its own:
`python3 -m unittest reliability_test.KillLoop` with WARPSIM_KILLS=50).
"""
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import unittest

WARPSIM = os.environ.get("WARPSIM", "warpsim")
LONG_RUN = os.environ.get("LONG_RUN", "long_run")
KILLS = int(os.environ.get("WARPSIM_KILLS", "8"))

# A run of a few seconds in timing mode (most of it in one launch).
LONG = ["--blocks", "256", "--iterations", "20000"]
# A quick one.
QUICK = ["--blocks", "8", "--iterations", "100"]


def processes_running(program):
    """PIDs of live processes whose command line starts with `program`."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if argv0 == program and state != "Z":
            pids.append(int(pid))
    return pids


class Sandbox(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="warpsim-reliability-")
        # A private copy of the program, so that "is it still running" and
        # "was it damaged" are about this test's copy only.
        self.program = os.path.join(self.dir, "long_run")
        shutil.copy2(LONG_RUN, self.program)
        self.tmp = os.path.join(self.dir, "tmp")
        os.mkdir(self.tmp)
        self.env = dict(os.environ, TMPDIR=self.tmp)

    def tearDown(self):
        for pid in processes_running(self.program):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def warpsim(self, *args, timeout=120, cwd=None):
        return subprocess.run([WARPSIM, *args], capture_output=True, text=True, timeout=timeout,
                              env=self.env, cwd=cwd or self.dir)

    def start(self, *args, cwd=None):
        return subprocess.Popen([WARPSIM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env, cwd=cwd or self.dir)

    def wait_for_launch(self, proc, seconds=60):
        """Until the program runs a kernel (its statistics exist from then on)."""
        deadline = time.time() + seconds
        while time.time() < deadline and proc.poll() is None:
            pids = processes_running(self.program)
            if pids and any(self.has_runtime(p) for p in pids):
                return
            time.sleep(0.05)
        self.fail("the program never started its kernel")

    @staticmethod
    def has_runtime(pid):
        # The runtime's watcher thread exists from load time; the kernel runs
        # once the program has used a few hundred ms of CPU.
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12]) > 50  # utime + stime, in ticks of 10 ms
        except OSError:
            return False

    def suite(self, programs):
        """A suite of copies of long_run, one per suite name (the pass line
        names the program: PASS long_run)."""
        text = ""
        for suite, args in programs:
            os.makedirs(self.path("suite", suite))
            os.symlink(self.program, self.path("suite", suite, "long_run"))
            text += (f'[[program]]\nsuite = "{suite}"\nname = "long_run"\ndescription = "x"\n'
                     f'args.small = {json.dumps(args)}\n\n')
        text += '[suite.all]\ndescription = "all"\nprograms = ["*"]\n'
        with open(self.path("suite", "suites.toml"), "w") as f:
            f.write(text)
        return self.path("suite", "suites.toml")

    def assert_clean(self, *keep):
        """No program left running, no temporary file anywhere."""
        deadline = time.time() + 5
        while processes_running(self.program) and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(processes_running(self.program), [], "the program was left running")
        self.assertEqual(os.listdir(self.tmp), [], "temporary files were left in $TMPDIR")
        leftovers = [n for n in os.listdir(self.dir) if ".warpsim-" in n]
        self.assertEqual(leftovers, [], "temporary files were left beside the output")


class Outputs(Sandbox):
    def refused(self, stats, expect):
        r = self.warpsim("run", "--quiet", "--stats", stats, "--", self.program, *QUICK)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(expect, r.stderr)
        self.assertNotIn("PASS", r.stdout, "the program ran although its output was refused")
        return r

    def test_a_directory_is_refused_and_kept(self):
        os.mkdir(self.path("empty"))
        os.mkdir(self.path("full"))
        with open(self.path("full", "x"), "w") as f:
            f.write("x")
        self.refused(self.path("empty"), "is a directory")
        self.refused(self.path("full"), "is a directory")
        self.assertTrue(os.path.isdir(self.path("empty")))
        self.assertTrue(os.path.exists(self.path("full", "x")))
        self.assert_clean()

    def test_a_fifo_is_refused_and_kept(self):
        os.mkfifo(self.path("fifo"))
        self.refused(self.path("fifo"), "not a regular file")
        self.assertTrue(stat.S_ISFIFO(os.stat(self.path("fifo")).st_mode))

    def test_the_program_itself_is_refused(self):
        before = open(self.program, "rb").read()
        self.refused(self.program, "must not overwrite")
        self.assertEqual(open(self.program, "rb").read(), before)

    def test_a_missing_directory_and_an_option_are_refused(self):
        self.refused(self.path("no", "such", "stats.json"), "does not exist")
        r = self.warpsim("run", "--quiet", "--stats", "--", self.program, *QUICK)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertFalse(os.path.exists(self.path("--")))

    def test_an_existing_file_is_replaced_whole(self):
        with open(self.path("stats.json"), "w") as f:
            f.write("old")
        r = self.warpsim("run", "--quiet", "--stats", "stats.json", "--", self.program, *QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("stats.json")) as f:
            j = json.load(f)
        self.assertFalse(j["warpsim"]["partial"])
        self.assert_clean()

    def test_no_statistics_leaves_the_old_file(self):
        with open(self.path("stats.json"), "w") as f:
            f.write("old")
        r = self.warpsim("run", "--stats", "stats.json", "--", self.program, "--killed")
        self.assertEqual(r.returncode, 128 + signal.SIGKILL, r.stderr)
        with open(self.path("stats.json")) as f:
            self.assertEqual(f.read(), "old")
        self.assertIn("left as it was", r.stderr)
        self.assert_clean()

    def test_a_relative_path_does_not_follow_the_program(self):
        os.mkdir(self.path("elsewhere"))
        r = self.warpsim("run", "--quiet", "--stats", "rel.json", "--", self.program, "--chdir",
                         self.path("elsewhere"), *QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(self.path("rel.json")))
        self.assertFalse(os.path.exists(self.path("elsewhere", "rel.json")))

    def test_a_symbolic_link_is_followed(self):
        with open(self.path("real.json"), "w") as f:
            f.write("old")
        os.symlink(self.path("real.json"), self.path("link.json"))
        r = self.warpsim("run", "--quiet", "--stats", "link.json", "--", self.program, *QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.islink(self.path("link.json")))
        with open(self.path("real.json")) as f:
            json.load(f)

    def test_concurrent_runs_each_summarise_their_own(self):
        procs = [self.start("run", "--stats", "shared.json", "--", self.program, "--blocks", str(b),
                            "--iterations", "100") for b in (8, 16)]
        outs = [p.communicate(timeout=120) for p in procs]
        for p, (out, err), blocks in zip(procs, outs, (8, 16)):
            self.assertEqual(p.returncode, 0, err)
            self.assertRegex(err, rf"1 launch of 1 kernel, {blocks} CTAs")
        with open(self.path("shared.json")) as f:
            json.load(f)
        self.assert_clean()

    def test_no_temporary_files_after_a_run(self):
        r = self.warpsim("run", "--", self.program, *QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_clean()


class Signals(Sandbox):
    def interrupt(self, sig, extra=()):
        p = self.start("run", "--stats", "stats.json", *extra, "--", self.program, *LONG)
        self.wait_for_launch(p)
        time.sleep(0.5)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        return p, err

    def check_interrupted(self, sig):
        p, err = self.interrupt(sig)
        self.assertEqual(p.returncode, 128 + sig, err)
        self.assertIn("stopped by " + signal.Signals(sig).name, err)
        with open(self.path("stats.json")) as f:
            j = json.load(f)
        self.assertTrue(j["warpsim"]["partial"], err)
        self.assertEqual(j["warpsim"]["interrupted_by"], signal.Signals(sig).name)
        self.assertGreater(j["gpu_tot_sim_cycle"], 0)
        self.assert_clean()

    def test_sigterm(self):
        self.check_interrupted(signal.SIGTERM)

    def test_sigint(self):
        self.check_interrupted(signal.SIGINT)

    def test_sighup(self):
        self.check_interrupted(signal.SIGHUP)

    def test_a_program_that_ignores_the_signal_is_killed_after_the_grace_period(self):
        p = self.start("run", "--stats", "stats.json", "--", self.program, "--ignore-term", *LONG,
                       "--launches", "100")
        self.wait_for_launch(p)
        # The runtime still stops the launch and writes the statistics; only
        # the program's own disposition of SIGTERM is ignore, so it goes on
        # (the launches fail fast) until warpsim kills it.
        t0 = time.time()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertLess(time.time() - t0, 30)
        self.assert_clean()

    def test_a_second_signal_stops_at_once(self):
        p = self.start("run", "--", self.program, "--ignore-term", *LONG)
        self.wait_for_launch(p)
        p.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        t0 = time.time()
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
        self.assertLess(time.time() - t0, 5)
        self.assert_clean()


class Progress(Sandbox):
    def test_progress_lines_for_logs(self):
        # Stopped once a line about the kernel has appeared, so that the test
        # takes a few seconds in a sanitizer build as in a release build.
        pattern = re.compile(r"warpsim: \[\d+ s\] work \(launch 1\): CTAs \d+/256, .*cycles, IPC")
        with open(self.path("err.txt"), "w") as err_file:
            p = subprocess.Popen([WARPSIM, "run", "--progress", "0.5", "--", self.program, *LONG],
                                 stdout=subprocess.DEVNULL, stderr=err_file, env=self.env, cwd=self.dir)
            deadline = time.time() + 120
            while time.time() < deadline and p.poll() is None:
                with open(self.path("err.txt")) as f:
                    if pattern.search(f.read()):
                        break
                time.sleep(0.1)
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=60)
        with open(self.path("err.txt")) as f:
            err = f.read()
        self.assertRegex(err, pattern)
        self.assertNotIn("\033[K", err, "no terminal codes in a log")

    def test_negative_interval_is_a_usage_error(self):
        r = self.warpsim("run", "--progress", "-1", "--", self.program, *QUICK)
        self.assertEqual(r.returncode, 2, r.stderr)

    def test_the_watchdog_ends_a_hung_kernel(self):
        for mode in ("functional", "timing"):
            r = self.warpsim("run", "--mode", mode, "--set", "functional.watchdog=200000", "--", self.program,
                             "--hang")
            self.assertEqual(r.returncode, 0, r.stderr)  # the program expects cudaErrorLaunchTimeout
            self.assertIn("warp instructions without finishing", r.stderr)


class Bench(Sandbox):
    def test_an_interrupted_bench_still_writes_its_table(self):
        suites = self.suite([("a", QUICK), ("b", LONG), ("c", QUICK)])
        p = self.start("bench", "--suites", suites, "--out", "out")
        long_program = self.path("suite", "b", "long_run")
        deadline = time.time() + 60
        while time.time() < deadline and not any(self.has_runtime(pid) for pid in processes_running(long_program)):
            time.sleep(0.05)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 128 + signal.SIGINT, err)
        with open(self.path("out", "results.json")) as f:
            j = json.load(f)
        status = {r["suite"]: r["status"] for r in j["programs"]}
        self.assertEqual(status, {"a": "pass", "b": "interrupted", "c": "not-run"}, err)
        self.assertEqual(processes_running(long_program), [])
        self.assertEqual(os.listdir(self.tmp), [])


class KillLoop(Sandbox):
    """SIGINT/SIGTERM at random moments, to `warpsim run` and `warpsim bench`
    in turn: never a process, a temporary file or a damaged output left
    behind."""

    def test_random_kills(self):
        rng = random.Random(20261128)
        suites = self.suite([("a", QUICK), ("b", LONG)])
        with open(self.path("stats.json"), "w") as f:
            f.write('{"old": true}\n')
        for i in range(KILLS):
            sig = rng.choice([signal.SIGINT, signal.SIGTERM])
            delay = rng.uniform(0.0, 2.5)
            mode = rng.choice(["timing", "functional"])
            command = "bench" if i % 2 else "run"
            if command == "run":
                args = LONG if mode == "timing" else ["--blocks", "256", "--iterations", "100000", "--launches", "20"]
                p = self.start("run", "--mode", mode, "--stats", "stats.json", "--", self.program, *args)
            else:
                p = self.start("bench", "--mode", mode, "--suites", suites, "--out", "out")
            time.sleep(delay)
            p.send_signal(sig)
            out, err = p.communicate(timeout=90)
            with self.subTest(kill=i, command=command, signal=sig.name, delay=round(delay, 2), mode=mode):
                # -sig: warpsim itself had not started yet (nothing to clean).
                self.assertIn(p.returncode, (0, 1, 128 + sig, -sig) if command == "bench" else (0, 128 + sig, -sig),
                              err)
                with open(self.path("stats.json")) as f:
                    json.load(f)  # the old file or a whole new one, never half of one
                if os.path.exists(self.path("out", "results.json")):
                    with open(self.path("out", "results.json")) as f:
                        json.load(f)
                    self.assertEqual([n for n in os.listdir(self.path("out")) if ".warpsim-" in n], [])
                for program in (self.program, self.path("suite", "a", "long_run"), self.path("suite", "b", "long_run")):
                    deadline = time.time() + 5
                    while processes_running(program) and time.time() < deadline:
                        time.sleep(0.05)
                    self.assertEqual(processes_running(program), [], "a program was left running")
                self.assert_clean()


if __name__ == "__main__":
    unittest.main()
