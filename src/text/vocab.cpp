#include "text/vocab.h"

#include "base/error.h"
#include "gguf/gguf.h"
#include "text/vocab_special.h"

namespace kz {

int32_t Vocab::symbol_id(std::string_view text) const {
  if (const int32_t id = token_id(text); id >= 0) return id;
  if (extra_symbols.empty()) return -1;
  const int32_t extra = extra_index.find(text, extra_symbols);
  return extra < 0 ? -1 : n_vocab() + extra;
}

namespace {

constexpr std::string_view kModelKey = "tokenizer.ggml.model";
constexpr std::string_view kPreKey = "tokenizer.ggml.pre";
constexpr std::string_view kTokensKey = "tokenizer.ggml.tokens";
constexpr std::string_view kTypesKey = "tokenizer.ggml.token_type";
constexpr std::string_view kMergesKey = "tokenizer.ggml.merges";

// llama_vocab::impl::load maps these `pre` strings to LLAMA_VOCAB_PRE_TYPE_QWEN2 / _QWEN35.
PreTokenizerKind parse_pre(const gguf::File& f) {
  const std::optional<std::string> pre = f.opt_string(kPreKey);
  if (!pre) fail(f.path(), ": key '", kPreKey, "' not found (need 'qwen2' or 'qwen35')");
  if (*pre == "qwen2" || *pre == "deepseek-r1-qwen" || *pre == "kormo" || *pre == "f2llmv2") {
    return PreTokenizerKind::kQwen2;
  }
  if (*pre == "qwen35") return PreTokenizerKind::kQwen35;
  fail(f.path(), ": key '", kPreKey, "': unknown pre-tokenizer '", *pre, "'");
}

void load_tokens(const gguf::File& f, Vocab& v) {
  v.tokens = f.get_string_array(kTokensKey);
  if (v.tokens.empty()) fail(f.path(), ": key '", kTokensKey, "' is empty");
  const size_t n = v.tokens.size();
  for (size_t i = 0; i < n; ++i) {
    // llama.cpp renames empty texts so that every token has a unique, non-empty spelling.
    if (v.tokens[i].empty()) v.tokens[i] = cat("[EMPTY_", i, "]");
  }
  v.token_index.build(v.tokens);
  v.types.assign(n, TokenType::kNormal);  // llama.cpp's default when the key is absent
  if (f.find(kTypesKey) == nullptr) return;
  const std::vector<int64_t> types = f.get_int_array(kTypesKey);
  if (types.size() < n) {
    fail(f.path(), ": key '", kTypesKey, "' has ", types.size(), " entries, expected ", n);
  }
  for (size_t i = 0; i < n; ++i) {
    // Values outside llama_token_type become UNDEFINED, like llama.cpp's `default:` case.
    v.types[i] =
        types[i] >= 0 && types[i] <= 6 ? static_cast<TokenType>(types[i]) : TokenType::kUndefined;
  }
}

int32_t intern_symbol(Vocab& v, std::string_view text) {
  if (int32_t id = v.symbol_id(text); id >= 0) return id;
  v.extra_symbols.emplace_back(text);
  v.extra_index.insert(static_cast<int32_t>(v.extra_symbols.size() - 1), v.extra_symbols);
  return v.n_vocab() + static_cast<int32_t>(v.extra_symbols.size() - 1);
}

void load_merges(const gguf::File& f, Vocab& v) {
  const std::vector<std::string> merges = f.get_string_array(kMergesKey);
  v.merges.reserve(merges.size());
  std::string joined;
  for (size_t i = 0; i < merges.size(); ++i) {
    const std::string& m = merges[i];
    // Split at the first space at index >= 1 (a left part may itself be a space in other
    // alphabets). llama.cpp keeps a merge without a space as ("", "") which never applies.
    const size_t space = m.find(' ', 1);
    if (space == std::string::npos) continue;
    const std::string_view left = std::string_view(m).substr(0, space);
    const std::string_view right = std::string_view(m).substr(space + 1);
    joined.assign(left).append(right);
    const int32_t l = intern_symbol(v, left);
    const int32_t r = intern_symbol(v, right);
    const int32_t result = intern_symbol(v, joined);
    // A repeated pair keeps its first (lowest) rank, as llama.cpp's bpe_ranks.emplace.
    v.merges.insert(l, r, BpeMerge{static_cast<int32_t>(i), result});
  }
}

}  // namespace

Vocab load_vocab(const gguf::File& f) {
  const std::string model = f.get_string(kModelKey);
  if (model != "gpt2") {
    fail(f.path(), ": key '", kModelKey, "': unsupported tokenizer '", model,
         "' (only byte-level BPE 'gpt2')");
  }
  Vocab v;
  v.pre = parse_pre(f);
  load_tokens(f, v);
  load_merges(f, v);
  load_special_tokens(f, v);
  return v;
}

}  // namespace kz
