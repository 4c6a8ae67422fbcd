// The kernels the cpu backend runs, chosen once at start-up from the CPU's features
// (base/cpu_features.h): for each weight type, how activations are converted and how a weight
// row is multiplied with them. Each ISA folder (x86/, arm/) overrides the entries it
// accelerates; every entry starts as the reference kernel (kernels/ref/vec_dot.h), so a type
// without a fast version still runs, and the table says which kernel each type uses.
#pragma once

#include <cstdint>
#include <string>

#include "base/cpu_features.h"
#include "ops/op_types.h"
#include "quant/types.h"

namespace kz {

// Optional form of a matmul kernel that reads weights repacked once (at first use) into groups of
// `rows` interleaved rows, the same size as the rows they come from, so rows r.. of a packed matrix
// start at r * row_bytes for every r that is a multiple of `rows`. gemv and gemm take
// MatmulKernel's signatures, with w at such a row of the packed bytes, n_rows a multiple of `rows`,
// and their own activation blocks (act_block_bytes per 32 elements, written by quantize).
struct PackedMatmul {
  int rows = 0;  // 0: none
  void (*pack)(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, int64_t n,
               uint8_t* dst) = nullptr;
  void (*quantize)(const float* x, void* dst, int64_t n) = nullptr;
  // Set instead of quantize by kernels whose tiles read tokens in pairs: tokens x0 and x1 (x1 ==
  // x0 for a lone token) into one pair of activation rows, stored interleaved. The pair of tokens
  // 2p and 2p + 1 starts where row 2p would; gemv reads the pair of a token with itself, so
  // such kernels have a gemm for several tokens.
  void (*quantize_pair)(const float* x0, const float* x1, void* dst, int64_t n) = nullptr;
  uint64_t act_block_bytes = 0;
  void (*gemv)(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
               float* y) = nullptr;
  void (*gemm)(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
               uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
               int64_t y_stride) = nullptr;
  const char* name = "";
};

struct MatmulKernel {
  DType act_type = DType::F32;  // activation format (spec/quants.md §6.1)
  // x[n] f32 -> one activation row in act_type (row_bytes(act_type, n) bytes).
  void (*quantize)(const float* x, void* dst, int64_t n) = nullptr;
  // y[r] = dot(weight row r, act) for r in [0, n_rows); rows are row_bytes apart.
  void (*gemv)(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act, int64_t n,
               float* y) = nullptr;
  // Optional matrix-matrix form for prefill: y[t * y_stride + r] = dot(weight row r, act row t)
  // for t in [0, n_tok), r in [0, n_rows); activation rows are act_row_bytes apart. Each weight
  // block is loaded once for several tokens; every output equals gemv's bit for bit. Null: the
  // backend calls gemv once per token.
  void (*gemm)(const uint8_t* w, uint64_t row_bytes, int64_t n_rows, const void* act,
               uint64_t act_row_bytes, int64_t n_tok, int64_t n, float* y,
               int64_t y_stride) = nullptr;
  const char* name = "";  // e.g. "q4_0_q8_0 avx2"
  // Used instead of the above for matrices with a multiple of packed.rows rows.
  PackedMatmul packed;
};

// Vectorized versions of the non-matmul ops, each with the signature and semantics of the
// matching Backend op (backend/backend.h) unless noted. Null: the cpu backend runs the reference
// kernel (kernels/ref). The cpu backend splits the work over its threads.
struct OpKernels {
  void (*rms_norm)(const float* x, const float* w, int64_t n, int64_t rows, float eps,
                   float* y) = nullptr;
  void (*rope_neox)(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot,
                    const int32_t* pos, float freq_base) = nullptr;
  void (*swiglu)(const float* gate, const float* up, int64_t n, float* y) = nullptr;
  void (*silu)(float* x, int64_t n) = nullptr;
  void (*add)(float* x, const float* y, int64_t n) = nullptr;
  void (*mul_sigmoid)(float* x, const float* gate, int64_t n) = nullptr;
  // Attention for the (query token, query head) pairs i in [begin, end), i = t * n_head + h.
  void (*attention)(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
                    float scale, float* out, int64_t begin, int64_t end) = nullptr;
  // Query rows of the prompt kernel's tiles (blocked_attention::kTileRows of its ISA), so that
  // the cpu backend's tasks are whole tiles (any value gives the same bits; a wrong one leaves
  // tiles part empty).
  int attention_tile_rows = 16;  // 8 lanes: AVX2's and NEON's
  void (*gated_rms_norm)(const float* x, const float* z, const float* w, int64_t n, int64_t rows,
                         float eps, float* y) = nullptr;
  // n_tok tokens of the gated delta rule recurrence for value heads [h_begin, h_end) (the
  // Backend op's arguments), each token's outputs the bits of running the tokens one at a time.
  void (*delta_rule)(const DeltaNetDims& dims, int64_t n_tok, const float* qkv, const float* g,
                     const float* beta, float eps, float* state, float* out, int h_begin,
                     int h_end) = nullptr;
  // ref::l2_norm's rows (x / max(||x||, eps) in place), its bits: the code with which the
  // delta_rule kernel above normalizes its q and k, here so that tests and benchmarks reach it.
  void (*l2_norm)(float* x, int64_t n, int64_t rows, float eps) = nullptr;
  // x[n] f32 -> n F16 values with quant's quantize_f16 bits (round to nearest even; any NaN ->
  // sign | 0x7e00): F16 K/V rows, and the activations of F16 weights.
  void (*to_f16)(const float* x, void* dst, int64_t n) = nullptr;
  const char* isa = "ref";  // which ISA the non-null entries are written for
};

struct KernelTable {
  MatmulKernel matmul[kDTypeCount];  // indexed by weight DType id; gemv null if unsupported
  OpKernels ops;
  CpuFeatures features;  // what the ISA folders may use (add_*_kernels read this)
  std::string isa;       // features the table was built for
};

// Built on first use from cpu_features() (which honours KAZEIA_CPU_FEATURES).
const KernelTable& kernel_table();
// A table for the given features (a subset of the CPU's): tests compare every ISA's kernels
// within one process.
KernelTable build_kernel_table(const CpuFeatures& features);
// One line per weight type: "q4_0: q4_0_q8_0 avx2", for logs and bench lines.
std::string describe(const KernelTable& table);

// Filled by the ISA folders; each is a no-op on other architectures.
void add_x86_kernels(KernelTable& table);
void add_arm_kernels(KernelTable& table);

}  // namespace kz
