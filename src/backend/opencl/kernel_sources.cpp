#include "backend/opencl/kernel_sources.h"

namespace kz::opencl {

std::string program_source() {
  std::string s = "#define GEMM_TO " + std::to_string(kGemmRows) + "\n#define GEMM_TT " +
                  std::to_string(kGemmTokens) + "\n#define GEMM_GROUP " +
                  std::to_string(kGemmGroup) + "\n#define GEMV_ROWS " + std::to_string(kGemvRows) +
                  "\n#define DN_CHUNK " + std::to_string(kDeltaRuleChunk) + "\n";
  s += std::string(kCommonSource) + kDequantSource;
  for (const char* type : kMatrixTypes)
    s += std::string("#define WTYPE ") + type + "\n" + kMatmulTemplate + "#undef WTYPE\n";
  return s + kOpsSource + kDeltaNetSource;
}

}  // namespace kz::opencl
