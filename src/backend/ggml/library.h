// ggml (the tensor library under llama.cpp) loaded at run time: libggml-base.so and the backend
// libraries beside it (libggml-cpu-*.so, libggml-vulkan.so, libggml-opencl.so,
// libggml-hexagon.so), so that the engine builds, links and runs without them. One ABI is pinned,
// ggml 0.23.0 (the reference build's snapshot); its public headers are in third_party/ggml.
// Functions are called through a table filled by dlsym, never linked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

namespace kz::ggml {

constexpr std::string_view kVersion = "0.23.0";  // the one ggml_version() we accept
constexpr std::string_view kCommit = "5b4ebc5";  // its ggml_commit(), for messages

// Every ggml function the engine calls.
#define KZ_GGML_FUNCTIONS(X)                  \
  X(ggml_version)                             \
  X(ggml_commit)                              \
  X(ggml_init)                                \
  X(ggml_log_set)                             \
  X(ggml_free)                                \
  X(ggml_tensor_overhead)                     \
  X(ggml_used_mem)                            \
  X(ggml_get_mem_buffer)                      \
  X(ggml_get_mem_size)                        \
  X(ggml_graph_overhead_custom)               \
  X(ggml_new_graph_custom)                    \
  X(ggml_graph_n_nodes)                       \
  X(ggml_build_forward_expand)                \
  X(ggml_type_name)                           \
  X(ggml_op_desc)                             \
  X(ggml_nbytes)                              \
  X(ggml_row_size)                            \
  X(ggml_new_tensor_1d)                       \
  X(ggml_new_tensor_2d)                       \
  X(ggml_new_tensor_3d)                       \
  X(ggml_set_input)                           \
  X(ggml_set_output)                          \
  X(ggml_view_1d)                             \
  X(ggml_view_2d)                             \
  X(ggml_view_3d)                             \
  X(ggml_reshape_1d)                          \
  X(ggml_reshape_2d)                          \
  X(ggml_reshape_3d)                          \
  X(ggml_reshape_4d)                          \
  X(ggml_permute)                             \
  X(ggml_transpose)                           \
  X(ggml_cont)                                \
  X(ggml_concat)                              \
  X(ggml_mul_mat)                             \
  X(ggml_get_rows)                            \
  X(ggml_set_rows)                            \
  X(ggml_rms_norm)                            \
  X(ggml_l2_norm)                             \
  X(ggml_mul)                                 \
  X(ggml_add)                                 \
  X(ggml_scale)                               \
  X(ggml_silu)                                \
  X(ggml_sigmoid)                             \
  X(ggml_softplus)                            \
  X(ggml_swiglu_split)                        \
  X(ggml_rope_ext)                            \
  X(ggml_flash_attn_ext)                      \
  X(ggml_flash_attn_ext_set_prec)             \
  X(ggml_ssm_conv)                            \
  X(ggml_gated_delta_net)                     \
  X(ggml_backend_reg_name)                    \
  X(ggml_backend_reg_dev_count)               \
  X(ggml_backend_reg_dev_get)                 \
  X(ggml_backend_reg_get_proc_address)        \
  X(ggml_backend_dev_name)                    \
  X(ggml_backend_dev_get_props)               \
  X(ggml_backend_dev_backend_reg)             \
  X(ggml_backend_dev_init)                    \
  X(ggml_backend_dev_buffer_type)             \
  X(ggml_backend_dev_buffer_from_host_ptr)    \
  X(ggml_backend_dev_supports_op)             \
  X(ggml_backend_dev_supports_buft)           \
  X(ggml_backend_free)                        \
  X(ggml_backend_buft_name)                   \
  X(ggml_backend_buft_alloc_buffer)           \
  X(ggml_backend_buft_get_alignment)          \
  X(ggml_backend_buft_get_alloc_size)         \
  X(ggml_backend_buffer_free)                 \
  X(ggml_backend_buffer_get_base)             \
  X(ggml_backend_buffer_set_usage)            \
  X(ggml_backend_tensor_alloc)                \
  X(ggml_backend_tensor_set)                  \
  X(ggml_backend_tensor_get)                  \
  X(ggml_backend_graph_compute)               \
  X(ggml_backend_alloc_ctx_tensors_from_buft) \
  X(ggml_gallocr_new)                         \
  X(ggml_gallocr_free)                        \
  X(ggml_gallocr_alloc_graph)

struct Api {
#define KZ_GGML_DECLARE(f) decltype(&::f) f = nullptr;
  KZ_GGML_FUNCTIONS(KZ_GGML_DECLARE)
#undef KZ_GGML_DECLARE
};

// A device as ggml reports it, for `kazeia devices` and the backend.
struct DeviceInfo {
  std::string name;  // e.g. CPU, Vulkan0, GPUOpenCL, HTP0: --device ggml:NAME
  std::string description;
  std::string type;     // cpu, gpu, igpu, accel, meta
  std::string library;  // the backend library it came from
  uint64_t memory_free = 0, memory_total = 0;
  bool async = false, host_buffer = false, buffer_from_host_ptr = false;
  ggml_backend_dev_t handle = nullptr;
};

// The loaded libraries: one per process (ggml's backends keep process-wide state and cannot be
// unloaded safely), found in `dir` or, when empty, $KAZEIA_GGML_DIR, else by the libraries'
// names alone (Android: the app's native library folder).
struct Library {
  std::string dir;      // where the libraries were found ("" when by name)
  std::string version;  // ggml_version() and ggml_commit()
  Api api;
  std::vector<DeviceInfo> devices;
  const DeviceInfo& device(std::string_view name) const;  // throws naming the choices
};

// Loads on the first call; later calls return the same library (whatever `dir`). Throws
// kz::Error with one line: no libggml-base.so there, another ggml version, a missing function.
const Library& load_library(const std::string& dir = "");

// The directory load_library would search: `dir`, else $KAZEIA_GGML_DIR ("" if neither).
std::string library_dir(const std::string& dir = "");

}  // namespace kz::ggml
