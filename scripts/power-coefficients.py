#!/usr/bin/env python3
"""Derives the [power] section of a GPU config from published per-operation
energies, by the scaling rule of docs/power.md, and prints it as TOML with a
source for every value.

    scripts/power-coefficients.py gtx480      # also: v100, h100, a100, rtx2080ti, rtx4090
    scripts/power-coefficients.py --markdown gtx480 v100 h100   # docs/power.md's table

The rule: the dynamic energy of logic and SRAM scales with the feature size
and the square of the supply voltage, E(node, V) = E(45 nm, 0.9 V) x
(node / 45) x (V / 0.9)^2; a repeated wire's energy per bit and mm with V^2
only (its capacitance per mm barely changes between nodes: Keckler et al.,
IEEE Micro 2011, Table 1 projects 240 fJ/bit/mm at 40 nm to 150-115 at
10 nm, about what V^2 gives). SRAM reads interpolate Horowitz's 8 KB, 32 KB
and 1 MB figures geometrically in the array size.
"""
import math
import sys

# Published figures (docs/power.md has the full references).
HOROWITZ = dict(node=45, vdd=0.9, int_add=0.1, int_mult=3.1, fp32_add=0.9, fp32_mult=3.7, fp16_add=0.4,
                fp16_mult=1.1, sram64={8: 10.0, 32: 20.0, 1024: 100.0})  # pJ, 64-bit reads, size in KiB
KECKLER = dict(node=40, vdd=0.9, dfma=50.0, wire_fJ_bit_mm=121.0)  # random data: half the 240 fJ per transition

# Each GPU: node (nm), core supply (V), array sizes (KiB), flit width, the
# die's side (mm) for the crossbar's terminal wires, and its DRAM and static
# figures (sources in the comments printed with them).
GPUS = {
    "gtx480": dict(node=40, vdd=0.9, l1d=16, l2_slice=64, l1i=8, l1c=8, rf_bank=8, shared_bank=8,
                   flit_bits=256, die_side_mm=23.0, dram="gddr5", static="gtx480"),
    "v100": dict(node=12, vdd=0.8, l1d=128, l2_slice=96, l1i=8, l1c=8, rf_bank=8, shared_bank=8,
                 flit_bits=320, die_side_mm=28.5, dram="hbm2", static="v100"),
    "h100": dict(node=4, vdd=0.75, l1d=256, l2_slice=640, l1i=8, l1c=8, rf_bank=8, shared_bank=8,
                 flit_bits=256, die_side_mm=28.5, dram="hbm2", static="v100-scaled",
                 dram_note=" (HBM2 figures stand in for HBM3)"),
    "a100": dict(node=7, vdd=0.8, l1d=192, l2_slice=512, l1i=8, l1c=8, rf_bank=8, shared_bank=8,
                 flit_bits=320, die_side_mm=28.7, dram="hbm2", static="v100-scaled"),
    "rtx2080ti": dict(node=12, vdd=0.8, l1d=96, l2_slice=256, l1i=8, l1c=8, rf_bank=8, shared_bank=8,
                      flit_bits=320, die_side_mm=27.4, dram="gddr5", static="v100-scaled",
                      dram_note=" (GDDR5 figures stand in for GDDR6)"),
    "rtx4090": dict(node=4, vdd=0.75, l1d=128, l2_slice=3072, l1i=8, l1c=8, rf_bank=8, shared_bank=8,
                    flit_bits=256, die_side_mm=24.6, dram="gddr5", static="v100-scaled",
                    dram_note=" (GDDR5 figures stand in for GDDR6X)"),
}


def logic(pj45, g):
    """A 45 nm, 0.9 V energy at the GPU's node and voltage."""
    return pj45 * (g["node"] / HOROWITZ["node"]) * (g["vdd"] / HOROWITZ["vdd"]) ** 2


def sram64(kib):
    """Horowitz's 64-bit SRAM read (45 nm), geometric in the size."""
    pts = sorted(HOROWITZ["sram64"].items())
    if kib <= pts[0][0]:
        return pts[0][1]
    for (s0, e0), (s1, e1) in zip(pts, pts[1:]):
        if kib <= s1:
            f = math.log(kib / s0) / math.log(s1 / s0)
            return e0 * (e1 / e0) ** f
    return pts[-1][1]


def section(name):
    """The [power] section of GPU `name` as TOML."""
    rows = coefficient_rows(name)
    out = [f"# [power] for {name}, printed by scripts/power-coefficients.py {name} (docs/power.md):",
           "# [HOR] Horowitz, ISSCC 2014, Fig. 1.1.9 (45 nm, 0.9 V); [KEC] Keckler et al., IEEE Micro 2011,",
           "# Table 1 (40 nm); scaled to this node by E x (node / 45 nm) x (V / 0.9 V)^2 (wires: V^2).",
           "[power]"]
    for key, value, source in rows:
        out.append(f"{key + ' = ' + fmt(value):<42} # {source}")
    return "\n".join(out)


def fmt(value):
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def markdown(names):
    """Every coefficient of GPUs `names` side by side, with the first one's source."""
    tables = [coefficient_rows(n) for n in names]
    out = ["| key | " + " | ".join(names) + " | source (each GPU at its node) |",
           "|---|" + "---:|" * len(names) + "---|"]
    for i, (key, _, source) in enumerate(tables[0]):
        sources = [t[i][2] for t in tables]
        if len(set(sources)) > 1:
            source = "; ".join(f"{n}: {src}" for n, src in zip(names, sources))
        out.append(f"| `{key}` | " + " | ".join(fmt(t[i][1]) for t in tables) + f" | {source} |")
    return "\n".join(out)


def coefficient_rows(name):
    g = GPUS[name]
    scale = (g["node"] / 45) * (g["vdd"] / 0.9) ** 2
    wire = KECKLER["wire_fJ_bit_mm"] * (g["vdd"] / KECKLER["vdd"]) ** 2
    pitch_mm = 0.2e-3 * g["node"] / 40  # crossbar wire pitch
    rows = []

    def row(key, value, source):
        rows.append((key, value, source))

    lines_words = 16  # a 128-B line or a warp's 32 x 32-bit operand: 16 64-bit words
    row("technology_nm", g["node"], f"process node; core supply {g['vdd']} V [EST] for the V^2 rule")
    row("issue_pJ", logic(2 * sram64(8), g), "[EST] two 64-bit 8 KB-array reads (instruction buffer, scoreboard) [HOR]")
    rf = logic(lines_words * sram64(g["rf_bank"]), g)
    row("register_read_pJ", rf, "32 lanes x 32 bit = 16 64-bit reads of an 8 KB bank [HOR]")
    row("register_write_pJ", rf, "as a read [HOR]")
    row("sp_op_pJ", logic(HOROWITZ["fp32_add"] + HOROWITZ["fp32_mult"], g), "fp32 add + mult = FMA [HOR]")
    row("int_op_pJ", logic((HOROWITZ["int_add"] + HOROWITZ["int_mult"]) / 2, g),
        "[EST] half 32-bit adds, half multiplies (IMAD) [HOR]")
    row("dp_op_pJ", KECKLER["dfma"] * (g["node"] / 40) * (g["vdd"] / 0.9) ** 2, "64-bit DFMA, 50 pJ at 40 nm [KEC]")
    row("sfu_op_pJ", logic(4 * HOROWITZ["fp32_mult"], g), "[EST] four fp32 multiplies (table + quadratic) [HOR]")
    row("tensor_op_pJ", logic(64 * (HOROWITZ["fp16_add"] + HOROWITZ["fp16_mult"]), g),
        "[EST] 64 fp16 FMAs per lane (mma m16n8k16) [HOR]")
    row("branch_op_pJ", logic(HOROWITZ["int_add"], g), "[EST] one 32-bit add [HOR]")
    row("ldst_op_pJ", logic(2 * HOROWITZ["int_add"], g), "[EST] one 64-bit address add [HOR]")
    row("shared_access_pJ", logic(lines_words * sram64(g["shared_bank"]), g), "32 banks x 32 bit from 8 KB arrays [HOR]")
    l1d = logic(lines_words * sram64(g["l1d"]), g)
    row("l1d_read_pJ", l1d, f"128 B from a {g['l1d']} KB array [HOR]")
    row("l1d_write_pJ", l1d, "as a read [HOR]")
    row("l1d_fill_pJ", l1d, "a 128-B line written [HOR]")
    row("l1i_read_pJ", logic(2 * sram64(g["l1i"]), g), "two 64-bit instructions [HOR]")
    row("l1i_fill_pJ", logic(lines_words * sram64(g["l1i"]), g), "a 128-B line [HOR]")
    row("l1c_read_pJ", logic(sram64(g["l1c"]), g), "one 64-bit word broadcast [HOR]")
    row("l1c_fill_pJ", logic(8 * sram64(g["l1c"]), g), "a 64-B line [HOR]")
    l2 = logic(lines_words * sram64(g["l2_slice"]), g)
    row("l2_read_pJ", l2, f"128 B from a {g['l2_slice']} KB slice [HOR]")
    row("l2_write_pJ", l2, "as a read [HOR]")
    row("l2_fill_pJ", l2, "a 128-B line written [HOR]")
    row("l2_atomic_pJ", logic(32 * HOROWITZ["int_add"], g), "[EST] 32 32-bit adds [HOR]")
    buf = logic(sram64(8), g) / 64 * 1000
    row("noc_buffer_write_fJ_per_bit", buf, "[EST] an 8 KB-array access per bit (an upper bound for small buffers) [HOR]")
    row("noc_buffer_read_fJ_per_bit", buf, "as a write [HOR]")
    row("noc_crossbar_pitch_um", pitch_mm * 1000, "[EST] 0.2 um at 40 nm, with the node")
    row("noc_allocation_pJ", logic(10 * HOROWITZ["int_add"], g), "[EST] an arbiter: about ten 32-bit adds of logic [HOR]")
    row("noc_link_fJ_per_bit_mm", wire, "repeated wire, random data [KEC]")
    row("noc_terminal_link_mm", round(g["die_side_mm"] / 4, 2),
        "[EST] node-to-crossbar wire: a quarter of the die's side (meshes: their own value)")
    row("mc_request_pJ", logic(10 * sram64(8), g), "[EST] queue write and read plus a scheduler search, ten 8 KB-array accesses [HOR]")
    row("port_search_pJ", logic(sram64(8), g),
        "[EST] a cluster-port table search or update: one 64-bit 8 KB-array read, an upper bound for tables under 1 KB [HOR]")
    row("port_line_pJ", logic(lines_words * sram64(8), g),
        "128 B read or written in a cluster-port cache: the 8 KB-array figure, an upper bound for 3 KB [HOR]")
    for key, value, source in dram_rows(g["dram"]):
        row(key, value, source + g.get("dram_note", ""))
    for key, value, source in static_rows(g["static"], g):
        row(key, value, source)
    return rows


def dram_rows(kind):
    if kind == "gddr5":
        src = "[DS3-GDDR5] DRAMsim3 configs/GDDR5_1Gb_x32.ini (x32 device)"
        return [("dram_vdd_V", 1.5, src), ("dram_idd0_mA", 490.0, src), ("dram_idd2n_mA", 250.0, src),
                ("dram_idd2p_mA", 210.0, src), ("dram_idd3n_mA", 450.0, src), ("dram_idd4r_mA", 1080.0, src),
                ("dram_idd4w_mA", 1160.0, src),
                ("dram_idd5_mA", 450.0, src + "; it equals IDD3N, so refresh prices at 0"),
                ("dram_tRFC_ns", 65.4, src + ": 98 cycles of 0.667 ns"),
                ("dram_tREFI_ns", 7800.0, src + ": 11699 cycles of 0.667 ns"),
                ("dram_devices_per_channel", 2, "two x32 devices per 64-bit channel"),
                ("dram_io_pJ_per_bit", 2.5, "[EST] Micron's 7.5 pJ/bit for a GDDR6 device less the core energy these currents give")]
    src = "[DS3-HBM2] DRAMsim3 configs/HBM2_8Gb_x128.ini (one 128-bit channel)"
    return [("dram_vdd_V", 1.2, src), ("dram_idd0_mA", 65.0, src), ("dram_idd2n_mA", 40.0, src),
            ("dram_idd2p_mA", 28.0, src), ("dram_idd3n_mA", 55.0, src), ("dram_idd4r_mA", 390.0, src),
            ("dram_idd4w_mA", 500.0, src), ("dram_idd5_mA", 250.0, src), ("dram_tRFC_ns", 260.0, src),
            ("dram_tREFI_ns", 3900.0, src), ("dram_devices_per_channel", 1, "one channel"),
            ("dram_io_pJ_per_bit", 0.3, "HBM2 I/O energy, O'Connor et al., MICRO 2017")]


def static_rows(kind, g):
    if kind == "gtx480":
        return [("sm_static_W", 1.59, "[GW] idle_core_power: what an idle SM draws"),
                ("sm_gated_fraction", 0.1, "[EST]"),
                ("l2_static_W", 0.1, "[EST]"),
                ("noc_static_mW_per_port", 10.0, "[EST]"),
                ("mc_static_W", 0.5, "[EST]"),
                ("constant_W", 11.0, "[GW] CONST_DYNAMICN")]
    # V100 from AccelWattch's config: static power of a full INT+FP warp mix is
    # 18.618 W + 31 x 0.645 W over 80 SMs; an idle SM 0.283 W; constant 32.3 W.
    per_sm = (18.618 + 31 * 0.645) / 80
    s = 1.0 if kind == "v100" else (g["vdd"] / 0.8)
    tag = "[AW]" if kind == "v100" else "[AW] V100 figure x (V / 0.8 V) [EST]"
    return [("sm_static_W", per_sm * s, f"{tag} static_cat2 (INT+FP) flane + 31 x addlane, per SM"),
            ("sm_gated_fraction", 0.28279166 / per_sm, "[AW] idle_core_power / sm_static_W"),
            ("l2_static_W", 0.05 * s, "[EST]"),
            ("noc_static_mW_per_port", 2.4 * s, "[EST]"),
            ("mc_static_W", 0.12 * s, "[EST]"),
            ("constant_W", 32.32522272, "[AW] constant_power (fans, board)")]


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] in GPUS:
        print(section(sys.argv[1]))
    elif len(sys.argv) > 2 and sys.argv[1] == "--markdown" and all(n in GPUS for n in sys.argv[2:]):
        print(markdown(sys.argv[2:]))
    else:
        sys.exit(f"usage: {sys.argv[0]} {{{'|'.join(GPUS)}}}\n       {sys.argv[0]} --markdown GPU...")
