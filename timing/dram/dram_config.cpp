// [timing.dram]: the DRAM channel's configuration table, the presets named by
// `type`, and resolve_dram_config(), which fills the fields left at 0 from the
// preset and then checks what only the resolved values can show.
//
// Presets are data: one function per memory type, every value with its
// source. Timings are command cycles at the preset's own clock_mhz; a config
// that changes clock_mhz alone keeps those cycle counts (set the timings too
// to keep the nanoseconds). Where a source gives nanoseconds, the preset
// converts with ns_to_cycles() (rounding up, as a controller must).
//
// One "channel" is what one memory controller drives as a unit:
//   gddr5  two x32 chips (8 B), as GPGPU-Sim's GTX480 config;
//   gddr6  two x16 GDDR6 channels of one chip (4 B);
//   hbm2   one 128-bit legacy HBM2 channel (16 B);
//   hbm3   one 64-bit HBM3 channel (8 B; its two 32-bit pseudo-channels as one).
// The command clock is chosen so that clock_mhz * data_rate * bus_width is
// the real channel's peak bandwidth, and one command per cycle is about the
// real command rate (see each preset). Refresh, tFAW and the separate tRCD
// for writes (GPGPU-Sim's tRCDWR) are not modelled.
#include <cstdint>
#include <string>
#include <utility>

#include "timing/dram/dram_config.h"

#include "timing/dram/dram_scheduler.h"

namespace warpsim::timing {
namespace {

// `ns` nanoseconds as command cycles at `mhz`, rounded up. The 1e-9 keeps a
// product such as 14 * 1000 / 1000 from rounding up past a whole number.
constexpr uint32_t ns_to_cycles(double ns, double mhz) {
  const double x = ns * mhz / 1000.0 - 1e-9;
  const auto whole = static_cast<uint32_t>(x);
  return whole + (x > whole ? 1u : 0u);
}

// GPGPU-Sim's read-to-write turnaround (gpu-sim.h, memory_config::init):
// tRTW = CL + BL / data_command_freq_ratio + 2 - WL.
constexpr uint32_t derived_rtw(uint32_t cl, uint32_t bl, uint32_t data_rate, uint32_t wl) {
  return cl + bl / data_rate + 2 - wl;
}

// GPGPU-Sim's GTX480 config (configs/GTX480/gpgpusim.config), whose DRAM
// timing is the Hynix H5GQ1H24AFR GDDR5 datasheet's:
//   -gpgpu_dram_timing_opt "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:
//                           CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2"
// 924 MHz x 4 beats x 8 B = 29.6 GB/s per channel; x 6 = 177 GB/s (GTX480).
DramConfig gddr5() {
  DramConfig c;
  c.type = "gddr5";
  c.clock_mhz = 924;   // -gpgpu_clock_domains 700:1400:700:924 (DRAM command clock)
  c.banks = 16;        // nbk=16
  c.bank_groups = 4;   // nbkgrp=4
  c.bus_width = 8;     // -gpgpu_dram_buswidth 4 x -gpgpu_n_mem_per_ctrlr 2
  c.burst_length = 8;  // -gpgpu_dram_burst_length 8
  c.data_rate = 4;     // -dram_data_command_freq_ratio 4 (QDR)
  c.tCCD = 2;          // CCD=2
  c.tRRD = 6;          // RRD=6
  c.tRCD = 12;         // RCD=12
  c.tRAS = 28;         // RAS=28
  c.tRP = 12;          // RP=12
  c.tRC = 40;          // RC=40
  c.tCL = 12;          // CL=12
  c.tWL = 4;           // WL=4
  c.tCDLR = 5;         // CDLR=5
  c.tWR = 12;          // WR=12
  c.tCCDL = 3;         // CCDL=3
  c.tRTP = 2;          // RTPL=2
  c.tWTR = 5;          // GPGPU-Sim: tWTR = WL + BL/ratio + CDLR, i.e. CDLR after the data
  c.tRTW = derived_rtw(12, 8, 4, 4);  // GPGPU-Sim's formula: 12 + 8/4 + 2 - 4 = 12
  return c;
}

// GDDR6 at 14 Gb/s per pin. The command clock is 3500 MHz, twice the chip's
// CK (1750 MHz): GDDR6 moves 8 beats per CK, i.e. 4 per cycle here, and the
// two x16 channels of a chip each take one command per CK, i.e. one per
// cycle here together. (Accel-Sim's GDDR6 configs use the same convention:
// DRAM clock 3500 MHz, dram_data_command_freq_ratio 4.)
// 3500 MHz x 4 beats x 4 B = 56 GB/s = 32 pins x 14 Gb/s.
// JESD250 leaves AC timings to vendors and full vendor tables are not public,
// so the array timings are estimates: Ramulator 2's GDDR6 preset
// (src/dram/impl/GDDR6.cpp, GDDR6_2000_1350mV) in cycles of its tCK_ps column,
// 570 ps (1.75 GHz CK), converted to ns here (n x 0.570) and then to cycles
// at 3500 MHz. They agree with DRAMsim3's GDDR5X 12 Gb/s figures
// (configs/GDDR5X_8Gb_x32.ini: tRCD 16 ns, tRC 53 ns) to within a few ns.
DramConfig gddr6() {
  constexpr double mhz = 3500;
  constexpr double ck = 0.570;  // ns per GDDR6 CK in the Ramulator 2 preset
  DramConfig c;
  c.type = "gddr6";
  c.clock_mhz = mhz;   // 2 x CK of a 14 Gb/s part (see above)
  c.banks = 16;        // 16 banks per channel (Micron MT61K256M32 brief: BA[3:0])
  c.bank_groups = 4;   // 4 bank groups (Ramulator 2 GDDR6 organisation: Bg 4, Ba 4)
  c.bus_width = 4;     // two x16 channels (Micron MT61K256M32: 2 channels x16)
  c.burst_length = 16; // BL16 (16n prefetch: 32 B per x16 channel)
  c.data_rate = 4;     // 8 beats per CK = 4 per command cycle here
  c.tCCD = 4;          // = burst time, 2 CK (BL16 at 8 beats per CK)
  c.tCCDL = 6;         // estimate: 3 CK (DRAMsim3 GDDR5X tCCD_L = 3; Accel-Sim GDDR6 CCDL=6)
  c.tRCD = ns_to_cycles(26 * ck, mhz);   // estimate: nRCDRD 26 = 14.8 ns -> 52
  c.tRP = ns_to_cycles(26 * ck, mhz);    // estimate: nRP 26 = 14.8 ns -> 52
  c.tRAS = ns_to_cycles(53 * ck, mhz);   // estimate: nRAS 53 = 30.2 ns -> 106
  c.tRC = ns_to_cycles(79 * ck, mhz);    // estimate: nRC 79 = 45.0 ns -> 158
  c.tCL = ns_to_cycles(24 * ck, mhz);    // estimate: nCL 24 = 13.7 ns -> 48
  c.tWL = ns_to_cycles(6 * ck, mhz);     // estimate: nCWL 6 = 3.4 ns -> 12
  c.tWR = ns_to_cycles(26 * ck, mhz);    // estimate: nWR 26 = 14.8 ns -> 52
  c.tRTP = ns_to_cycles(4 * ck, mhz);    // estimate: nRTP 4 = 2.3 ns -> 8
  c.tRRD = ns_to_cycles(7 * ck, mhz);    // estimate: nRRDS 7 = 4.0 ns -> 14
  c.tCDLR = ns_to_cycles(9 * ck, mhz);   // estimate: nWTRS 9 = 5.1 ns -> 18 (any group)
  c.tWTR = ns_to_cycles(11 * ck, mhz);   // estimate: nWTRL 11 = 6.3 ns -> 22 (same group)
  c.tRTW = derived_rtw(c.tCL, 16, 4, c.tWL);  // GPGPU-Sim's formula: 48 + 4 + 2 - 12 = 42
  return c;
}

// The HBM timings (ns) of Accel-Sim's tuner
// (util/tuner/GPU_Microbenchmark/hw_def/common/common.h, HBM_Timing_1000MHZ,
// "adopted from JESD235 and Chatterjee et al., HPCA 2017"), given in cycles
// at 1 GHz, i.e. in ns: RCD 14, RAS 33, RP 14, RC 47, CL 14, WL 2, CDLR 3,
// WR 12, RRD 4, RTPL 4, CCD 1 and CCDL 2 (for its BL2).
struct HbmNs {
  double rcd = 14, ras = 33, rp = 14, rc = 47, cl = 14, wl = 2, cdlr = 3, wr = 12, rrd = 4,
         rtp = 4;
};

// The array timings of an HBM preset at `mhz`.
void set_hbm_timings(DramConfig& c, double mhz) {
  const HbmNs t;
  c.tRCD = ns_to_cycles(t.rcd, mhz);
  c.tRAS = ns_to_cycles(t.ras, mhz);
  c.tRP = ns_to_cycles(t.rp, mhz);
  c.tRC = ns_to_cycles(t.rc, mhz);
  c.tCL = ns_to_cycles(t.cl, mhz);
  c.tWL = ns_to_cycles(t.wl, mhz);
  c.tCDLR = ns_to_cycles(t.cdlr, mhz);
  c.tWTR = c.tCDLR;  // as GPGPU-Sim: CDLR serves both
  c.tWR = ns_to_cycles(t.wr, mhz);
  c.tRRD = ns_to_cycles(t.rrd, mhz);
  c.tRTP = ns_to_cycles(t.rtp, mhz);
  c.tRTW = derived_rtw(c.tCL, c.burst_length, c.data_rate, c.tWL);
}

// HBM2 as on V100: 877 MHz, 1.75 Gb/s per pin (DDR). 877 MHz x 2 beats x 16 B
// = 28 GB/s per 128-bit channel; x 32 channels (4 stacks x 8) = 898 GB/s (V100: 900).
// At 877 MHz: tRCD 14 ns -> 13, tRAS 33 -> 29, tRP 14 -> 13, tRC 47 -> 42,
// tCL 14 -> 13, tWL 2 -> 2, tCDLR/tWTR 3 -> 3, tWR 12 -> 11, tRRD 4 -> 4,
// tRTP 4 -> 4; tRTW = 13 + 4/2 + 2 - 2 = 15.
DramConfig hbm2() {
  constexpr double mhz = 877;
  DramConfig c;
  c.type = "hbm2";
  c.clock_mhz = mhz;   // V100 memory clock (deviceQuery: 877 MHz)
  c.banks = 16;        // nbk=16 in the source above; DRAMsim3 HBM2_8Gb_x128.ini: 4 x 4
  c.bank_groups = 4;   // nbkgrp=4 in the source above; DRAMsim3: bankgroups = 4
  c.bus_width = 16;    // one 128-bit legacy channel
  c.burst_length = 4;  // BL4 (DRAMsim3 HBM2_8Gb_x128.ini: BL = 4)
  c.data_rate = 2;     // DDR
  c.tCCD = 2;          // = burst time (BL4 at DDR); tCCDS
  c.tCCDL = 4;         // estimate: 2 x tCCDS, as CCDL/CCD = 2/1 in the source above
  set_hbm_timings(c, mhz);
  return c;
}

// HBM3 as on H100 SXM5: 5.24 Gb/s per pin. The command clock is 2619 MHz,
// the "memory clock" deviceQuery reports (data rate / 2), with DDR data: that
// gives the real bandwidth, 2619 MHz x 2 beats x 8 B = 41.9 GB/s per 64-bit
// channel; x 80 channels (5120 bits) = 3.35 TB/s (H100 SXM5). The chip's own
// command clock is lower, but a 64-bit channel's two pseudo-channels, each
// with separate row and column command buses, accept more commands than one
// per 2619 MHz cycle, so one per cycle here errs on the low side.
// Banks: simplified to 16 in 4 groups (an HBM3 pseudo-channel has 16 or more
// banks in 4 groups, depending on density).
// The DRAM array timings are estimates: the HBM figures above in ns (array
// timings in ns change little between generations; JESD238's AC tables are
// not public). At 2619 MHz:
// tRCD/tRP/tCL 14 ns -> 37, tRAS 33 -> 87, tRC 47 -> 124, tWL 2 -> 6,
// tCDLR/tWTR 3 -> 8, tWR 12 -> 32, tRRD 4 -> 11, tRTP 4 -> 11;
// tRTW = 37 + 8/2 + 2 - 6 = 37.
DramConfig hbm3() {
  constexpr double mhz = 2619;
  DramConfig c;
  c.type = "hbm3";
  c.clock_mhz = mhz;   // H100 SXM5 deviceQuery memory clock (see above)
  c.banks = 16;        // simplified (see above)
  c.bank_groups = 4;   // Ramulator 2 HBM3 organisation: 4 bank groups of 4 banks
  c.bus_width = 8;     // one 64-bit channel (two 32-bit pseudo-channels)
  c.burst_length = 8;  // BL8 (HBM3's burst length; 32 B per pseudo-channel access)
  c.data_rate = 2;     // DDR at this clock
  c.tCCD = 4;          // = burst time (BL8 at DDR)
  c.tCCDL = 8;         // estimate: 2 x tCCD, as for hbm2
  set_hbm_timings(c, mhz);
  return c;
}

template <class T>
void fill(T& field, T preset) {
  if (field == T{}) field = preset;
}

}  // namespace

const DramPresetRegistry& dram_presets() {
  static const DramPresetRegistry registry(
      "DRAM type", {{"gddr5", "GDDR5, as GPGPU-Sim's GTX480 (two x32 chips)", gddr5},
                    {"gddr6", "GDDR6 (two x16 channels of one chip)", gddr6},
                    {"hbm2", "HBM2 (one 128-bit legacy channel)", hbm2},
                    {"hbm3", "HBM3 (one 64-bit channel: its two pseudo-channels as one)", hbm3}});
  return registry;
}

std::string resolve_dram_config(DramConfig& c) {
  if (const std::string unknown = dram_presets().check(c.type); !unknown.empty()) return "timing.dram: " + unknown;
  const DramConfig p = dram_presets().make(c.type);
  fill(c.clock_mhz, p.clock_mhz);
  fill(c.banks, p.banks);
  fill(c.bank_groups, p.bank_groups);
  fill(c.bus_width, p.bus_width);
  fill(c.burst_length, p.burst_length);
  fill(c.data_rate, p.data_rate);
  using D = DramConfig;
  for (uint32_t D::*t : {&D::tCL, &D::tWL, &D::tRCD, &D::tRP, &D::tRAS, &D::tRC, &D::tRRD, &D::tCCD,
                         &D::tCCDL, &D::tWR, &D::tWTR, &D::tRTW, &D::tRTP, &D::tCDLR})
    fill(c.*t, p.*t);

  if (c.bank_groups > c.banks || c.banks % c.bank_groups != 0)
    return "timing.dram: banks (" + std::to_string(c.banks) +
           ") must be a multiple of bank_groups (" + std::to_string(c.bank_groups) + ")";
  if (c.burst_length % c.data_rate != 0)
    return "timing.dram: burst_length (" + std::to_string(c.burst_length) +
           ") must be a multiple of data_rate (" + std::to_string(c.data_rate) + ")";
  const std::string scheduler = dram_schedulers().check(c.scheduler);
  if (!scheduler.empty()) return "timing.dram: " + scheduler;
  if (c.queue == 0) return "timing.dram: queue must hold at least one request";
  return "";
}

const config::Table<DramConfig>& dram_config_table() {
  static const config::Table<DramConfig> table = [] {
    using D = DramConfig;
    config::Table<D> t(
        "Timing model: one DRAM channel (banks, row buffers, command timing, scheduler); every "
        "0 is taken from the preset named by `type`");
    t.string("type", &D::type, "preset the zero fields come from")
        .one_of(dram_presets());
    t.clock_mhz("clock_mhz", &D::clock_mhz, "DRAM command clock; 0: the preset's")
        .range(0.0, 100000.0);
    t.integer("banks", &D::banks, "banks", "banks per channel; 0: the preset's").range(0, 1024);
    t.integer("bank_groups", &D::bank_groups, "groups",
              "bank groups (bank b is in group b / (banks / bank_groups)); 0: the preset's")
        .range(0, 1024);
    t.integer("bus_width", &D::bus_width, "B",
              "bytes per data beat of the channel; 0: the preset's")
        .range(0, 1024);
    t.integer("burst_length", &D::burst_length, "beats", "data beats per burst; 0: the preset's")
        .range(0, 256);
    t.integer("data_rate", &D::data_rate, "beats/cycle",
              "data beats per command cycle (2: DDR, 4: QDR); 0: the preset's")
        .range(0, 16);
    auto timing = [&t](const char* key, uint32_t D::*m, const char* what) {
      t.integer(key, m, "cycles", std::string(what) + "; 0: the preset's").range(0, 100000);
    };
    timing("tCL", &D::tCL, "RD to first read data");
    timing("tWL", &D::tWL, "WR to first write data");
    timing("tRCD", &D::tRCD, "ACT to RD/WR of the same bank");
    timing("tRP", &D::tRP, "PRE to ACT of the same bank");
    timing("tRAS", &D::tRAS, "ACT to PRE of the same bank");
    timing("tRC", &D::tRC, "ACT to ACT of the same bank");
    timing("tRRD", &D::tRRD, "ACT to ACT of any two banks");
    timing("tCCD", &D::tCCD, "column command to column command, different bank groups");
    timing("tCCDL", &D::tCCDL, "column command to column command, same bank group");
    timing("tWR", &D::tWR, "end of write data to PRE of the same bank");
    timing("tWTR", &D::tWTR, "end of write data to RD, same bank group");
    timing("tRTW", &D::tRTW, "RD to WR, any bank");
    timing("tRTP", &D::tRTP, "RD to PRE of the same bank");
    timing("tCDLR", &D::tCDLR, "end of write data to RD, any bank group");
    t.string("scheduler", &D::scheduler, "request scheduling policy")
        .one_of(dram_schedulers());
    t.integer("queue", &D::queue, "requests", "requests the scheduler holds; more wait upstream")
        .range(1, 4096);
    return t;
  }();
  return table;
}

}  // namespace warpsim::timing
