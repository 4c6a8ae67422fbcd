// Built instead of the OpenCL backend when the Khronos headers were missing at configure time
// (CMakeLists.txt): `--device opencl` and `kazeia devices` then say so.
#include "backend/opencl/devices.h"
#include "backend/opencl/opencl_backend.h"
#include "base/error.h"

namespace kz {

namespace {
constexpr const char* kUnavailable =
    "opencl: this build has no OpenCL backend (configured with KAZEIA_OPENCL=OFF or without the "
    "OpenCL headers)";
}

namespace opencl {
DeviceList list_devices() {
  DeviceList list;
  list.library = kUnavailable;
  return list;
}
}  // namespace opencl

std::unique_ptr<Backend> make_opencl_backend(int) {
  fail(kUnavailable);
}

}  // namespace kz
