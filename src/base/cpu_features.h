// CPU features, detected once at start-up; kernel tables are filled from them (kernels/).
#pragma once

#include <string>

namespace kz {

struct CpuFeatures {
  // x86-64
  bool avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512vnni = false;
  // ARM64
  bool neon = false, dotprod = false, i8mm = false, fp16 = false;

  std::string describe() const;  // e.g. "avx2 fma f16c avx512f avx512vnni"
};

// Detected once; KAZEIA_CPU_FEATURES=scalar (or a list such as "avx2,fma,f16c") masks features,
// so every kernel path can be exercised on one machine.
const CpuFeatures& cpu_features();

}  // namespace kz
