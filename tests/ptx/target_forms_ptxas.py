#!/usr/bin/env python3
"""Checks tests/ptx/data/target-forms.txt against ptxas: every `ok` form assembles, every
`error:` form is refused. warpsim's target checks are tested against the same table
(target_requirements_test.cpp), so this keeps the table true to the assembler.

    target_forms_ptxas.py PTXAS TABLE WORKDIR
"""
import pathlib
import re
import subprocess
import sys

ROW = re.compile(r"^([^|]*)\|([^|]*)\|([^|]*)\|(.*)\|([^|]*)$")


def main():
    ptxas, table, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    failures, n = [], 0
    for number, line in enumerate(table.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        m = ROW.match(line)
        if not m:
            failures.append(f"{table.name}:{number}: not a row of five fields")
            continue
        target, version, decls, inst, expect = (f.strip() for f in m.groups())
        sm = int(re.match(r"sm_(\d+)", target).group(1))
        arch = target if sm >= 75 else "sm_75"  # ptxas 13 assembles for sm_75 and later
        n += 1
        ptx = work / f"form{n}.ptx"
        ptx.write_text(
            f".version {version}\n.target {target}\n.address_size 64\n{decls}\n"
            ".visible .entry k(.param .u64 p)\n{\n"
            ".reg .b32 %r<8>; .reg .pred %p<4>; .reg .b64 %rd<4>; .reg .f32 %f<4>; .reg .b16 %h<4>;\n"
            f"ld.param.u64 %rd1, [p];\n{inst}\nret;\n}}\n")
        run = subprocess.run([ptxas, f"-arch={arch}", str(ptx), "-o", str(work / f"form{n}.cubin")],
                             capture_output=True, text=True)
        if expect == "ok" and run.returncode != 0:
            failures.append(f"{table.name}:{number}: ptxas refuses a form marked ok: {inst}\n"
                            f"{run.stderr.strip()}")
        elif expect != "ok" and run.returncode == 0:
            failures.append(f"{table.name}:{number}: ptxas accepts a form marked refused: {inst}")
    for f in failures:
        print(f, file=sys.stderr)
    print(f"{n - len(failures)} of {n} forms agree with ptxas")
    return 1 if failures or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
