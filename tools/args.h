// Command-line flags in the style of llama.cpp's tools (-m, -p, -n, --temp ...). Each subcommand
// declares its flags with a target variable; unknown flags and malformed values are errors that
// name the flag.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kz::cli {

class ArgParser {
 public:
  ArgParser(std::string command, std::string summary);

  // names: comma-separated, e.g. "-m,--model". Values are parsed strictly (the whole string).
  // A vector target makes the flag repeatable: each occurrence appends its value; an optional
  // one tells a flag not given apart from every value it can take.
  using Target = std::variant<std::string*, int*, int64_t*, uint64_t*, float*, bool*,
                              std::vector<std::string>*, std::optional<int64_t>*>;
  void add(const std::string& names, const std::string& value_name, const std::string& help,
           Target target);
  void add_switch(const std::string& names, const std::string& help, bool* target);
  void add_positional(const std::string& name, const std::string& help, std::string* target);

  // Returns false if --help was given (help printed to stdout); throws kz::Error on bad flags.
  bool parse(int argc, char** argv);
  // True if the flag was given on the command line.
  bool given(const std::string& name) const;
  std::string help() const;

 private:
  struct Option {
    std::vector<std::string> names;
    std::string value_name, help;
    Target target;
    bool is_switch = false;
    bool seen = false;
  };
  Option* find(const std::string& name);
  void assign(Option& opt, const std::string& flag, const std::string& value);

  std::string command_, summary_;
  std::vector<Option> options_;
  std::vector<std::pair<std::string, std::string>> positional_names_;
  std::vector<std::string*> positional_;
};

// --quiet, for the commands that show progress (base/progress.h): no progress line.
void add_quiet_switch(ArgParser& p, bool* quiet);

// Parses "1,2,3" into token ids; throws naming the flag on a malformed list.
std::vector<int32_t> parse_id_list(const std::string& flag, const std::string& text);

}  // namespace kz::cli
