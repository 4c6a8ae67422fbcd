// libFuzzer entry for the CLI's flag parser (tools/args.h) with the flag table that run, chat and
// bench share (EngineFlags and SpeculativeFlags, tools/common.h) plus one flag of each other
// value type and a positional argument: an argv built from the fuzz bytes (flag names, values
// meant to be wrong, raw bytes). A parse succeeds, stops at --help, or throws a one-line
// kz::Error that names the argument at fault; what parses survives a round trip (the values
// written back as --flag=VALUE parse to the same values); the flags' own checks (threads, cache
// types, context size, drafts) accept or throw kz::Error. Only parsing: no model is loaded.
// Built with -DKAZEIA_FUZZ=ON (scripts/fuzz.sh).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "base/error.h"
#include "common.h"

namespace {

// Every value a flag of the table can hold, and the table itself.
struct Flags {
  kz::cli::EngineFlags engine;
  kz::cli::SpeculativeFlags spec;
  uint64_t seed = 0;
  float temp = 0.8f;
  bool special = false;
  std::vector<std::string> tensor_types;
  std::string input;

  void declare(kz::cli::ArgParser& p) {
    engine.declare(p);
    spec.declare(p);
    p.add("-s,--seed", "N", "a uint64 flag", &seed);
    p.add("--temp", "T", "a float flag", &temp);
    p.add_switch("--special", "a switch", &special);
    p.add("--tensor-type", "REGEX=T", "a repeatable flag", &tensor_types);
    p.add_positional("INPUT", "a positional argument", &input);
  }

  bool operator==(const Flags& o) const {
    const auto& a = engine;
    const auto& b = o.engine;
    return a.model == b.model && a.backend == b.backend && a.op_filter == b.op_filter &&
           a.prefill_device == b.prefill_device && a.decode_device == b.decode_device &&
           a.prefill_threshold == b.prefill_threshold && a.repack == b.repack &&
           a.threads == b.threads && a.ctx == b.ctx && a.cache_type_k == b.cache_type_k &&
           a.cache_type_v == b.cache_type_v && spec.source == o.spec.source &&
           spec.draft == o.spec.draft && seed == o.seed && temp == o.temp && special == o.special &&
           tensor_types == o.tensor_types && input == o.input;
  }

  // The values as an argv in the --flag=VALUE form (defaults too: they must parse as well).
  std::vector<std::string> written() const {
    const auto& e = engine;
    std::vector<std::string> out = {
        "--model=" + e.model,
        "--device=" + e.backend,
        "--prefill-device=" + e.prefill_device,
        "--decode-device=" + e.decode_device,
        "--prefill-threshold=" + std::to_string(e.prefill_threshold),
        "--repack=" + e.repack,
        "--op-filter=" + e.op_filter,
        "--threads=" + std::to_string(e.threads),
        "--cache-type-k=" + e.cache_type_k,
        "--cache-type-v=" + e.cache_type_v,
        "--spec=" + spec.source,
        "--draft=" + std::to_string(spec.draft),
        "--seed=" + std::to_string(seed),
    };
    char shortest[64];
    const auto end = std::to_chars(shortest, std::end(shortest), temp).ptr;
    out.push_back("--temp=" + std::string(shortest, end));
    if (e.ctx) out.push_back("--ctx-size=" + std::to_string(*e.ctx));
    if (special) out.push_back("--special");
    for (const std::string& t : tensor_types) out.push_back("--tensor-type=" + t);
    if (!input.empty()) out.push_back(input);
    return out;
  }
};

constexpr std::string_view kNames[] = {
    "-m",
    "--model",
    "-dev",
    "--device",
    "--backend",
    "--prefill-device",
    "--decode-device",
    "--prefill-threshold",
    "--repack",
    "--op-filter",
    "-t",
    "--threads",
    "-c",
    "--ctx-size",
    "-ctk",
    "--cache-type-k",
    "-ctv",
    "--cache-type-v",
    "--spec",
    "--draft",
    "-s",
    "--seed",
    "--temp",
    "--special",
    "--tensor-type",
    "-h",
    "--help",
    "--unknown",
    "-",
    "--",
    "-x",
};
constexpr std::string_view kValues[] = {
    "0",
    "1",
    "-1",
    "4",
    "16",
    "17",
    "256",
    "257",
    "100000",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "0.5",
    "1e9",
    "1e39",
    "-1e-50",
    "nan",
    "inf",
    "0x10",
    "+1",
    " 1",
    "1 ",
    "",
    "=",
    "f16",
    "q8_0",
    "q4_0",
    "cpu",
    "ref",
    "opencl:7",
    "faulty:",
    "auto",
    "on",
    "ngram",
    "mtp",
    "replay",
    "none",
};

std::vector<std::string> fuzz_argv(FuzzedDataProvider& in) {
  std::vector<std::string> args(in.ConsumeIntegralInRange(0, 10));
  for (std::string& a : args) {
    switch (in.ConsumeIntegralInRange(0, 3)) {
      case 0:
        a = kNames[in.ConsumeIntegralInRange<size_t>(0, std::size(kNames) - 1)];
        break;
      case 1:
        a = kValues[in.ConsumeIntegralInRange<size_t>(0, std::size(kValues) - 1)];
        break;
      case 2:  // an inline value
        a = std::string(kNames[in.ConsumeIntegralInRange<size_t>(0, std::size(kNames) - 1)]) + "=" +
            std::string(kValues[in.ConsumeIntegralInRange<size_t>(0, std::size(kValues) - 1)]);
        break;
      default:
        a = in.ConsumeRandomLengthString(24);
    }
  }
  return args;
}

[[noreturn]] void violated(const char* what, const std::string& detail) {
  std::fprintf(stderr, "cli_args_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

// A parser with the table, and the values it parsed.
struct Parsed {
  Flags flags;
  kz::cli::ArgParser parser{"kazeia fuzz", "the shared flags and one flag of each value type"};

  Parsed() { flags.declare(parser); }
  Parsed(const Parsed&) = delete;
  Parsed& operator=(const Parsed&) = delete;

  // False at --help. C strings stop at a NUL, as a real argv does.
  bool parse(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    return parser.parse(int(argv.size()), argv.data());
  }
};

// An error names an argument: one of them, or the flag part of a --flag=VALUE, as typed (one
// with control characters is shown escaped).
bool names_an_argument(const std::string& message, const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    const std::string arg = a.c_str();  // what the parser saw
    if (std::any_of(arg.begin(), arg.end(), [](char c) { return uint8_t(c) < 0x20 || c == 0x7f; }))
      return true;
    if (message.find(arg) != std::string::npos ||
        message.find(arg.substr(0, arg.find('='))) != std::string::npos)
      return true;
  }
  return false;
}

// The flags' own checks, as the commands run them before loading a model.
void check_values(const Parsed& p) {
  const Flags& f = p.flags;
  const auto attempt = [](auto&& check) {
    try {
      check();
    } catch (const kz::Error& e) {
      if (std::string_view(e.what()).empty()) violated("a check threw an empty error", "");
    }
  };
  attempt([&] { (void)f.engine.resolved_threads(); });
  attempt([&] { (void)f.engine.k_type(); });
  attempt([&] { (void)f.engine.v_type(); });
  attempt([&] { (void)f.engine.session_params(); });
  attempt([&] { (void)f.spec.params(true); });
  attempt([&] {
    // A context given is taken as it is or refused, never silently replaced by the default.
    const int64_t n_ctx = f.engine.context_size(4096);
    if (p.parser.given("--ctx-size") && (n_ctx < 1 || n_ctx != f.engine.ctx))
      violated("--ctx-size not taken as given", std::to_string(n_ctx));
  });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::freopen("/dev/null", "w", stdout);  // --help prints the usage
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const std::vector<std::string> args = fuzz_argv(in);
  Parsed parsed;
  try {
    if (!parsed.parse(args)) return 0;
  } catch (const kz::Error& e) {
    const std::string message = e.what();
    if (message.empty() || message.find('\n') != std::string::npos)
      violated("a parse error that is not one line", message);
    if (!names_an_argument(message, args)) violated("a parse error naming no argument", message);
    return 0;
  }
  const std::vector<std::string> written = parsed.flags.written();
  Parsed again;
  try {
    if (!again.parse(written) || !(again.flags == parsed.flags))
      violated("the parsed values written back parse differently", written[0]);
  } catch (const kz::Error& e) {
    violated("the parsed values written back do not parse", e.what());
  }
  check_values(parsed);
  return 0;
}
