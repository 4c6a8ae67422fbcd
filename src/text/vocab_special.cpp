#include "text/vocab_special.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "base/error.h"
#include "gguf/gguf.h"

namespace kz {
namespace {

// Ids recognised by their text when no key gives them (llama_vocab::impl::load, "auto-detect
// special tokens by text"); llama.cpp also forces such tokens to CONTROL.
struct TextRule {
  int32_t SpecialIds::*field;
  std::initializer_list<std::string_view> texts;
};
const TextRule kTextRules[] = {
    {&SpecialIds::eot,
     {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<EOT>", "_<EOT>",
      "<｜end▁of▁sentence｜>", "<end_of_utterance>"}},
    {&SpecialIds::eom, {"<|eom_id|>"}},
    {&SpecialIds::fim_pre,
     {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<PRE>", "▁<PRE>", "<|code_prefix|>"}},
    {&SpecialIds::fim_suf,
     {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<SUF>", "▁<SUF>", "<|code_suffix|>"}},
    {&SpecialIds::fim_mid,
     {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<MID>", "▁<MID>", "<|code_middle|>"}},
    {&SpecialIds::fim_pad, {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>"}},
    {&SpecialIds::fim_rep, {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}},
    {&SpecialIds::fim_sep, {"<|file_sep|>"}},
};

// Texts that end generation whatever the keys say (llama.cpp "maintain a list of tokens that
// cause end-of-generation"): for Qwen both <|im_end|> and <|endoftext|>.
constexpr std::string_view kEndTexts[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>",         "<|return|>",         "<|call|>",
    "<|flush|>",  "<|calls|>",  "<end_of_turn>",   "<|endoftext|>",      "<|eom_id|>",
    "<EOT>",      "_<EOT>",     "<|end_of_text|>", "<end_of_utterance>",
};

struct IdKey {
  int32_t SpecialIds::*field;
  std::string_view key;
};
const IdKey kIdKeys[] = {
    {&SpecialIds::bos, "tokenizer.ggml.bos_token_id"},
    {&SpecialIds::eos, "tokenizer.ggml.eos_token_id"},
    {&SpecialIds::eot, "tokenizer.ggml.eot_token_id"},
    {&SpecialIds::eom, "tokenizer.ggml.eom_token_id"},
    {&SpecialIds::unk, "tokenizer.ggml.unknown_token_id"},
    {&SpecialIds::sep, "tokenizer.ggml.seperator_token_id"},  // sic, as in llama.cpp
    {&SpecialIds::pad, "tokenizer.ggml.padding_token_id"},
    {&SpecialIds::cls, "tokenizer.ggml.cls_token_id"},
    {&SpecialIds::mask, "tokenizer.ggml.mask_token_id"},
    {&SpecialIds::fim_pre, "tokenizer.ggml.fim_pre_token_id"},
    {&SpecialIds::fim_suf, "tokenizer.ggml.fim_suf_token_id"},
    {&SpecialIds::fim_mid, "tokenizer.ggml.fim_mid_token_id"},
    {&SpecialIds::fim_pad, "tokenizer.ggml.fim_pad_token_id"},
    {&SpecialIds::fim_rep, "tokenizer.ggml.fim_rep_token_id"},
    {&SpecialIds::fim_sep, "tokenizer.ggml.fim_sep_token_id"},
};

void read_ids(const gguf::File& f, Vocab& v) {
  // llama.cpp presets BOS = EOS = 11 for "gpt2" vocabularies; keys override them, and an id
  // outside the vocabulary is ignored (llama.cpp warns "bad special token" and keeps the default).
  if (v.n_vocab() > 11) v.special.bos = v.special.eos = 11;
  for (const IdKey& k : kIdKeys) {
    const std::optional<uint32_t> id = f.opt_u32(k.key);
    if (id && *id < static_cast<uint32_t>(v.n_vocab())) {
      v.special.*k.field = static_cast<int32_t>(*id);
    }
  }
  v.add_bos = f.opt_bool("tokenizer.ggml.add_bos_token").value_or(false);
  v.add_eos = f.opt_bool("tokenizer.ggml.add_eos_token").value_or(false);
}

// llama.cpp takes the first match of its (unordered) map walk; we take the first text of the
// list that exists, which is deterministic and, for Qwen, ends in the same end-of-generation set.
void detect_by_text(Vocab& v) {
  for (const TextRule& rule : kTextRules) {
    int32_t& id = v.special.*rule.field;
    if (id >= 0) continue;
    for (std::string_view text : rule.texts) {
      if (const int32_t found = v.token_id(text); found >= 0) {
        id = found;
        v.types[id] = TokenType::kControl;
        break;
      }
    }
  }
}

void build_end_of_generation(Vocab& v) {
  std::vector<int32_t>& eog = v.end_of_generation;
  for (int32_t id : {v.special.fim_pad, v.special.fim_rep, v.special.fim_sep, v.special.eos,
                     v.special.eot, v.special.eom}) {
    if (id >= 0) eog.push_back(id);
  }
  for (std::string_view text : kEndTexts) {
    if (const int32_t id = v.token_id(text); id >= 0) {
      eog.push_back(id);
      v.types[id] = TokenType::kControl;
    }
  }
  std::sort(eog.begin(), eog.end());
  eog.erase(std::unique(eog.begin(), eog.end()), eog.end());
}

// llama.cpp "build special tokens cache": sorted by text length, longest first, so that a token
// wins over the shorter ones it contains. Stable order among equal lengths (llama.cpp:
// unspecified).
void build_special_cache(Vocab& v) {
  for (int32_t id = 0; id < v.n_vocab(); ++id) {
    const TokenType t = v.types[id];
    if (t == TokenType::kControl || t == TokenType::kUserDefined || t == TokenType::kUnknown) {
      v.special_tokens.push_back(id);
    }
  }
  std::stable_sort(v.special_tokens.begin(), v.special_tokens.end(),
                   [&](int32_t a, int32_t b) { return v.tokens[a].size() > v.tokens[b].size(); });
}

}  // namespace

void load_special_tokens(const gguf::File& f, Vocab& v) {
  read_ids(f, v);
  detect_by_text(v);
  build_end_of_generation(v);
  build_special_cache(v);
}

}  // namespace kz
