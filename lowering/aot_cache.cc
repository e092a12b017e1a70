// The persistent kernel cache in front of AOT compilation (issue #13): a
// region's kernel comes from the process's loaded kernels, else from the
// disk store, else it is compiled (Halide, NoRuntime), linked (ld) and
// stored. Kits compile through the same functions (lowering/kit.cc).
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <chrono>

#include "lowering/aot.h"
#include "base/files.h"
#include "lowering/aot_build.h"

namespace af::lowering {

namespace {

double thread_cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A temp path in the store's folder, unique to this process and call.
std::string scratch(const KernelStore& store, const std::string& ext) {
  static int counter = 0;
  return store.dir() + "/build." + std::to_string(getpid()) + "." + std::to_string(counter++) + ".tmp." + ext;
}

// Objects to a shared object whose bytes go into the store under full_key.
std::string link_and_store(KernelStore& store, const std::string& full_key, const std::string& obj, std::string* why) {
  const std::string so = scratch(store, "so");
  std::string err = link_shared({obj}, so);
  std::string bytes;
  std::string path;
  if (!err.empty()) {
    *why = err;
  } else if (!base::read_file(so, &bytes)) {
    *why = "cannot read " + so;
  } else {
    path = store.store(full_key, bytes, why);
  }
  ::unlink(so.c_str());
  ::unlink(obj.c_str());
  return path;
}

}  // namespace

std::string runtime_entry(KernelStore& store, const std::string& target_string, std::string* why) {
  const std::string key = KernelStore::full_key(detail::halide_version(), target_string, "runtime");
  if (std::string p = store.find(key); !p.empty()) return p;
  const std::string obj = scratch(store, "o");
  if (std::string err = detail::aot_compile_runtime(target_string, obj); !err.empty()) {
    *why = err;
    ::unlink(obj.c_str());
    return "";
  }
  return link_and_store(store, key, obj, why);
}

std::string kernel_entry(KernelStore& store, const detail::RegionSpec& spec, Target t, const std::string& target_string,
                         bool* compiled, double* compile_ms, std::string* why) {
  const std::string key = KernelStore::full_key(detail::halide_version(), target_string, spec.key);
  *compiled = false;
  std::string found_why;
  if (std::string p = store.find(key, &found_why); !p.empty()) return p;
  *compiled = true;
  if (found_why != "absent") *why = found_why;  // a corrupt entry: recompiled and replaced below
  const double c0 = thread_cpu_ms();
  const std::string obj = scratch(store, "o");
  if (std::string err = detail::aot_compile_object(spec, t, target_string, obj); !err.empty()) {
    *why = err;
    ::unlink(obj.c_str());
    return "";
  }
  const double c1 = thread_cpu_ms(), w1 = wall_ms();
  std::string err;
  std::string p = link_and_store(store, key, obj, &err);
  if (p.empty()) *why = err;
  // Halide's CPU time plus the linker's wall time (a child process).
  detail::aot_times().link_ms += wall_ms() - w1;
  *compile_ms = (c1 - c0) + (wall_ms() - w1);
  return p;
}

detail::ExecutorFactory persistent_cache_factory(CompileCache& cache, Target exec, std::string* why) {
  const std::string dir = kernel_cache_dir(target_name(exec));
  if (dir.empty() || exec != Target::Host) {
    *why = dir.empty() ? "kernel cache off" : "the persistent cache serves target host";
    return nullptr;
  }
  auto& ak = detail::aot_kernels(cache);
  if (!ak.store || ak.store->dir() != dir) {
    ak = detail::AotKernels{};
    ak.store = std::make_unique<KernelStore>(dir, kernel_cache_config().max_bytes);
  }
  const std::string target_string = detail::aot_target_string(exec, false);
  if (!ak.runtime) {
    const std::string rt = runtime_entry(*ak.store, target_string, why);
    if (rt.empty() || !(ak.runtime = AotRuntime::load(rt, exec, why))) return nullptr;
  }
  auto provider = [&cache, &ak, exec, target_string](const detail::RegionSpec& spec, std::string* err,
                                                     LowerStats& stats) -> const AotKernel* {
    if (auto it = ak.loaded.find(spec.key); it != ak.loaded.end()) {
      detail::note_lookup(cache, stats, true, false, 0);
      it->second.last_use = ++ak.clock;
      return &it->second;
    }
    bool compiled = false;
    double ms = 0;
    std::string note;
    const std::string path = kernel_entry(*ak.store, spec, exec, target_string, &compiled, &ms, &note);
    if (path.empty()) {
      *err = note;
      return nullptr;
    }
    if (compiled && !note.empty()) ++ak.corrupt;
    AotKernel k;
    if (!load_kernel(path, &k, err)) return nullptr;
    if (!compiled) ++ak.disk_hits;
    detail::note_lookup(cache, stats, false, compiled, ms);
    if (ak.max_entries > 0 && ak.loaded.size() >= ak.max_entries) {
      auto oldest = ak.loaded.begin();
      for (auto j = ak.loaded.begin(); j != ak.loaded.end(); ++j)
        if (j->second.last_use < oldest->second.last_use) oldest = j;
      dlclose(oldest->second.handle);
      ak.loaded.erase(oldest);
      ++ak.evictions;
    }
    k.last_use = ++ak.clock;
    return &ak.loaded.emplace(spec.key, k).first->second;
  };
  const AotRuntime& rt = *ak.runtime;
  return [provider, &rt](Target, bool alias_mutant, int64_t max_numel, LowerStats& stats) {
    return detail::make_aot_executor(
        rt, [provider, &stats](const detail::RegionSpec& s, std::string* e) { return provider(s, e, stats); },
        alias_mutant, max_numel, stats);
  };
}

}  // namespace af::lowering
