#include "backend/ggml/library.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include "base/error.h"

namespace kz::ggml {
namespace {

// What a backend library built with GGML_BACKEND_DL exports.
using BackendInit = ggml_backend_reg_t (*)();
using BackendScore = int (*)();

// Backend libraries tried by name when no directory is given (Android's jniLibs).
constexpr const char* kBackendNames[] = {"libggml-cpu.so", "libggml-vulkan.so", "libggml-opencl.so",
                                         "libggml-hexagon.so"};

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

std::string type_name(enum ggml_backend_dev_type t) {
  switch (t) {
    case GGML_BACKEND_DEVICE_TYPE_CPU:
      return "cpu";
    case GGML_BACKEND_DEVICE_TYPE_GPU:
      return "gpu";
    case GGML_BACKEND_DEVICE_TYPE_IGPU:
      return "igpu";
    case GGML_BACKEND_DEVICE_TYPE_ACCEL:
      return "accel";
    default:
      return "other";
  }
}

void* open_base(const std::string& dir) {
  const std::string path = dir.empty() ? "libggml-base.so" : dir + "/libggml-base.so";
  // RTLD_GLOBAL: the backend libraries name libggml-base.so as a dependency; the loader matches
  // them to this copy by its soname.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h)
    fail("ggml: cannot load ", path, " (", dl_error(),
         "); give the folder of the ggml libraries with --ggml-dir DIR or KAZEIA_GGML_DIR");
  return h;
}

void resolve(void* h, const std::string& where, Api& api) {
  const auto sym = [&](const char* name) {
    void* p = dlsym(h, name);
    if (!p) fail("ggml: ", where, " has no function ", name, " (expected ggml ", kVersion, ")");
    return p;
  };
  // The version first: a library of another version may lack later functions.
  api.ggml_version = reinterpret_cast<decltype(api.ggml_version)>(sym("ggml_version"));
  api.ggml_commit = reinterpret_cast<decltype(api.ggml_commit)>(sym("ggml_commit"));
  const std::string version = api.ggml_version();
  if (version != kVersion)
    fail("ggml: ", where, " is ggml ", version, " (", api.ggml_commit(), "); kazeia needs ggml ",
         kVersion, " (", kCommit, ")");
#define KZ_GGML_RESOLVE(f) api.f = reinterpret_cast<decltype(api.f)>(sym(#f));
  KZ_GGML_FUNCTIONS(KZ_GGML_RESOLVE)
#undef KZ_GGML_RESOLVE
}

// The backend libraries to load: every libggml-*.so in dir but the base, and of the CPU
// variants (libggml-cpu-haswell.so, -zen4, ...) only the best this CPU runs, as ggml's own
// loader picks it (ggml_backend_score: 0 = cannot run here).
std::vector<std::string> backend_libraries(const std::string& dir) {
  std::vector<std::string> out;
  if (dir.empty()) {
    for (const char* name : kBackendNames) out.push_back(name);
    return out;
  }
  std::error_code ec;
  std::vector<std::string> cpu;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("libggml-", 0) != 0 || e.path().extension() != ".so") continue;
    if (name == "libggml-base.so") continue;
    (name.rfind("libggml-cpu", 0) == 0 ? cpu : out).push_back(e.path().string());
  }
  std::optional<std::pair<int, std::string>> best;
  for (const std::string& path : cpu) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    const auto score = reinterpret_cast<BackendScore>(dlsym(h, "ggml_backend_score"));
    const int s = score ? score() : 1;
    if (s > 0 && (!best || s > best->first)) best = {s, path};
    dlclose(h);  // the chosen one is opened again, with its devices
  }
  if (best) out.push_back(best->second);
  std::sort(out.begin(), out.end());
  return out;
}

void add_devices(Library& lib, ggml_backend_reg_t reg, const std::string& library) {
  const Api& g = lib.api;
  for (size_t i = 0; i < g.ggml_backend_reg_dev_count(reg); ++i) {
    ggml_backend_dev_t dev = g.ggml_backend_reg_dev_get(reg, i);
    ggml_backend_dev_props p{};
    g.ggml_backend_dev_get_props(dev, &p);
    DeviceInfo d;
    d.name = p.name ? p.name : "";
    d.description = p.description ? p.description : "";
    d.type = type_name(p.type);
    d.library = library;
    d.memory_free = p.memory_free;
    d.memory_total = p.memory_total;
    d.async = p.caps.async;
    d.host_buffer = p.caps.host_buffer;
    d.buffer_from_host_ptr = p.caps.buffer_from_host_ptr;
    d.handle = dev;
    lib.devices.push_back(std::move(d));
  }
}

// ggml's log: its errors on stderr; the rest (device lists, debug notes) only with
// $KAZEIA_GGML_LOG=1, so that our own messages stay the one line a user reads.
void log_to_stderr(enum ggml_log_level level, const char* text, void*) {
  static const bool all = [] {
    const char* env = std::getenv("KAZEIA_GGML_LOG");
    return env && std::string(env) == "1";
  }();
  if (all || level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
}

Library open_library(const std::string& dir) {
  Library lib;
  lib.dir = dir;
  void* base = open_base(dir);
  resolve(base, dir.empty() ? "libggml-base.so" : dir + "/libggml-base.so", lib.api);
  lib.api.ggml_log_set(log_to_stderr, nullptr);
  lib.version = std::string(lib.api.ggml_version()) + " (" + lib.api.ggml_commit() + ")";
  for (const std::string& path : backend_libraries(dir)) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      if (dir.empty()) continue;  // by name: the app ships only some backends
      fail("ggml: cannot load ", path, " (", dl_error(), ")");
    }
    const auto init = reinterpret_cast<BackendInit>(dlsym(h, "ggml_backend_init"));
    if (!init) fail("ggml: ", path, " is not a ggml backend library (no ggml_backend_init)");
    if (ggml_backend_reg_t reg = init())
      add_devices(lib, reg, std::filesystem::path(path).filename().string());
  }
  return lib;
}

}  // namespace

std::string library_dir(const std::string& dir) {
  if (!dir.empty()) return dir;
  const char* env = std::getenv("KAZEIA_GGML_DIR");
  return env ? env : "";
}

const Library& load_library(const std::string& dir) {
  static std::mutex mutex;
  static std::optional<Library> loaded;
  std::lock_guard lock(mutex);
  if (!loaded) loaded = open_library(library_dir(dir));
  return *loaded;
}

const DeviceInfo& Library::device(std::string_view name) const {
  std::string names;
  for (const DeviceInfo& d : devices) {
    if (d.name == name) return d;
    names += (names.empty() ? "" : ", ") + d.name;
  }
  fail("ggml: no device '", name, "' (ggml devices: ", names.empty() ? "none" : names,
       "; see kazeia devices)");
}

}  // namespace kz::ggml
