#include "quant/types.h"

#include <array>
#include <cctype>

namespace kz {
namespace {

constexpr std::array<DTypeInfo, kDTypeCount> kTable = [] {
  std::array<DTypeInfo, kDTypeCount> t{};
  auto set = [&](DType id, std::string_view name, int bs, int bytes) {
    t[static_cast<uint32_t>(id)] = {name, bs, bytes};
  };
  set(DType::F32, "f32", 1, 4);
  set(DType::F16, "f16", 1, 2);
  set(DType::Q4_0, "q4_0", 32, 18);
  set(DType::Q4_1, "q4_1", 32, 20);
  set(DType::Q5_0, "q5_0", 32, 22);
  set(DType::Q5_1, "q5_1", 32, 24);
  set(DType::Q8_0, "q8_0", 32, 34);
  set(DType::Q8_1, "q8_1", 32, 36);
  set(DType::Q2_K, "q2_k", 256, 84);
  set(DType::Q3_K, "q3_k", 256, 110);
  set(DType::Q4_K, "q4_k", 256, 144);
  set(DType::Q5_K, "q5_k", 256, 176);
  set(DType::Q6_K, "q6_k", 256, 210);
  set(DType::Q8_K, "q8_k", 256, 292);
  set(DType::IQ2_XXS, "iq2_xxs", 256, 66);
  set(DType::IQ2_XS, "iq2_xs", 256, 74);
  set(DType::IQ3_XXS, "iq3_xxs", 256, 98);
  set(DType::IQ1_S, "iq1_s", 256, 50);
  set(DType::IQ4_NL, "iq4_nl", 32, 18);
  set(DType::IQ3_S, "iq3_s", 256, 110);
  set(DType::IQ2_S, "iq2_s", 256, 82);
  set(DType::IQ4_XS, "iq4_xs", 256, 136);
  set(DType::I8, "i8", 1, 1);
  set(DType::I16, "i16", 1, 2);
  set(DType::I32, "i32", 1, 4);
  set(DType::I64, "i64", 1, 8);
  set(DType::F64, "f64", 1, 8);
  set(DType::IQ1_M, "iq1_m", 256, 56);
  set(DType::BF16, "bf16", 1, 2);
  set(DType::TQ1_0, "tq1_0", 256, 54);
  set(DType::TQ2_0, "tq2_0", 256, 66);
  set(DType::MXFP4, "mxfp4", 32, 17);
  set(DType::NVFP4, "nvfp4", 64, 36);
  set(DType::Q1_0, "q1_0", 128, 18);
  set(DType::Q2_0, "q2_0", 64, 18);
  return t;
}();

}  // namespace

const DTypeInfo* dtype_info(uint32_t id) {
  if (id >= kDTypeCount || kTable[id].block_size == 0) return nullptr;
  return &kTable[id];
}

bool dtype_from_name(std::string_view name, DType* out) {
  for (uint32_t id = 0; id < kDTypeCount; ++id) {
    const auto& n = kTable[id].name;
    if (n.empty() || n.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < n.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(name[i])) == n[i];
    if (same) {
      *out = static_cast<DType>(id);
      return true;
    }
  }
  return false;
}

}  // namespace kz
