// kazeia devices: every device kind's devices (device_registry.h), as --device names them. No
// library or no device is information, not an error: exit 0.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "args.h"
#include "backend/device_registry.h"

namespace kz::cli {

int cmd_devices(int argc, char** argv) {
  ArgParser p("kazeia devices",
              "List the devices of every kind that has them: OpenCL (opencl:N, the N-th device "
              "over all platforms; the library loaded at run time from KAZEIA_OPENCL_LIBRARY, "
              "libOpenCL.so, libOpenCL.so.1 or the Android vendor paths) and ggml (ggml:NAME; "
              "ggml 0.23.0 loaded from --ggml-dir or KAZEIA_GGML_DIR).");
  std::string ggml_dir;
  p.add("--ggml-dir", "DIR", "folder of the ggml libraries (default $KAZEIA_GGML_DIR)", &ggml_dir);
  if (!p.parse(argc, argv)) return 0;
  if (!ggml_dir.empty()) setenv("KAZEIA_GGML_DIR", ggml_dir.c_str(), 1);
  bool first = true;
  for (const DeviceDriver& d : device_drivers()) {
    if (!d.list) continue;
    std::printf("%s%s", first ? "" : "\n", d.list().c_str());
    first = false;
  }
  return 0;
}

}  // namespace kz::cli
