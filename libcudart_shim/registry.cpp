#include "libcudart_shim/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "functional/device_launch.h"
#include "libcudart_shim/cubin.h"
#include "ptx/compile.h"

namespace warpsim::cudart {

Binary* Registry::add_binary(const void* wrapper) {
  Binary& b = binaries_.emplace_back();
  b.id = binaries_.size();
  b.wrapper = wrapper;
  binary_by_handle_[&b] = &b;
  return &b;
}

KernelEntry* Registry::add_function(Binary& binary, const void* host_fun, std::string name) {
  KernelEntry& k = kernels_.emplace_back();
  k.binary = &binary;
  k.host_fun = host_fun;
  k.name = std::move(name);
  binary.kernels.push_back(&k);
  // A later registration of the same host stub (a library loaded twice)
  // wins, as it does for the real runtime's lookup.
  kernel_by_host_[host_fun] = &k;
  return &k;
}

VarEntry* Registry::add_var(Binary& binary, const void* host_var, std::string name, uint64_t size,
                            bool constant, bool managed, void** managed_host_ptr) {
  VarEntry& v = vars_.emplace_back();
  v.binary = &binary;
  v.host_var = host_var;
  v.name = std::move(name);
  v.size = size;
  v.constant = constant;
  v.managed = managed;
  v.managed_host_ptr = managed_host_ptr;
  binary.vars.push_back(&v);
  var_by_host_[host_var] = &v;
  return &v;
}

void Registry::unregister(Binary& binary) {
  binary.unregistered = true;
  for (KernelEntry* k : binary.kernels) {
    auto it = kernel_by_host_.find(k->host_fun);
    if (it != kernel_by_host_.end() && it->second == k) kernel_by_host_.erase(it);
  }
  for (VarEntry* v : binary.vars) {
    auto it = var_by_host_.find(v->host_var);
    if (it != var_by_host_.end() && it->second == v) var_by_host_.erase(it);
  }
}

KernelEntry* Registry::kernel(const void* p) const {
  if (p == nullptr) return nullptr;
  if (auto it = kernel_by_host_.find(p); it != kernel_by_host_.end()) return it->second;
  // A handle is the address of an entry: check it really is one before use.
  for (const KernelEntry& k : kernels_)
    if (&k == p) return k.binary->unregistered ? nullptr : const_cast<KernelEntry*>(&k);
  return nullptr;
}

VarEntry* Registry::var(const void* host_var) const {
  auto it = var_by_host_.find(host_var);
  return it == var_by_host_.end() ? nullptr : it->second;
}

VarEntry* Registry::managed_var_at(uint64_t address) const {
  if (address == 0) return nullptr;
  for (const VarEntry& v : vars_)
    if (v.managed && v.address == address && v.binary->generation == generation_ &&
        !v.binary->unregistered)
      return const_cast<VarEntry*>(&v);
  return nullptr;
}

Binary* Registry::binary(void** handle) const {
  auto it = binary_by_handle_.find(handle);
  return it == binary_by_handle_.end() ? nullptr : it->second;
}

uint32_t matching_elf_arch(const fatbin::Fatbin& fatbin, uint32_t cc) {
  uint32_t best = 0;
  for (const fatbin::Entry* e : fatbin.entries()) {
    if (!e->is_elf()) continue;
    const bool fits = e->arch_specific() ? e->arch == cc : (e->arch / 10 == cc / 10 && e->arch <= cc);
    if (fits && e->arch > best) best = e->arch;
  }
  return best;
}

Error Registry::fail(Binary& b, Error e, std::string message) {
  b.error = e;
  b.error_message = std::move(message);
  std::fprintf(stderr, "warpsim: %s\n", b.error_message.c_str());
  return e;
}

namespace {

// libcudadevrt's object in an -rdc program linked with -lcudadevrt: its PTX
// defines the device runtime that warpsim provides itself (dynamic
// parallelism, functional/device_launch.h), so it is left out.
bool is_device_runtime_object(const fatbin::Fatbin& f) {
  for (const fatbin::Entry* e : f.entries()) {
    if (!e->is_ptx()) continue;
    auto text = fatbin::ptx_text(*e);
    if (text && functional::defines_device_runtime(text.value())) return true;
  }
  return false;
}


// PTX text of one fatbin, chosen for the GPU.
struct PtxPick {
  std::string text;
  uint32_t arch = 0;
};

// The cubin whose metadata describes the kernels best: the one a GPU of
// compute capability `cc` would run, else the one compiled from the chosen
// PTX, else the newest one not above cc. Null when there is none or it
// cannot be read (then register counts are estimated from the PTX).
std::optional<fatbin::CubinInfo> pick_cubin(const fatbin::Fatbin& fb, uint32_t cc,
                                            uint32_t ptx_arch) {
  const fatbin::Entry* best = nullptr;
  auto consider = [&](auto&& accept) {
    if (best) return;
    for (const fatbin::Entry* e : fb.entries())
      if (e->is_elf() && accept(*e) && (best == nullptr || e->arch > best->arch)) best = e;
  };
  const uint32_t sass = matching_elf_arch(fb, cc);
  consider([&](const fatbin::Entry& e) { return e.arch == sass; });
  consider([&](const fatbin::Entry& e) { return e.arch == ptx_arch; });
  consider([&](const fatbin::Entry& e) { return e.arch <= cc; });
  if (best == nullptr) return std::nullopt;
  auto info = fatbin::read_cubin(*best);
  if (!info) return std::nullopt;
  return std::move(info.value());
}

}  // namespace

Error Registry::load(Binary& b, const LoadContext& ctx) {
  if (b.generation == generation_ && b.attempted) return b.error;
  b.generation = generation_;
  b.attempted = true;
  b.error = Error::Success;
  b.error_message.clear();
  b.program.reset();
  for (KernelEntry* k : b.kernels) {
    k->info = nullptr;
    k->static_shared = 0;
    k->local_bytes = 0;
    k->registers = 0;
    k->registers_from_cubin = false;
  }
  for (VarEntry* v : b.vars) v->address = 0;

  auto wrapper = fatbin::parse_wrapper(b.wrapper);
  if (!wrapper)
    return fail(b, Error::InvalidKernelImage,
                fmt::format("the program's device code (fatbin #{}) cannot be read: {}", b.id,
                            wrapper.error().message));
  // Whole-program binaries carry their PTX in `data`; -rdc binaries carry
  // nvlink's output there (SASS only) and the PTX of every object in the
  // pre-linked list, which must be linked.
  std::vector<const fatbin::Fatbin*> sources;
  if (wrapper->version == 2 && !wrapper->prelinked.empty())
    for (const fatbin::Fatbin& f : wrapper->prelinked) sources.push_back(&f);
  else
    sources.push_back(&wrapper->fatbin);

  b.contents.clear();
  for (const fatbin::Fatbin* f : sources)
    b.contents += (b.contents.empty() ? "" : "; ") + fatbin::describe(*f);
  const uint32_t cc = ctx.compute_capability;

  std::vector<PtxPick> picks;
  for (const fatbin::Fatbin* f : sources) {
    if (sources.size() > 1 && is_device_runtime_object(*f)) continue;
    auto sel = fatbin::select_ptx(*f, cc);
    if (!sel && !sel.error().no_match)
      return fail(b, Error::InvalidKernelImage,
                  fmt::format("the program's device code (fatbin #{}) is corrupt: {} (the binary is "
                              "damaged or its device code was not written by nvcc)",
                              b.id, sel.error().message));
    if (!sel)
      return fail(b, Error::NoKernelImageForDevice,
                  fmt::format("{} (the configured GPU has compute capability {}.{}; rebuild with "
                              "-arch=compute_XX for XX <= {} or choose a GPU configuration with a "
                              "higher compute capability)",
                              sel.error().message, cc / 10, cc % 10, cc));
    picks.push_back({std::move(sel->text), sel->arch});
  }
  b.ptx_arch = 0;
  for (const PtxPick& p : picks) b.ptx_arch = std::max(b.ptx_arch, p.arch);
  b.binary_arch = matching_elf_arch(wrapper->fatbin, cc);
  if (b.binary_arch == 0) b.binary_arch = cc;  // JIT-compiled from PTX for the device itself

  std::vector<ptx::PtxSource> ptx_sources;
  for (size_t i = 0; i < picks.size(); ++i)
    ptx_sources.push_back(
        {picks[i].text,
         picks.size() == 1
             ? fmt::format("fatbin{}.compute_{}.ptx", b.id, picks[i].arch)
             : fmt::format("fatbin{}.object{}.compute_{}.ptx", b.id, i, picks[i].arch)});
  DiagnosticEngine diags;
  std::shared_ptr<const functional::Program> program =
      ctx.device->load(ptx_sources, ctx.compile, diags);
  if (!program)
    return fail(b, Error::InvalidPtx,
                fmt::format("the PTX of fatbin #{} cannot be loaded:\n{}", b.id, diags.format_all()));
  b.program = program;

  // Register counts as ptxas allocated them, from the SASS that came with
  // the PTX (nvlink's linked image for -rdc programs).
  const std::optional<fatbin::CubinInfo> cubin = pick_cubin(wrapper->fatbin, cc, b.ptx_arch);
  for (KernelEntry* k : b.kernels) {
    k->info = program->find_kernel(k->name);
    if (k->info == nullptr) continue;  // launching it reports cudaErrorInvalidDeviceFunction
    const fatbin::CubinFunction* f = cubin ? fatbin::find_function(*cubin, k->name) : nullptr;
    k->static_shared = k->info->resources.shared_bytes;
    k->local_bytes = f != nullptr && f->frame_bytes ? *f->frame_bytes : k->info->resources.local_bytes;
    if (f != nullptr && f->registers) {
      k->registers = *f->registers;
      k->registers_from_cubin = true;
    } else {
      // An estimate from the PTX declarations: an upper bound, often far
      // above what ptxas allocates, so it is capped at what lets a
      // 1024-thread CTA launch (docs/runtime-shim.md).
      k->registers = std::min({k->info->resources.reg32_with_callees, ctx.max_regs_per_thread,
                               ctx.estimate_cap});
    }
  }
  const ptx::Module& m = *program->module;
  for (VarEntry* v : b.vars) {
    for (size_t i = 0; i < m.globals.size(); ++i) {
      if (m.globals[i].name != v->name) continue;
      v->address = program->global_addresses[i] == ptx::kNone ? 0 : program->global_addresses[i];
      v->device_size = m.globals[i].size_bytes();
      break;
    }
    if (v->managed && v->managed_host_ptr != nullptr && v->address != 0)
      *v->managed_host_ptr = reinterpret_cast<void*>(v->address);
  }
  return Error::Success;
}

}  // namespace warpsim::cudart
