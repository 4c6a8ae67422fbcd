// kazeia inspect: metadata, tensor table and (for supported architectures) sequence-state sizes.
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "base/error.h"
#include "common.h"
#include "gguf/gguf.h"
#include "model/model.h"

namespace kz::cli {
namespace {

std::string scalar_text(const gguf::Value& v) {
  std::ostringstream out;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) {
          std::string s = x.size() > 60 ? x.substr(0, 60) + "..." : x;
          for (char& c : s)
            if (c == '\n') c = ' ';
          out << '"' << s << '"';
        } else if constexpr (std::is_same_v<T, gguf::Array>) {
          out << "[";
          for (size_t i = 0; i < x.items.size() && i < 6; ++i)
            out << (i ? ", " : "") << scalar_text(x.items[i]);
          if (x.items.size() > 6) out << ", ...";
          out << "]";
        } else if constexpr (std::is_same_v<T, bool>) {
          out << (x ? "true" : "false");
        } else if constexpr (sizeof(T) == 1) {
          out << int(x);
        } else {
          out << x;
        }
      },
      v.v);
  return out.str();
}

std::string type_text(const gguf::Value& v) {
  if (v.type() != gguf::ValueType::ARRAY) return std::string(gguf::type_name(v.type()));
  const auto& a = std::get<gguf::Array>(v.v);
  return "arr[" + std::string(gguf::type_name(a.elem_type)) + "," + std::to_string(a.items.size()) +
         "]";
}

}  // namespace

int cmd_inspect(int argc, char** argv) {
  std::string path;
  bool no_tensors = false;
  ArgParser p("kazeia inspect",
              "Show the metadata and tensor table of a GGUF file and, for a "
              "supported model, the bytes its sequence state takes.");
  p.add_positional("FILE", "GGUF file", &path);
  p.add("-m,--model", "FILE", "GGUF file (alternative to the positional argument)", &path);
  p.add_switch("--no-tensors", "omit the tensor table", &no_tensors);
  EngineFlags cache;  // only the cache types, for the state's bytes per token
  p.add("-ctk,--cache-type-k", "TYPE", "K cache type for the state sizes: f32, f16 or q8_0",
        &cache.cache_type_k);
  p.add("-ctv,--cache-type-v", "TYPE", "V cache type for the state sizes: f32, f16 or q8_0",
        &cache.cache_type_v);
  if (!p.parse(argc, argv)) return 0;
  if (path.empty()) fail("missing GGUF file (kazeia inspect FILE)");

  const gguf::File f = gguf::File::open(path);
  std::printf("file: %s\nGGUF version %u, alignment %u, %zu metadata keys, %zu tensors, %" PRIu64
              " bytes\n\nmetadata:\n",
              path.c_str(), f.version(), f.alignment(), f.metadata().size(), f.tensors().size(),
              f.file_size());
  for (const auto& kv : f.metadata())
    std::printf("  %-44s %-16s %s\n", kv.key.c_str(), type_text(kv.value).c_str(),
                scalar_text(kv.value).c_str());
  if (!no_tensors) {
    std::printf("\ntensors:\n  %-40s %-8s %-26s %12s\n", "name", "type", "shape", "bytes");
    uint64_t total = 0;
    for (const auto& t : f.tensors()) {
      std::string shape = "{";
      for (uint32_t d = 0; d < std::max(1u, t.n_dims); ++d)
        shape += (d ? ", " : "") + std::to_string(t.ne[d]);
      shape += "}";
      std::printf("  %-40s %-8s %-26s %12" PRIu64 "\n", t.name.c_str(),
                  std::string(dtype_name(t.type)).c_str(), shape.c_str(), t.nbytes);
      total += t.nbytes;
    }
    std::printf("  total tensor bytes: %" PRIu64 "\n", total);
  }

  const auto arch = f.opt_string("general.architecture");
  if (arch && (*arch == "qwen3" || *arch == "qwen35")) {
    auto model = Model::load(path);
    const SequenceState st = cache.new_state(*model, 1);
    std::printf("\nsequence state (%s K, %s V cache): %" PRIu64 " bytes fixed (recurrent), %" PRIu64
                " bytes per context token (KV)\n",
                cache.cache_type_k.c_str(), cache.cache_type_v.c_str(), st.fixed_bytes(),
                st.bytes_per_token());
  }
  return 0;
}

}  // namespace kz::cli
