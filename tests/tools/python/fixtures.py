"""Test inputs for warpsim_py: statistics shaped like `warpsim run --stats`
output (a subset of its names, same nesting), and sweep results written the
way `warpsim sweep` lays them out (results.json, results.csv, sweep.toml,
points/pNNN/config.toml). The flattening here is the tests' own, so the
reader under test is checked against an independent copy of the contract."""
import csv
import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tools" / "python"))

from warpsim_py import main as cli  # noqa: E402

MAIN = REPO / "tools" / "python" / "warpsim_py" / "main.py"
GROUPS = ("constant", "dram", "l2", "mc", "noc", "sm")
SLOTS = ("barrier", "fetch", "idle", "issued", "memory_stall", "scoreboard", "unit_busy")
DERIVED = ("cycles", "thread_instructions", "ipc", "energy_J", "average_power_W", "edp_Js")


def run(*argv):
    """Runs `warpsim_py/main.py ARGV` in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = cli.main([str(a) for a in argv])
        except SystemExit as e:  # argparse's own errors and --help
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def stats(ipc, energy=None, slots=None, memory=None, kernels=(("_Z4stepPfi", 0.6), ("_Z6reducePfi", 0.4)),
          insts=1_200_000, program="/bench/prog"):
    """One run's nested statistics. energy: power group -> joules;
    slots: issue-slot category -> count; kernels: (name, share of the work)."""
    cycles = round(insts / ipc)
    energy = energy or {g: 0.001 * (i + 1) for i, g in enumerate(GROUPS)}
    total = sum(energy.values())
    seconds = cycles / 1.98e9
    memory = memory or {}
    power = lambda share: {
        "total_energy_J": total * share, "average_power_W": total / seconds, "edp_Js": total * share * seconds * share,
        "group": {g: {"energy_J": e * share, "average_power_W": e / seconds} for g, e in energy.items()},
        "component": {"sm": {"static_J": energy.get("sm", 0) * share / 2}}}
    return {
        "gpu_tot_sim_cycle": cycles, "gpu_tot_sim_insn": insts, "gpu_tot_ipc": ipc, "gpu_sim_cycle": cycles,
        "L1D_total_cache_miss_rate": memory.get("l1d", 0.5), "L2_total_cache_miss_rate": memory.get("l2", 0.25),
        "Row_Buffer_Locality": memory.get("rbl", 0.9), "bw_util": memory.get("bw", 0.3),
        "icnt": {"reply": {"flits_injected": 1000}},
        "timing": {"issue_slots": slots or {s: 100 * (i + 1) for i, s in enumerate(SLOTS)}, "ctas": 64},
        "power": dict(power(1.0), machine={"sms": 132}, parameters={"enabled": "true"}),
        "warpsim": {"mode": "timing", "program": program, "gpu": "test GPU", "wall_seconds": 1.5},
        "kernels": [{"name": name, "launches": 1, "ctas": 32, "cycles": round(cycles * share),
                     "thread_instructions": round(insts * share), "warp_instructions": round(insts * share / 32),
                     "wall_seconds": 0.5, "power": power(share)} for name, share in kernels],
    }


def flatten(nested, prefix=""):
    out = {}
    for key, value in nested.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        elif not isinstance(value, list):
            out[f"{prefix}{key}"] = value
    return out


def _demangled(name):
    return {"_Z4stepPfi": "step(float*, int)", "_Z6reducePfi": "reduce(float*, int)"}.get(name, name)


def write_sweep(directory, points, programs, measure, name="test-sweep"):
    """points: [(label, {parameter: value})]; measure(label, parameters, program)
    gives (status, reason, nested stats or None). Writes the sweep's files and
    returns the directory."""
    directory = Path(directory)
    parameters = list(points[0][1])
    head = ["row", "point", "label", *parameters, "program", "kernel", "kernel_index", "status", "reason",
            "wall_seconds", *DERIVED]
    rows, point_entries = [], []
    for i, (label, params) in enumerate(points):
        point = f"p{i:03d}"
        config = f"points/{point}/config.toml"
        (directory / config).parent.mkdir(parents=True, exist_ok=True)
        (directory / config).write_text(f"# point {label}\n[timing]\ncta_policy = \"{label}\"\n")
        point_entries.append({"point": point, "label": label, "parameters": params, "config_file": config})
        for program in programs:
            status, reason, nested = measure(label, params, program)
            base = {"point": point, "label": label, **params, "program": program, "status": status,
                    "reason": reason}
            if nested is None:
                rows.append(dict(base, row="program"))
                continue
            flat = flatten(nested)
            rows.append(dict(flat, **base, row="program", wall_seconds=flat.get("warpsim.wall_seconds"),
                             cycles=flat.get("gpu_tot_sim_cycle"), thread_instructions=flat.get("gpu_tot_sim_insn"),
                             ipc=flat.get("gpu_tot_ipc"), energy_J=flat.get("power.total_energy_J"),
                             average_power_W=flat.get("power.average_power_W"), edp_Js=flat.get("power.edp_Js")))
            for k, kernel in enumerate(nested["kernels"]):
                fields = flatten({n: v for n, v in kernel.items() if n != "name"})
                rows.append(dict(fields, **base, row="kernel", kernel=_demangled(kernel["name"]), kernel_index=k,
                                 ipc=kernel["thread_instructions"] / kernel["cycles"],
                                 energy_J=fields["power.total_energy_J"],
                                 average_power_W=fields["power.average_power_W"], edp_Js=fields["power.edp_Js"]))
    columns = head + sorted({c for r in rows for c in r} - set(head))
    rows = [{c: r.get(c) for c in columns} for r in rows]
    results = {"sweep": name, "parameters": parameters, "points": point_entries, "columns": columns, "rows": rows}
    (directory / "results.json").write_text(json.dumps(results, indent=1))
    with (directory / "results.csv").open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(columns)
        for r in rows:
            out.writerow(["" if r[c] is None else repr(r[c]) if isinstance(r[c], float) else r[c] for c in columns])
    (directory / "sweep.toml").write_text(f'name = "{name}"\n[axes]\npolicy = ["2L-RR", "D"]\n')
    return directory


def read_data(path):
    """A --data file as a list of dicts, numbers parsed back."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k, v in r.items():
            try:
                r[k] = float(v)
            except ValueError:
                pass
    return rows
