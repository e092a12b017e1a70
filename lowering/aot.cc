#include "lowering/aot.h"

#include <HalideBuffer.h>
#include <HalideRuntime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <map>
#include <mutex>

namespace af::lowering {

namespace {

thread_local std::string t_error;
void on_error(void*, const char* msg) { t_error += msg; }

constexpr int kBig = INT_MAX;
using Buf = Halide::Runtime::Buffer<float>;
using IBuf = Halide::Runtime::Buffer<int>;

}  // namespace

std::string AotRuntime::take_error() {
  std::string e;
  e.swap(t_error);
  while (!e.empty() && e.back() == '\n') e.pop_back();
  return e;
}

AotRuntime* AotRuntime::load(const std::string& so_path, Target t, std::string* why) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<AotRuntime>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(so_path); it != loaded.end()) return it->second.get();
  // RTLD_GLOBAL: the kernels (no runtime of their own) bind to this one.
  void* h = dlopen(so_path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    if (why) *why = std::string("cannot load Halide runtime: ") + dlerror();
    return nullptr;
  }
  using SetHandler = halide_error_handler_t (*)(halide_error_handler_t);
  if (auto set = reinterpret_cast<SetHandler>(dlsym(h, "halide_set_error_handler"))) set(&on_error);
  auto rt = std::make_unique<AotRuntime>();
  rt->target_ = t;
  if (t == Target::OpenCL || t == Target::Cuda) {
    using DevFn = const halide_device_interface_t* (*)();
    auto dev = reinterpret_cast<DevFn>(
        dlsym(h, t == Target::OpenCL ? "halide_opencl_device_interface" : "halide_cuda_device_interface"));
    if (!dev) {
      if (why) *why = "the Halide runtime has no device interface for target " + std::string(target_name(t));
      return nullptr;
    }
    rt->device_ = dev();
  }
  return loaded.emplace(so_path, std::move(rt)).first->second.get();
}

bool load_kernel(const std::string& so_path, AotKernel* k, std::string* why) {
  void* h = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    if (why) *why = std::string("cannot load kernel: ") + dlerror();
    return false;
  }
  auto fn = reinterpret_cast<int (*)(void**)>(dlsym(h, "region_argv"));
  if (!fn) {
    if (why) *why = "kernel " + so_path + " has no region_argv";
    dlclose(h);
    return false;
  }
  *k = AotKernel{h, fn};
  return true;
}

namespace detail {
namespace {

// The same residency rules as the JIT Session (backend.h): a storage goes
// to the device at its first use and stays; each region's outputs replace
// the previous versions; only observed storages come back, once.
class AotExecutor : public Executor {
 public:
  AotExecutor(const AotRuntime& rt, KernelProvider provider, bool alias_mutant, int64_t max_numel, LowerStats& stats)
      : dev_(rt.device()),
        provider_(std::move(provider)),
        alias_mutant_(alias_mutant),
        fold_(grid_fold(max_numel)),
        stats_(stats) {}
  ~AotExecutor() override {
    for (auto& b : store_) release(b);
    release(expected_);
    release(status_);
  }

  void set_expected(std::vector<float> values) override { expected_host_ = std::move(values); }

  std::string run(int region, const RegionSpec& spec, const oracles::Memory& mem) override {
    if (store_.empty()) {
      store_.resize(mem.size());
      written_.assign(mem.size(), false);
    }
    std::string why;
    const AotKernel* k = provider_(spec, &why);
    if (!k) return why;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<void*> args;
    for (int s : spec.input_storages) {
      if (!resident(s, mem)) return "lowering: copy to device failed";
      args.push_back(store_[s].raw_buffer());
    }
    std::vector<int> ip(spec.iparams.begin(), spec.iparams.end());
    std::vector<float> fp(spec.fparams.begin(), spec.fparams.end());
    for (auto& v : ip) args.push_back(&v);
    for (auto& v : fp) args.push_back(&v);
    int fold = fold_, reg = region;
    args.push_back(&fold);
    const bool checked = !spec.checks.empty();
    if (checked) {
      if (!status_.data() && !init_status()) return "lowering: copy to device failed";
      args.push_back(expected_.raw_buffer());
      args.push_back(status_.raw_buffer());
      args.push_back(&reg);
    }
    std::vector<Buf> fresh(spec.output_nodes.size());
    for (size_t o = 0; o < spec.output_nodes.size(); ++o) {
      const int s = spec.output_storages[o];
      const bool is_input = std::count(spec.input_storages.begin(), spec.input_storages.end(), s) > 0;
      if (alias_mutant_ && is_input) {
        args.push_back(store_[s].raw_buffer());  // the mutant: one buffer as input and output
      } else {
        fresh[o] = Buf(static_cast<int>(spec.output_numel[o]));
        args.push_back(fresh[o].raw_buffer());
      }
    }
    if (checked) args.push_back(status_.raw_buffer());
    AotRuntime::take_error();
    if (const int rc = k->fn(args.data()); rc != 0) {
      const std::string e = AotRuntime::take_error();
      return "Halide: " + (e.empty() ? "pipeline returned " + std::to_string(rc) : e);
    }
    for (size_t o = 0; o < spec.output_nodes.size(); ++o) {
      const int s = spec.output_storages[o];
      written_[s] = true;
      if (!fresh[o].data()) continue;
      release(store_[s]);
      store_[s] = std::move(fresh[o]);
    }
    stats_.run_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ++stats_.pipelines_run;
    return "";
  }

  std::string finish(oracles::Memory& mem, const std::vector<bool>& observed, Status* status) override {
    for (size_t s = 0; s < store_.size(); ++s) {
      if (!written_[s] || !observed[s]) continue;
      if (!download(store_[s])) return "lowering: copy to host failed";
      std::copy(store_[s].data(), store_[s].data() + mem[s].size(), mem[s].begin());
    }
    if (status_.data()) {
      if (!download(status_)) return "lowering: copy to host failed";
      *status = Status{status_(0), status_(1), status_(2), status_(3)};
    }
    return "";
  }

 private:
  template <typename B>
  bool upload(B& b) {
    if (!dev_) return true;
    b.set_host_dirty();
    if (b.copy_to_device(dev_) != 0) return false;
    ++stats_.uploads;
    stats_.upload_bytes += static_cast<int64_t>(b.size_in_bytes());
    return true;
  }
  template <typename B>
  bool download(B& b) {
    if (!dev_ || !b.device_dirty()) return true;
    if (b.copy_to_host() != 0) return false;
    ++stats_.downloads;
    stats_.download_bytes += static_cast<int64_t>(b.size_in_bytes());
    return true;
  }
  template <typename B>
  static void release(B& b) {
    if (b.data() && b.has_device_allocation()) b.device_free();
    b = B();
  }
  bool resident(int s, const oracles::Memory& mem) {
    auto& b = store_[s];
    if (b.data()) return true;
    const auto& host = mem[s];
    b = Buf(std::max<int>(1, static_cast<int>(host.size())));
    std::copy(host.begin(), host.end(), b.data());
    return upload(b);
  }
  bool init_status() {
    expected_ = Buf(std::max<int>(1, static_cast<int>(expected_host_.size())));
    std::copy(expected_host_.begin(), expected_host_.end(), expected_.data());
    status_ = IBuf(4);
    status_(0) = kBig;
    status_(1) = 0;
    status_(2) = status_(3) = -1;
    return upload(expected_) && upload(status_);
  }

  const halide_device_interface_t* dev_;
  KernelProvider provider_;
  bool alias_mutant_;
  int fold_;
  LowerStats& stats_;
  std::vector<Buf> store_;
  std::vector<bool> written_;
  std::vector<float> expected_host_;
  Buf expected_;
  IBuf status_;
};

}  // namespace

std::unique_ptr<Executor> make_aot_executor(const AotRuntime& rt, KernelProvider provider, bool alias_mutant,
                                            int64_t max_numel, LowerStats& stats) {
  return std::make_unique<AotExecutor>(rt, std::move(provider), alias_mutant, max_numel, stats);
}

}  // namespace detail
}  // namespace af::lowering
