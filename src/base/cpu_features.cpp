#include "base/cpu_features.h"

#include <cstdlib>
#include <sstream>
#include <string_view>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace kz {
namespace {

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    f.fma = c & (1u << 12);
    f.f16c = c & (1u << 29);
    const bool osxsave = c & (1u << 27);
    unsigned xcr0_lo = 0, xcr0_hi = 0;
    if (osxsave) __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    const bool ymm_os = (xcr0_lo & 0x6) == 0x6;
    const bool zmm_os = (xcr0_lo & 0xe6) == 0xe6;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
      f.avx2 = ymm_os && (b & (1u << 5));
      f.avx512f = zmm_os && (b & (1u << 16));
      f.avx512bw = zmm_os && (b & (1u << 30));
      f.avx512vl = zmm_os && (b & (1u << 31));
      f.avx512vnni = zmm_os && (c & (1u << 11));
    }
    if (!ymm_os) f.fma = f.f16c = false;
  }
#elif defined(__aarch64__) && defined(__linux__)
  const unsigned long hw = getauxval(AT_HWCAP);
  const unsigned long hw2 = getauxval(AT_HWCAP2);
  f.neon = hw & HWCAP_ASIMD;
  f.fp16 = (hw & HWCAP_FPHP) && (hw & HWCAP_ASIMDHP);
  f.dotprod = hw & HWCAP_ASIMDDP;
#ifdef HWCAP2_I8MM
  f.i8mm = hw2 & HWCAP2_I8MM;
#endif
  (void)hw2;
#elif defined(__aarch64__)
  f.neon = true;
#endif
  return f;
}

// Keeps only the features named in the comma-separated list ("scalar" keeps none).
void mask(CpuFeatures& f, std::string_view list) {
  auto has = [&](std::string_view name) {
    size_t pos = 0;
    while (pos <= list.size()) {
      size_t end = list.find(',', pos);
      if (end == std::string_view::npos) end = list.size();
      if (list.substr(pos, end - pos) == name) return true;
      pos = end + 1;
    }
    return false;
  };
  f.avx2 = f.avx2 && has("avx2");
  f.fma = f.fma && has("fma");
  f.f16c = f.f16c && has("f16c");
  f.avx512f = f.avx512f && has("avx512f");
  f.avx512bw = f.avx512bw && has("avx512bw");
  f.avx512vl = f.avx512vl && has("avx512vl");
  f.avx512vnni = f.avx512vnni && has("avx512vnni");
  f.neon = f.neon && has("neon");
  f.dotprod = f.dotprod && has("dotprod");
  f.i8mm = f.i8mm && has("i8mm");
  f.fp16 = f.fp16 && has("fp16");
}

}  // namespace

std::string CpuFeatures::describe() const {
  std::ostringstream out;
  const std::pair<bool, const char*> all[] = {{avx2, "avx2"},
                                              {fma, "fma"},
                                              {f16c, "f16c"},
                                              {avx512f, "avx512f"},
                                              {avx512bw, "avx512bw"},
                                              {avx512vl, "avx512vl"},
                                              {avx512vnni, "avx512vnni"},
                                              {neon, "neon"},
                                              {dotprod, "dotprod"},
                                              {i8mm, "i8mm"},
                                              {fp16, "fp16"}};
  for (const auto& [on, name] : all)
    if (on) out << (out.tellp() > 0 ? " " : "") << name;
  return out.tellp() > 0 ? out.str() : "scalar";
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    CpuFeatures f = detect();
    if (const char* env = std::getenv("KAZEIA_CPU_FEATURES")) mask(f, env);
    return f;
  }();
  return features;
}

}  // namespace kz
