#include "backend/op_filter.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/read_file.h"

namespace kz {
namespace {

bool is_type_param(std::string_view key) {
  return key == "type" || key == "k_type" || key == "v_type";
}

// A parameter value as shapes print it: a type name in lower case, or a positive integer.
std::string normalized_value(std::string_view entry, std::string_view key, std::string_view v) {
  if (is_type_param(key)) {
    DType t;
    if (!dtype_from_name(v, &t))
      fail("op filter entry '", entry, "': unknown type '", v, "' for ", key);
    return std::string(dtype_name(t));
  }
  const bool digits =
      !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || v.size() > 18)
    fail("op filter entry '", entry, "': ", key, " must be a whole number, got '", v, "'");
  return std::to_string(std::stoll(std::string(v)));
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

OpFilterEntry parse_entry(std::string_view text) {
  const std::vector<std::string_view> parts = split(text, ':');
  OpFilterEntry e;
  std::string_view head = parts[0];
  if (const size_t at = head.find('@'); at != std::string_view::npos) {
    const std::string_view phase = head.substr(at + 1);
    if (phase == "prompt")
      e.phase = Phase::Prompt;
    else if (phase == "token")
      e.phase = Phase::Token;
    else
      fail("op filter entry '", text, "': unknown phase '", phase, "' (expected prompt or token)");
    head = head.substr(0, at);
  }
  const OpKind* kind = find_op_kind(head);
  if (!kind) {
    std::string known;
    for (const OpKind& k : op_kinds()) known += (known.empty() ? "" : ", ") + std::string(k.name);
    fail("op filter entry '", text, "': unknown op kind '", head, "' (known: ", known, ")");
  }
  e.kind = std::string(head);
  for (size_t i = 1; i < parts.size(); ++i) {
    const size_t eq = parts[i].find('=');
    if (eq == std::string_view::npos || eq == 0)
      fail("op filter entry '", text, "': expected key=value, got '", parts[i], "'");
    const std::string_view key = parts[i].substr(0, eq);
    if (std::find(kind->params.begin(), kind->params.end(), key) == kind->params.end()) {
      std::string known;
      for (auto p : kind->params) known += (known.empty() ? "" : ", ") + std::string(p);
      fail("op filter entry '", text, "': ", e.kind, " has no parameter '", key, "' (it has ",
           known, ")");
    }
    for (const auto& [k, v] : e.params)
      if (k == key) fail("op filter entry '", text, "': parameter '", key, "' given twice");
    e.params.emplace_back(std::string(key), normalized_value(text, key, parts[i].substr(eq + 1)));
  }
  return e;
}

}  // namespace

bool OpFilterEntry::matches(const OpShape& shape) const {
  if (shape.kind != kind || (phase && *phase != shape.phase)) return false;
  for (const auto& param : params) {  // (clang 14 cannot capture a structured binding)
    const auto it = std::find_if(shape.params.begin(), shape.params.end(),
                                 [&](const auto& p) { return p.first == param.first; });
    if (it == shape.params.end() || it->second != param.second) return false;
  }
  return true;
}

std::string OpFilterEntry::to_string() const {
  // Appended in place, without temporary strings.
  std::string s = kind;
  if (phase) s.append("@").append(phase_name(*phase));
  for (const auto& [key, value] : params) s.append(":").append(key).append("=").append(value);
  return s;
}

OpFilterEntry OpFilterEntry::of(const OpShape& shape) {
  return {shape.kind, shape.phase, shape.params};
}

OpFilter OpFilter::parse(std::string_view text) {
  OpFilter f;
  if (text == "none") return f;  // how to_string prints an empty filter
  std::string cleaned;           // comments dropped, separators made spaces
  for (const std::string_view line : split(text, '\n')) {
    std::string l(line.substr(0, line.find('#')));
    std::replace_if(
        l.begin(), l.end(), [](char c) { return c == ',' || c == '\t' || c == '\r'; }, ' ');
    cleaned += l + " ";
  }
  std::istringstream in(cleaned);
  for (std::string entry; in >> entry;) f.add(parse_entry(entry));
  return f;
}

OpFilter OpFilter::from_arg(const std::string& list_or_file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(list_or_file, ec)) return parse(list_or_file);
  const std::string text = read_file(list_or_file, "op filter");
  try {
    return parse(text);
  } catch (const Error& e) {
    fail(list_or_file, ": ", e.what());
  }
}

void OpFilter::save(const std::string& path, const std::string& header) const {
  std::ostringstream out;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) out << "# " << line << "\n";
  for (const OpFilterEntry& e : entries_) out << e.to_string() << "\n";
  write_file_atomically(path, out.str(), "the op filter");
}

bool OpFilter::matches(const OpShape& shape) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const OpFilterEntry& e) { return e.matches(shape); });
}

void OpFilter::add(OpFilterEntry e) {
  for (const OpFilterEntry& have : entries_)
    if (have.to_string() == e.to_string()) return;
  entries_.push_back(std::move(e));
}

std::string OpFilter::to_string() const {
  if (entries_.empty()) return "none";
  std::string s;
  for (const OpFilterEntry& e : entries_) {
    if (!s.empty()) s += ',';
    s += e.to_string();
  }
  return s;
}

}  // namespace kz
