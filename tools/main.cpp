// kazeia: the command-line front end of Kazeia-Engine. Every error ends here as one line on
// stderr and a non-zero exit code.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/error.h"
#include "common.h"
#include "test_support/faulty_backend.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"run", kz::cli::cmd_run, "generate text from a prompt (streams to stdout, timings to stderr)"},
    {"inspect", kz::cli::cmd_inspect, "show the metadata and tensors of a GGUF file"},
    {"tokenize", kz::cli::cmd_tokenize, "turn text into token ids and back"},
    {"logits", kz::cli::cmd_logits, "print the logits of a token sequence as JSON"},
    {"mkmodel", kz::cli::cmd_mkmodel, "write a synthetic model with random weights"},
    {"quantize", kz::cli::cmd_quantize, "quantize a model with per-tensor type recipes"},
    {"perplexity", kz::cli::cmd_perplexity, "perplexity of a model over a text file"},
    {"chat", kz::cli::cmd_chat, "interactive multi-turn chat"},
    {"bench", kz::cli::cmd_bench, "measure prompt processing, generation and multi-turn reuse"},
    {"oracle", kz::cli::cmd_oracle, "check every op of a device against the reference backend"},
    {"devices", kz::cli::cmd_devices, "list the OpenCL platforms and devices"},
    {"serve", kz::cli::cmd_serve, "OpenAI-compatible HTTP server (chat, completions, streaming)"},
};

void usage(FILE* out) {
  std::fprintf(out, "usage: kazeia COMMAND [options]   (kazeia COMMAND --help for details)\n\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
  // The CLI is also a test tool: `--device faulty:ENTRIES` shows the oracle and the op filter at
  // work (docs/architecture.md); the app's library has no such device.
  kz::register_faulty_device();
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    usage(stdout);
    return 0;
  }
  for (const auto& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    try {
      return c.run(argc - 2, argv + 2);
    } catch (const kz::Error& e) {
      // One line, whatever the message quotes (an argument may hold a newline).
      std::string line = e.what();
      std::replace_if(
          line.begin(), line.end(), [](char ch) { return ch == '\n' || ch == '\r'; }, ' ');
      std::fprintf(stderr, "kazeia %s: error: %s\n", c.name, line.c_str());
      return 1;
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "kazeia %s: error: out of memory\n", c.name);
      return 1;
    }
  }
  std::fprintf(stderr, "kazeia: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
