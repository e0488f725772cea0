#!/usr/bin/env python3
"""Compares two statistics snapshots (scripts/stats-snapshot.sh): the same
programs on the same configurations, before and after a change.

    scripts/compare-stats.py BEFORE_DIR AFTER_DIR [--renames FILE]

Every value present in both must be identical. Host-dependent values (wall
and simulation seconds, the program's path) are ignored. Keys only in AFTER
are listed as added, keys only in BEFORE as removed; a renames file (lines
"old.key.pattern -> new.key.pattern", where '*' matches one dotted
component and stands for the same text on the right) maps removed keys to
their new names, whose values must then be equal too. Exits 1 on any value
difference, a missing file, or a removed key that no rename explains.
"""
import argparse
import json
import re
import sys
from pathlib import Path

# Values that depend on the host, not on the simulation.
IGNORED = [re.compile(p) for p in (
    r"^warpsim\.(wall_seconds|simulation_seconds|program)$",
    r"^kernels\.\d+\.wall_seconds$",
)]


def flatten(value, prefix, out):
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(v, f"{prefix}.{k}" if prefix else k, out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            flatten(v, f"{prefix}.{i}", out)
    else:
        out[prefix] = value
    return out


# nvcc names an anonymous namespace after a hash of the source file's path,
# so the same program built in two checkouts has different kernel names.
ANONYMOUS_NAMESPACE = re.compile(r"_GLOBAL__N__[0-9a-f]+_")


def normalise(value):
    if isinstance(value, str):
        return ANONYMOUS_NAMESPACE.sub("_GLOBAL__N__*_", value)
    return value


def load(path, ignored):
    flat = flatten(json.loads(path.read_text()), "", {})
    return {k: normalise(v) for k, v in flat.items() if not any(p.match(k) for p in IGNORED + ignored)}


def read_renames(path):
    rules = []
    if path is None:
        return rules
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        old, new = (s.strip() for s in line.split("->"))
        pattern = re.compile("^" + re.escape(old).replace(r"\*", "([^.]+)") + "$")
        rules.append((pattern, new))
    return rules


def renamed(key, rules):
    for pattern, new in rules:
        m = pattern.match(key)
        if m:
            out = new
            for g in m.groups():
                out = out.replace("*", g, 1)
            return out
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--renames", type=Path)
    ap.add_argument("--show", type=int, default=10, help="differences shown per file")
    ap.add_argument("--ignore", action="append", default=[], metavar="REGEX",
                    help="keys (after renaming) not compared, for differences explained elsewhere")
    args = ap.parse_args()
    rules = read_renames(args.renames)
    ignored = [re.compile(p) for p in args.ignore]

    before = sorted(p.relative_to(args.before) for p in args.before.rglob("*.json"))
    after = {p.relative_to(args.after) for p in args.after.rglob("*.json")}
    failed = False
    added_keys, removed_keys, renamed_keys = set(), set(), set()
    compared = values = 0
    generic = lambda k: re.sub(r"\.\d+\.", ".N.", k)
    for rel in before:
        if rel not in after:
            print(f"{rel}: missing after the change")
            failed = True
            continue
        a, b = load(args.before / rel, []), load(args.after / rel, [])
        compared += 1
        problems = []
        for k, v in a.items():
            target = k
            if k not in b:
                target = renamed(k, rules)
                if target is None or target not in b:
                    removed_keys.add(generic(k))
                    problems.append(f"  removed: {k}")
                    continue
                renamed_keys.add(f"{generic(k)} -> {generic(target)}")
            if any(p.match(target) for p in ignored):
                continue
            values += 1
            if b[target] != v:
                problems.append(f"  {k}: {v!r} -> {b[target]!r}")
        targets = {renamed(k, rules) for k in a}
        for k in b:
            if k not in a and k not in targets:
                added_keys.add(generic(k))
        if problems:
            failed = True
            print(f"{rel}: {len(problems)} differences")
            for p in problems[: args.show]:
                print(p)
    for rel in sorted(after - set(before)):
        print(f"{rel}: only after the change (not compared)")
    print(f"compared {values} values in {compared} files")
    if renamed_keys:
        print(f"renamed ({len(renamed_keys)}):")
        for k in sorted(renamed_keys):
            print(f"  {k}")
    if added_keys:
        print(f"added ({len(added_keys)}):")
        for k in sorted(added_keys):
            print(f"  {k}")
    if removed_keys:
        print(f"removed without a rename ({len(removed_keys)}):")
        for k in sorted(removed_keys):
            print(f"  {k}")
    print("IDENTICAL" if not failed else "DIFFERENT")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
