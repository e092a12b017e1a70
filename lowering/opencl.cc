// The OpenCL driver under Halide's OpenCL runtime (target opencl): loading
// pocl safely next to libHalide, and counting what reaches the driver.
// Halide-free; halide_backend.cc installs opencl_symbol() as the JIT
// runtime's library-symbol lookup.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "lowering/backend.h"
#include "oracles/line_process.h"

namespace af::lowering::detail {

namespace {

using ClInt = int32_t;
using ClUint = uint32_t;

// The counters of every OpenCL call the Halide runtime makes (one JIT
// runtime per process, so one set of counters).
std::atomic<int64_t> g_writes{0}, g_reads{0}, g_launches{0}, g_max_groups{0};

using WriteFn = ClInt (*)(void*, void*, ClUint, size_t, size_t, const void*, ClUint, const void*, void*);
using ReadFn = ClInt (*)(void*, void*, ClUint, size_t, size_t, void*, ClUint, const void*, void*);
using MapFn = void* (*)(void*, void*, ClUint, uint64_t, size_t, size_t, ClUint, const void*, void*, ClInt*);
using LaunchFn = ClInt (*)(void*, void*, ClUint, const size_t*, const size_t*, const size_t*, ClUint, const void*,
                           void*);
WriteFn g_write = nullptr;
ReadFn g_read = nullptr;
MapFn g_map = nullptr;
LaunchFn g_launch = nullptr;

ClInt counted_write(void* q, void* m, ClUint blocking, size_t off, size_t n, const void* p, ClUint ne, const void* wl,
                    void* ev) {
  ++g_writes;
  return g_write(q, m, blocking, off, n, p, ne, wl, ev);
}
ClInt counted_read(void* q, void* m, ClUint blocking, size_t off, size_t n, void* p, ClUint ne, const void* wl,
                   void* ev) {
  ++g_reads;
  return g_read(q, m, blocking, off, n, p, ne, wl, ev);
}
// A mapping makes device memory visible to the host: a read as far as
// residency is concerned.
void* counted_map(void* q, void* m, ClUint blocking, uint64_t flags, size_t off, size_t n, ClUint ne, const void* wl,
                  void* ev, ClInt* err) {
  ++g_reads;
  return g_map(q, m, blocking, flags, off, n, ne, wl, ev, err);
}
ClInt counted_launch(void* q, void* k, ClUint dims, const size_t* offset, const size_t* global, const size_t* local,
                     ClUint ne, const void* wl, void* ev) {
  ++g_launches;
  for (ClUint d = 0; d < dims && global; ++d) {
    const int64_t groups = static_cast<int64_t>(local && local[d] ? (global[d] + local[d] - 1) / local[d] : global[d]);
    int64_t cur = g_max_groups.load();
    while (groups > cur && !g_max_groups.compare_exchange_weak(cur, groups)) {
    }
  }
  return g_launch(q, k, dims, offset, global, local, ne, wl, ev);
}

template <typename F>
void* wrap(void* real, F* slot, F counted) {
  if (!real) return nullptr;
  *slot = reinterpret_cast<F>(real);
  return reinterpret_cast<void*>(counted);
}

}  // namespace

void* opencl_symbol(void* lib, const char* name) {
  void* real = dlsym(lib, name);
  const std::string n = name;
  if (n == "clEnqueueWriteBuffer") return wrap(real, &g_write, &counted_write);
  if (n == "clEnqueueReadBuffer") return wrap(real, &g_read, &counted_read);
  if (n == "clEnqueueMapBuffer") return wrap(real, &g_map, &counted_map);
  if (n == "clEnqueueNDRangeKernel") return wrap(real, &g_launch, &counted_launch);
  return real;
}

DriverCounts opencl_counts() { return {g_writes.load(), g_reads.load(), g_launches.load(), g_max_groups.load()}; }
void reset_opencl_max_groups() { g_max_groups = 0; }

bool opencl_load(std::string* why) {
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [] {
    // pocl links LLVM 15, libHalide LLVM 14: loaded plainly into one process
    // they share symbols and pocl's kernel compiler crashes. Loaded first
    // with RTLD_DEEPBIND, pocl resolves its own LLVM, and the ICD loader
    // reuses this handle (../shared/toolchain-notes.md). Another OpenCL
    // driver needs no such care, so a missing pocl is not an error here.
    //
    // Bound deeply, pocl takes malloc and free from its own search list,
    // i.e. glibc's, while a binary linked with mimalloc (//tools:aliasfuzz)
    // allocates everything else with mimalloc: pocl's constructor then frees
    // a mimalloc block with glibc and aborts. There pocl comes in through an
    // empty library whose dependencies list mimalloc first
    // (lowering/pocl_mimalloc.c), so both sides use one allocator.
    if (dlsym(RTLD_DEFAULT, "mi_malloc") != nullptr) {
      const std::string shim = oracles::find_source_file("lowering/libpocl_mimalloc.so", "AF_POCL_MIMALLOC");
      if (shim.empty()) {
        error =
            "this binary allocates with mimalloc, and pocl must then be loaded through lowering/libpocl_mimalloc.so, "
            "which is not next to it (bazel build //lowering:libpocl_mimalloc.so, or set AF_POCL_MIMALLOC)";
        return;
      }
      if (!dlopen(shim.c_str(), RTLD_NOW | RTLD_DEEPBIND | RTLD_GLOBAL)) {
        const char* why = dlerror();
        error = "cannot load pocl through " + shim + ": " + (why ? why : "?");
        return;
      }
    } else {
      dlopen("libpocl.so.2", RTLD_NOW | RTLD_DEEPBIND | RTLD_GLOBAL);
    }
    // Halide's runtime opens the unversioned name (ocl-icd-opencl-dev).
    void* cl = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
    if (!cl) {
      error = "no OpenCL (libOpenCL.so not found; tools/setup.sh installs ocl-icd-opencl-dev and pocl-opencl-icd)";
      return;
    }
    using PlatformsFn = ClInt (*)(ClUint, void**, ClUint*);
    auto platforms = reinterpret_cast<PlatformsFn>(dlsym(cl, "clGetPlatformIDs"));
    ClUint n = 0;
    if (!platforms || platforms(0, nullptr, &n) != 0 || n == 0)
      error = "no OpenCL platform (clGetPlatformIDs found none; tools/setup.sh installs pocl-opencl-icd)";
  });
  if (!error.empty() && why) *why = error;
  return error.empty();
}

}  // namespace af::lowering::detail
