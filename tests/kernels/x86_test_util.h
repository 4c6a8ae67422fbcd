// Shared helpers of the x86 kernel tests: kernel tables for one ISA level (skipping when the CPU
// lacks it) and random rows in a block format.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/cpu_features.h"
#include "kernel_checks.h"
#include "kernels/kernel_table.h"
#include "quant/blocks.h"
#include "quant/quant.h"

namespace kz::testing {

enum class X86Level { kAvx2, kAvx512Vnni };

inline const char* level_name(X86Level l) {
  return l == X86Level::kAvx2 ? "avx2" : "avx512vnni";
}

// The CPU's features cut down to one level, or nullopt when the CPU lacks that level.
inline std::optional<CpuFeatures> features_for(X86Level level) {
  CpuFeatures f = cpu_features();
  if (!(f.avx2 && f.fma && f.f16c)) return std::nullopt;
  if (level == X86Level::kAvx2) {
    f.avx512f = f.avx512bw = f.avx512vl = f.avx512vnni = false;
    return f;
  }
  if (!(f.avx512f && f.avx512bw && f.avx512vl && f.avx512vnni)) return std::nullopt;
  return f;
}

#define KZ_TABLE_OR_SKIP(level, table)                                              \
  auto table##_features = ::kz::testing::features_for(level);                       \
  if (!table##_features) GTEST_SKIP() << "no " << ::kz::testing::level_name(level); \
  const ::kz::KernelTable table = ::kz::build_kernel_table(*table##_features)

// The packed kernels' variants: the AVX2 and AVX-512 VNNI tables' own.
using Variant = X86Level;

// The kernel table of a variant, or nullopt when the CPU lacks its ISA.
inline std::optional<KernelTable> table_for(Variant v) {
  const auto f = features_for(v);
  if (!f) return std::nullopt;
  return build_kernel_table(*f);
}

// Rows per packed K-quant group: 16 on AVX-512 VNNI (512-bit vectors), else 8.
inline int64_t k_quant_group_rows(Variant v) {
  return v == Variant::kAvx512Vnni ? 16 : 8;
}

// rows x n random values quantized to t, row after row.
inline std::vector<uint8_t> random_matrix(DType t, int64_t rows, int64_t n, uint32_t seed) {
  const uint64_t rb = row_bytes(t, n);
  std::vector<uint8_t> m(rb * rows);
  for (int64_t r = 0; r < rows; ++r) {
    const auto x = random_floats(n, seed + uint32_t(r), 0.5f + 0.1f * float(r % 7));
    quantize_row(t, x.data(), m.data() + r * rb, n);
  }
  return m;
}

// rows x n weights of type t (w, the file's bytes) repacked by the table's PackedMatmul for t,
// and the kernel's activation rows.
struct PackedMatrix {
  DType type;
  const PackedMatmul& p;
  int64_t rows, n;
  std::vector<uint8_t> w, packed;

  PackedMatrix(const KernelTable& table, DType t, std::vector<uint8_t> weights, int64_t rows_,
               int64_t n_)
      : type(t),
        p(table.matmul[static_cast<uint32_t>(t)].packed),
        rows(rows_),
        n(n_),
        w(std::move(weights)),
        packed(w.size()) {
    p.pack(w.data(), rb(), rows, n, packed.data());
  }
  uint64_t rb() const { return row_bytes(type, n); }
  uint64_t act_row() const { return n / kQK * p.act_block_bytes; }
  std::vector<uint8_t> act(const float* x) const {
    std::vector<uint8_t> a(act_row());
    p.quantize(x, a.data(), n);
    return a;
  }
};

}  // namespace kz::testing
