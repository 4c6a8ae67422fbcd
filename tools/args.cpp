#include "args.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "base/error.h"

namespace kz::cli {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);) out.push_back(item);
  return out;
}

// An argument as error messages show it: quoted, with control characters escaped (\n, \x01),
// so that the message stays on one line and shows what was typed.
std::string quoted(const std::string& arg) {
  std::string out = "'";
  for (const char c : arg) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += "0123456789abcdef"[byte >> 4];
      out += "0123456789abcdef"[byte & 15];
    } else {
      out += c;
    }
  }
  return out + "'";
}

template <class T>
T parse_number(const std::string& flag, const std::string& value) {
  T out{};
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, out);
  if (ec != std::errc() || ptr != end || value.empty())
    fail("invalid value ", quoted(value), " for ", flag);
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(out)) fail("invalid value ", quoted(value), " for ", flag);
  return out;
}

}  // namespace

ArgParser::ArgParser(std::string command, std::string summary)
    : command_(std::move(command)), summary_(std::move(summary)) {}

void ArgParser::add(const std::string& names, const std::string& value_name,
                    const std::string& help, Target target) {
  options_.push_back({split(names, ','), value_name, help, target, false, false});
}

void ArgParser::add_switch(const std::string& names, const std::string& help, bool* target) {
  options_.push_back({split(names, ','), "", help, target, true, false});
}

void ArgParser::add_positional(const std::string& name, const std::string& help,
                               std::string* target) {
  positional_names_.push_back({name, help});
  positional_.push_back(target);
}

ArgParser::Option* ArgParser::find(const std::string& name) {
  for (auto& o : options_)
    for (const auto& n : o.names)
      if (n == name) return &o;
  return nullptr;
}

bool ArgParser::given(const std::string& name) const {
  for (const auto& o : options_)
    for (const auto& n : o.names)
      if (n == name) return o.seen;
  return false;
}

void ArgParser::assign(Option& opt, const std::string& flag, const std::string& value) {
  std::visit(
      [&](auto* target) {
        using T = std::remove_pointer_t<decltype(target)>;
        if constexpr (std::is_same_v<T, std::string>)
          *target = value;
        else if constexpr (std::is_same_v<T, std::vector<std::string>>)
          target->push_back(value);
        else if constexpr (std::is_same_v<T, std::optional<int64_t>>)
          *target = parse_number<int64_t>(flag, value);
        else if constexpr (std::is_same_v<T, bool>)
          *target = true;
        else
          *target = parse_number<T>(flag, value);
      },
      opt.target);
}

bool ArgParser::parse(int argc, char** argv) {
  size_t next_positional = 0;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(help().c_str(), stdout);
      return false;
    }
    if (arg.size() > 1 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1]))) {
      std::string value;
      bool inline_value = false;
      if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        inline_value = true;
      }
      Option* opt = find(arg);
      if (!opt) fail(command_, ": unknown flag ", quoted(arg), " (see ", command_, " --help)");
      opt->seen = true;
      if (opt->is_switch) {
        if (inline_value) fail(command_, ": flag ", quoted(arg), " takes no value");
        *std::get<bool*>(opt->target) = true;
        continue;
      }
      if (!inline_value) {
        if (i + 1 >= argc) fail(command_, ": flag ", quoted(arg), " needs a value");
        value = argv[++i];
      }
      assign(*opt, arg, value);
      continue;
    }
    if (next_positional >= positional_.size())
      fail(command_, ": unexpected argument ", quoted(arg), " (see ", command_, " --help)");
    *positional_[next_positional++] = arg;
  }
  return true;
}

std::string ArgParser::help() const {
  std::ostringstream out;
  out << "usage: " << command_;
  for (const auto& [name, h] : positional_names_) out << " " << name;
  out << " [options]\n\n" << summary_ << "\n\noptions:\n";
  for (const auto& [name, h] : positional_names_) out << "  " << name << "\n      " << h << "\n";
  for (const auto& o : options_) {
    out << "  ";
    for (size_t i = 0; i < o.names.size(); ++i) out << (i ? ", " : "") << o.names[i];
    if (!o.is_switch) out << " " << o.value_name;
    out << "\n      " << o.help << "\n";
  }
  out << "  -h, --help\n      show this help\n";
  return out.str();
}

void add_quiet_switch(ArgParser& p, bool* quiet) {
  p.add_switch("--quiet",
               "no progress line (drawn on stderr only when it is a terminal; stdout is the same "
               "either way)",
               quiet);
}

std::vector<int32_t> parse_id_list(const std::string& flag, const std::string& text) {
  std::vector<int32_t> ids;
  for (const auto& item : split(text, ',')) ids.push_back(parse_number<int32_t>(flag, item));
  if (ids.empty()) fail("empty token list for ", flag);
  return ids;
}

}  // namespace kz::cli
