#include "ptx/linker.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace warpsim::ptx {
namespace {

// Functions the simulator implements itself: device code declares them
// `.extern .func` and no input module defines them, so they are the only
// symbols allowed to stay unresolved. libdevice (`__nv_*`) is deliberately
// absent: it is PTX that has to be linked in like any other module, and a
// missing one must be reported rather than fail at run time.
constexpr std::string_view kRuntimeFunctions[] = {
    // Device-side libc.
    "vprintf", "malloc", "free", "__assertfail",
    // Dynamic parallelism launch ABI.
    "cudaGetParameterBuffer", "cudaGetParameterBufferV2", "cudaLaunchDevice", "cudaLaunchDeviceV2",
    // Device runtime API.
    "cudaDeviceSynchronize", "cudaGetDevice", "cudaDeviceGetAttribute", "cudaGetLastError",
    "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName", "cudaStreamCreateWithFlags",
    "cudaStreamDestroy", "cudaStreamWaitEvent", "cudaEventCreateWithFlags", "cudaEventDestroy",
    "cudaEventRecord", "cudaFuncGetAttributes", "cudaMalloc", "cudaFree", "cudaMemcpyAsync",
    "cudaMemsetAsync", "cudaRuntimeGetVersion", "cudaDriverGetVersion",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
};

constexpr uint8_t kExternallyVisible = kVisible | kExtern | kWeak | kCommon;

// A function or global of one input module, by its index there.
struct Sym {
  uint32_t module = 0;
  bool is_function = false;
  uint32_t index = 0;
  friend bool operator==(const Sym&, const Sym&) = default;
};

struct Input {
  Module* m = nullptr;
  std::string name;  // for diagnostics
  // Merged index of each function / global, whether it was moved into the
  // result from this module, and its new name when it was renamed.
  std::vector<uint32_t> fmap, gmap;
  std::vector<uint8_t> fkeep, gkeep;
  std::vector<std::string_view> frename, grename;
  std::unordered_set<std::string_view> alias_names;  // `.alias` names: defined by the alias
  std::unordered_map<std::string_view, std::string_view> renamed;  // old -> new local name
  uint32_t file_offset = 0;
};

// What the result needs to keep alive: the emptied inputs still own the text
// their moved names point into (their source and their interned strings).
struct Retained {
  std::vector<std::unique_ptr<Module>> modules;
  SourceFile placeholder{"<linked modules>", ""};
};

class Linker {
 public:
  Linker(std::vector<std::unique_ptr<Module>> modules, DiagnosticEngine& diags)
      : diags_(diags), retained_(std::make_shared<Retained>()) {
    for (auto& m : modules)
      if (m) retained_->modules.push_back(std::move(m));
    for (size_t i = 0; i < retained_->modules.size(); ++i) {
      Module* m = retained_->modules[i].get();
      Input in;
      in.m = m;
      in.name = m->source ? m->source->name() : fmt::format("<module {}>", i);
      in.fmap.assign(m->functions.size(), kNone);
      in.gmap.assign(m->globals.size(), kNone);
      in.fkeep.assign(m->functions.size(), 0);
      in.gkeep.assign(m->globals.size(), 0);
      in.frename.resize(m->functions.size());
      in.grename.resize(m->globals.size());
      for (const Alias& a : m->aliases) in.alias_names.insert(a.alias);
      inputs_.push_back(std::move(in));
    }
  }

  std::unique_ptr<Module> run() {
    auto out = std::make_unique<Module>();
    collect_definitions();
    rename_locals(*out);
    assign_indices();
    merge_headers(*out);
    move_symbols(*out);
    return out;
  }

 private:
  // ---- accessors ---------------------------------------------------------------
  const Function& fn(Sym s) const { return inputs_[s.module].m->functions[s.index]; }
  const Variable& var(Sym s) const { return inputs_[s.module].m->globals[s.index]; }
  std::string_view name(Sym s) const { return s.is_function ? fn(s).name : var(s).name; }
  uint8_t linkage(Sym s) const { return s.is_function ? fn(s).linkage : var(s).linkage; }
  SourceLocation loc(Sym s) const { return s.is_function ? fn(s).loc : var(s).loc; }
  const std::string& module_name(Sym s) const { return inputs_[s.module].name; }
  bool visible(Sym s) const { return linkage(s) & kExternallyVisible; }
  bool is_definition(Sym s) const {
    if (!s.is_function) return !(var(s).linkage & kExtern);
    // A body-less function is a reference to be resolved across modules even
    // without `.extern`: nvcc always writes it, hand-written PTX may not.
    return fn(s).has_body || inputs_[s.module].alias_names.contains(fn(s).name);
  }
  // `.extern .shared` arrays are the kernel's dynamic shared memory: they never
  // have a definition anywhere.
  bool is_dynamic_shared(Sym s) const {
    return !s.is_function && (var(s).linkage & kExtern) &&
           (var(s).space == StateSpace::Shared || var(s).space == StateSpace::SharedCta);
  }
  bool weak_or_common(Sym s) const { return linkage(s) & (kWeak | kCommon); }
  bool is_common(Sym s) const { return !s.is_function && (var(s).linkage & kCommon); }

  void error(Sym s, std::string message) {
    diags_.error(inputs_[s.module].m->source.get(), loc(s), std::move(message));
  }
  void note(Sym s, std::string message) {
    diags_.report(Severity::Note, inputs_[s.module].m->source.get(), loc(s), std::move(message));
  }

  template <class F>
  void for_each_symbol(F&& f) {
    for (uint32_t m = 0; m < inputs_.size(); ++m) {
      for (uint32_t i = 0; i < inputs_[m].m->functions.size(); ++i) f(Sym{m, true, i});
      for (uint32_t i = 0; i < inputs_[m].m->globals.size(); ++i) f(Sym{m, false, i});
    }
  }

  // ---- resolution ----------------------------------------------------------------
  // Picks, per visible name, the definition every reference will bind to.
  void collect_definitions() {
    for_each_symbol([&](Sym s) {
      if (!is_definition(s) || !visible(s)) return;
      auto [it, inserted] = defs_.try_emplace(name(s), s);
      if (inserted) return;
      Sym& w = it->second;
      if (w.is_function != s.is_function) {
        error(s, fmt::format("symbol '{}' is a {} in '{}' but a {} in '{}'", name(s),
                             s.is_function ? "function" : "variable", module_name(s),
                             w.is_function ? "function" : "variable", module_name(w)));
        return;
      }
      bool s_weak = weak_or_common(s), w_weak = weak_or_common(w);
      if (!s_weak && !w_weak) {
        error(s, fmt::format("duplicate symbol '{}': defined in '{}' and in '{}'", name(s),
                             module_name(w), module_name(s)));
        note(w, fmt::format("first definition of '{}' is here", name(s)));
      } else if (s_weak != w_weak) {
        if (w_weak) w = s;  // a strong definition overrides weak and common ones
      } else if (is_common(s) || is_common(w)) {
        // Common symbols merge into the largest; at equal size the initialised one.
        uint64_t ssz = var(s).size_bytes(), wsz = var(w).size_bytes();
        if (ssz > wsz || (ssz == wsz && var(s).has_init && !var(w).has_init)) w = s;
      }  // between weak definitions the first one wins
    });
    // PTX: only the largest definition of a .common symbol may be initialised.
    for_each_symbol([&](Sym s) {
      if (!is_common(s) || !var(s).has_init || !is_definition(s)) return;
      Sym w = defs_.at(name(s));
      if (w != s && !w.is_function)
        error(s, fmt::format("initialised .common symbol '{}' in '{}' is overridden by the "
                             "definition in '{}' (only the largest may be initialised)",
                             name(s), module_name(s), module_name(w)));
    });
  }

  // Module-local symbols keep their name unless it is already taken by a
  // visible symbol, a declaration or an earlier module's local symbol; then
  // they get a deterministic `$m<module>` suffix.
  void rename_locals(Module& out) {
    std::unordered_set<std::string_view> taken;
    for_each_symbol([&](Sym s) {
      if (visible(s) || !is_definition(s)) taken.insert(name(s));
    });
    for_each_symbol([&](Sym s) {
      if (visible(s) || !is_definition(s) || taken.insert(name(s)).second) return;
      std::string base = fmt::format("{}$m{}", name(s), s.module), candidate = base;
      for (int n = 2; taken.contains(candidate); ++n) candidate = fmt::format("{}${}", base, n);
      std::string_view renamed = out.intern(candidate);
      taken.insert(renamed);
      Input& in = inputs_[s.module];
      (s.is_function ? in.frename : in.grename)[s.index] = renamed;
      in.renamed.emplace(name(s), renamed);
    });
  }

  // The symbol `s` binds to in the result (itself when it is kept).
  Sym target_of(Sym s) const {
    auto d = defs_.find(name(s));
    if (d != defs_.end() && d->second.is_function == s.is_function &&
        (!is_definition(s) || visible(s)))
      return d->second;
    if (is_definition(s)) return s;  // local, or a visible one in a kind conflict
    auto k = kept_decls_.find(name(s));
    return k != kept_decls_.end() && k->second.is_function == s.is_function ? k->second : s;
  }

  // Pass 1 decides which symbols move into the result, in module order;
  // pass 2 maps every other one to the symbol it binds to.
  void assign_indices() {
    uint32_t nf = 0, ng = 0;
    for_each_symbol([&](Sym s) {
      if (!is_definition(s)) {
        auto d = defs_.find(name(s));
        if (d != defs_.end() && d->second.is_function != s.is_function)
          error(s, fmt::format("'{}' is declared as a {} in '{}' but defined as a {} in '{}'",
                               name(s), s.is_function ? "function" : "variable", module_name(s),
                               d->second.is_function ? "function" : "variable",
                               module_name(d->second)));
        if (d != defs_.end() && d->second.is_function == s.is_function) return;
        if (d == defs_.end() && !is_dynamic_shared(s) &&
            !(s.is_function && is_runtime_function(name(s))))
          error(s, fmt::format("unresolved symbol '{}': declared in '{}' but not defined in any "
                               "linked module", name(s), module_name(s)));
        // The first declaration of an undefined symbol stands for all of them.
        auto [k, inserted] = kept_decls_.try_emplace(name(s), s);
        if (!inserted && k->second.is_function == s.is_function) return;
        if (!inserted)
          error(s, fmt::format("'{}' is declared both as a function and as a variable", name(s)));
      } else if (target_of(s) != s) {
        return;  // a weak/common definition that yields, or a duplicate
      }
      Input& in = inputs_[s.module];
      (s.is_function ? in.fkeep : in.gkeep)[s.index] = 1;
      (s.is_function ? in.fmap : in.gmap)[s.index] = s.is_function ? nf++ : ng++;
    });
    for_each_symbol([&](Sym s) {
      Input& in = inputs_[s.module];
      if ((s.is_function ? in.fkeep : in.gkeep)[s.index]) return;
      Sym t = target_of(s);
      const Input& tin = inputs_[t.module];
      if (is_dynamic_shared(s) && is_dynamic_shared(t)) {
        // All name the same dynamic shared memory: keep the strictest alignment.
        Variable& kept = tin.m->globals[t.index];
        if (var(s).alignment() > kept.alignment())
          kept.align = static_cast<uint32_t>(var(s).alignment());
      }
      (s.is_function ? in.fmap : in.gmap)[s.index] =
          s.is_function ? tin.fmap[t.index] : tin.gmap[t.index];
      check_compatible(s, t);
    });
  }

  // Reports a declaration (or yielding definition) whose shape differs from
  // the symbol it binds to: calls through it would pass the wrong parameters.
  void check_compatible(Sym s, Sym t) {
    std::string why;
    if (s.is_function) {
      const Function &a = fn(s), &b = fn(t);
      auto sizes_differ = [](const std::vector<Variable>& x, const std::vector<Variable>& y) {
        return !std::equal(x.begin(), x.end(), y.begin(), y.end(),
                           [](const Variable& u, const Variable& v) {
                             return u.size_bytes() == v.size_bytes();
                           });
      };
      if (a.is_entry != b.is_entry) why = "one is an .entry, the other a .func";
      else if (sizes_differ(a.params, b.params)) why = "different parameters";
      else if (sizes_differ(a.returns, b.returns)) why = "different return values";
    } else if (var(s).space != var(t).space) {
      why = fmt::format(".{} vs .{}", space_name(var(s).space), space_name(var(t).space));
    }
    if (!why.empty())
      error(s, fmt::format("'{}' in '{}' does not match its {} in '{}': {}", name(s),
                           module_name(s), is_definition(t) ? "definition" : "declaration",
                           module_name(t), why));
  }

  // ---- building the result -------------------------------------------------------
  void merge_headers(Module& out) {
    if (inputs_.empty()) return;
    const Module& first = *inputs_[0].m;
    out.targets = first.targets;
    out.has_address_size = first.has_address_size;
    out.address_size = first.address_size;
    uint32_t max_file = 0;
    for (Input& in : inputs_) {
      const Module& m = *in.m;
      if (m.has_version &&
          (!out.has_version || std::pair(m.version_major, m.version_minor) >
                                   std::pair(out.version_major, out.version_minor))) {
        out.has_version = true;
        out.version_major = m.version_major;
        out.version_minor = m.version_minor;
      }
      if (m.address_size != first.address_size)
        diags_.error(m.source.get(), {},
                     fmt::format(".address_size {} of '{}' does not match .address_size {} of '{}'",
                                 m.address_size, in.name, first.address_size, inputs_[0].name));
      // `.loc` file numbers index the module's own `.file` table: shift each
      // module past the numbers used before it (0 stays "no file").
      uint32_t used = 0;
      bool has_zero = false;
      for (const FileEntry& f : m.files) used = std::max(used, f.index), has_zero |= f.index == 0;
      for (const Function& f : m.functions)
        for (const Instruction& inst : f.instructions) used = std::max(used, inst.debug.file);
      in.file_offset = max_file + (has_zero && &in != &inputs_[0] ? 1 : 0);
      max_file = std::max(max_file, in.file_offset + used);
      for (FileEntry f : m.files) {
        f.index += in.file_offset;
        out.files.push_back(f);
      }
      out.pragmas.insert(out.pragmas.end(), m.pragmas.begin(), m.pragmas.end());
    }
  }

  static void remap(SymbolRef& ref, std::string_view& written, const Input& in) {
    const auto& map = ref.kind == SymbolKind::Function ? in.fmap : in.gmap;
    const auto& rename = ref.kind == SymbolKind::Function ? in.frename : in.grename;
    if ((ref.kind != SymbolKind::Function && ref.kind != SymbolKind::Global) ||
        ref.index >= map.size())
      return;
    if (!rename[ref.index].empty()) written = rename[ref.index];
    ref.index = map[ref.index];
  }

  static void remap_init(std::vector<InitValue>& init, const Input& in) {
    for (InitValue& iv : init) remap(iv.sym, iv.name, in);
  }

  void move_symbols(Module& out) {
    size_t nf = 0, ng = 0;
    for (const Input& in : inputs_) {
      nf += std::count(in.fkeep.begin(), in.fkeep.end(), 1);
      ng += std::count(in.gkeep.begin(), in.gkeep.end(), 1);
    }
    out.functions.resize(nf);
    out.globals.resize(ng);
    for (Input& in : inputs_) {
      Module& m = *in.m;
      for (size_t i = 0; i < m.functions.size(); ++i) {
        if (!in.fkeep[i]) continue;
        Function& f = out.functions[in.fmap[i]] = std::move(m.functions[i]);
        if (!in.frename[i].empty()) f.name = in.frename[i];
        for (Operand& op : f.operands) remap(op.sym, op.name, in);
        for (Variable& v : f.variables) remap_init(v.init, in);
        for (TargetList& t : f.target_lists)
          if (!t.is_branch)
            for (size_t k = 0; k < t.targets.size() && k < t.names.size(); ++k)
              remap(t.targets[k], t.names[k], in);
        for (Instruction& inst : f.instructions)
          if (inst.debug.file) inst.debug.file += in.file_offset;
      }
      for (size_t i = 0; i < m.globals.size(); ++i) {
        if (!in.gkeep[i]) continue;
        Variable& g = out.globals[in.gmap[i]] = std::move(m.globals[i]);
        if (!in.grename[i].empty()) g.name = in.grename[i];
        remap_init(g.init, in);
      }
      uint32_t alias_base = static_cast<uint32_t>(out.aliases.size());
      for (Alias a : m.aliases) {
        for (std::string_view* n : {&a.alias, &a.target})
          if (auto it = in.renamed.find(*n); it != in.renamed.end()) *n = it->second;
        out.aliases.push_back(a);
      }
      // Items in module order; a symbol that did not move here (satisfied
      // declaration, yielding weak/common definition) loses its items.
      for (ModuleItem item : m.items) {
        switch (item.kind) {
          case ModuleItemKind::Global:
            if (item.index < in.gkeep.size() && in.gkeep[item.index])
              out.items.push_back({item.kind, in.gmap[item.index]});
            break;
          case ModuleItemKind::FunctionDecl:
          case ModuleItemKind::FunctionDef:
            if (item.index < in.fkeep.size() && in.fkeep[item.index])
              out.items.push_back({item.kind, in.fmap[item.index]});
            break;
          case ModuleItemKind::Alias:
            out.items.push_back({item.kind, item.index + alias_base});
            break;
        }
      }
      // Keep the input's text alive: an aliasing pointer to its source that
      // owns every emptied input (and so their interned strings too).
      // A linked input's own sources are listed through the same owner: the
      // input itself must stay alive for the names it interned.
      if (m.source) out.linked_sources.emplace_back(retained_, m.source.get());
      for (const auto& s : m.linked_sources) out.linked_sources.emplace_back(retained_, s.get());
    }
    if (out.linked_sources.empty() && !inputs_.empty())
      out.linked_sources.emplace_back(retained_, &retained_->placeholder);
  }

  DiagnosticEngine& diags_;
  std::shared_ptr<Retained> retained_;
  std::vector<Input> inputs_;
  std::unordered_map<std::string_view, Sym> defs_;        // visible name -> chosen definition
  std::unordered_map<std::string_view, Sym> kept_decls_;  // undefined name -> kept declaration
};

}  // namespace

bool is_runtime_function(std::string_view name) {
  return std::find(std::begin(kRuntimeFunctions), std::end(kRuntimeFunctions), name) !=
         std::end(kRuntimeFunctions);
}

std::unique_ptr<Module> link_modules(std::vector<std::unique_ptr<Module>> modules,
                                     DiagnosticEngine& diags) {
  return Linker(std::move(modules), diags).run();
}

}  // namespace warpsim::ptx
