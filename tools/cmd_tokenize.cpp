// kazeia tokenize: text to token ids (with their pieces) and ids back to text.
#include <cstdio>

#include "base/error.h"
#include "common.h"
#include "gguf/gguf.h"
#include "text/tokenizer.h"
#include "text/vocab.h"

namespace kz::cli {

int cmd_tokenize(int argc, char** argv) {
  std::string model, prompt, ids_text;
  bool no_parse_special = false, ids_only = false;
  ArgParser p("kazeia tokenize",
              "Tokenize -p TEXT with the model's tokenizer and print one 'id piece' line per "
              "token, or decode --ids back to text.");
  p.add("-m,--model", "FILE", "model or vocabulary file (GGUF)", &model);
  p.add("-p,--prompt", "TEXT", "text to tokenize", &prompt);
  p.add("--ids", "LIST", "comma-separated token ids to decode instead", &ids_text);
  p.add_switch("--no-parse-special", "treat special-token text as plain text", &no_parse_special);
  p.add_switch("--ids-only", "print only the ids, comma-separated", &ids_only);
  if (!p.parse(argc, argv)) return 0;
  if (model.empty()) fail("missing -m MODEL");
  if (!p.given("-p") && ids_text.empty()) fail("give -p TEXT to tokenize or --ids LIST to decode");

  const Tokenizer tok(load_vocab(gguf::File::open(model)));
  if (!ids_text.empty()) {
    const auto ids = parse_id_list("--ids", ids_text);
    for (int32_t id : ids)
      if (id < 0 || id >= tok.vocab().n_vocab())
        fail("token id ", id, " out of range [0, ", tok.vocab().n_vocab(), ")");
    std::printf("%s\n", tok.decode(ids, true).c_str());
    return 0;
  }
  const auto ids = tok.encode(prompt, !no_parse_special);
  if (ids_only) {
    for (size_t i = 0; i < ids.size(); ++i) std::printf(i ? ",%d" : "%d", ids[i]);
    std::printf("\n");
    return 0;
  }
  for (int32_t id : ids) std::printf("%6d '%s'\n", id, tok.token_to_piece(id, true).c_str());
  return 0;
}

}  // namespace kz::cli
