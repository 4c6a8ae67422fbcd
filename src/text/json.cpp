#include "text/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

#include "base/error.h"
#include "text/tokenizer_utf8.h"

namespace kz {
namespace {

constexpr int kMaxDepth = 256;  // deeper input is refused, not a stack overflow

bool is_integer_text(std::string_view number) {
  return number.find_first_of(".eE") == std::string_view::npos;
}

// Python's repr(float): the shortest digits that round-trip (as std::to_chars gives them), in
// fixed notation when the decimal exponent is in [-4, 16), else d.ddde±XX.
std::string python_float_repr(double d) {
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view s(buf, r.ptr - buf);  // [-]d[.ddd]e±XX
  std::string out;
  if (s.front() == '-') {
    out += '-';
    s.remove_prefix(1);
  }
  const size_t e = s.find('e');
  std::string digits(s.substr(0, e));
  if (digits.size() > 1) digits.erase(1, 1);  // the '.'
  int exponent = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+'), s.data() + s.size(), exponent);
  const int point = exponent + 1;  // digits before the decimal point
  const int n = int(digits.size());
  if (point <= -4 || point > 16) {
    out += digits[0];
    if (n > 1) out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + exp;
  }
  if (point <= 0) return out + "0." + std::string(-point, '0') + digits;
  if (point >= n) return out + digits + std::string(point - n, '0') + ".0";
  return out + digits.substr(0, point) + "." + digits.substr(point);
}

std::string canonical_number(const std::string& text) {
  if (is_integer_text(text)) return text == "-0" ? "0" : text;
  double d = 0;
  std::from_chars(text.data(), text.data() + text.size(), d);  // validated by the parser
  return python_float_repr(d);
}

}  // namespace

class JsonParser {
 public:
  JsonParser(std::string_view text, std::string_view what) : s_(text), what_(what) {}

  Json parse_document() {
    skip_space();
    Json v = value(0);
    skip_space();
    if (i_ != s_.size()) error("unexpected text after the value");
    return v;
  }

 private:
  template <class... Args>
  [[noreturn]] void error(Args&&... reason) const {
    size_t line = 1, column = 1;
    for (size_t k = 0; k < i_ && k < s_.size(); ++k) {
      if (s_[k] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    fail(what_, ": line ", line, ", column ", column, ": ", std::forward<Args>(reason)...);
  }

  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }

  bool consume(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  Json value(int depth) {
    if (depth > kMaxDepth) error("nested deeper than ", kMaxDepth, " levels");
    if (i_ == s_.size()) error("unexpected end of text, expected a value");
    const char c = s_[i_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return Json(string());
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    if (consume("true")) return Json(true);
    if (consume("false")) return Json(false);
    if (consume("null")) return Json();
    error("unexpected character '", std::string(1, c), "', expected a value");
  }

  Json object(int depth) {
    ++i_;  // '{'
    Json::Object members;
    skip_space();
    if (consume("}")) return Json::object(std::move(members));
    for (;;) {
      skip_space();
      if (i_ == s_.size() || s_[i_] != '"') error("expected a string key");
      const size_t key_at = i_;
      std::string key = string();
      for (const auto& m : members)
        if (m.first == key) {
          i_ = key_at;
          error("duplicate key \"", key, "\"");
        }
      skip_space();
      if (!consume(":")) error("expected ':' after a key");
      skip_space();
      members.emplace_back(std::move(key), value(depth + 1));
      skip_space();
      if (consume("}")) return Json::object(std::move(members));
      if (!consume(",")) error("expected ',' or '}' in an object");
    }
  }

  Json array(int depth) {
    ++i_;  // '['
    Json::Array items;
    skip_space();
    if (consume("]")) return Json::array(std::move(items));
    for (;;) {
      skip_space();
      items.push_back(value(depth + 1));
      skip_space();
      if (consume("]")) return Json::array(std::move(items));
      if (!consume(",")) error("expected ',' or ']' in an array");
    }
  }

  uint32_t hex4() {
    if (s_.size() - i_ < 4) error("truncated \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= c - '0';
      else if (c >= 'a' && c <= 'f')
        v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        v |= c - 'A' + 10;
      else
        error("invalid \\u escape");
    }
    return v;
  }

  std::string string() {
    ++i_;  // '"'
    std::string out;
    for (;;) {
      if (i_ == s_.size()) error("unterminated string");
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return out;
      }
      if (c < 0x20) error("control character in a string (must be escaped)");
      if (c != '\\') {
        size_t len = 0;
        if (next_utf8(s_.substr(i_), len) != Utf8Status::kComplete)
          error("invalid UTF-8 in a string");
        out.append(s_, i_, len);
        i_ += len;
        continue;
      }
      if (++i_ == s_.size()) error("unterminated string");
      const char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) error("lone low surrogate in a \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!consume("\\u")) error("lone high surrogate in a \\u escape");
            const uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) error("lone high surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          --i_;
          error("invalid escape '\\", std::string(1, e), "'");
      }
    }
  }

  Json number() {
    const size_t start = i_;
    auto digits = [&] {
      const size_t from = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ - from;
    };
    consume("-");
    if (consume("0")) {
      if (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') error("leading zero in a number");
    } else if (digits() == 0) {
      error("invalid number");
    }
    if (consume(".") && digits() == 0) error("expected digits after '.'");
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (!consume("+")) consume("-");
      if (digits() == 0) error("expected digits in the exponent");
    }
    Json out;
    out.v_ = Json::Number{std::string(s_.substr(start, i_ - start))};
    const std::string& text = std::get<Json::Number>(out.v_).text;
    if (!is_integer_text(text)) {
      double d;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), d);
      if (r.ec != std::errc()) {
        i_ = start;
        error("number out of range: ", text);
      }
    }
    return out;
  }

  std::string_view s_;
  std::string_view what_;
  size_t i_ = 0;
};

Json::Json(int64_t n) : v_(Number{std::to_string(n)}) {}

Json::Json(double d) {
  if (!std::isfinite(d)) fail("JSON: a number must be finite");
  v_ = Number{python_float_repr(d)};
}

Json Json::array(Array items) {
  Json j;
  j.v_ = std::move(items);
  return j;
}

Json Json::object(Object members) {
  Json j;
  j.v_ = std::move(members);
  return j;
}

namespace {
const char* type_name(Json::Type t) {
  static const char* const names[] = {"null", "boolean", "number", "string", "array", "object"};
  return names[int(t)];
}
}  // namespace

template <class T>
const T& Json::get(const char* expected) const {
  if (!std::holds_alternative<T>(v_))
    fail("JSON: expected ", expected, ", got ", type_name(type()));
  return std::get<T>(v_);
}

bool Json::as_bool() const {
  return get<bool>("a boolean");
}
const std::string& Json::number_text() const {
  return get<Number>("a number").text;
}
const std::string& Json::as_string() const {
  return get<std::string>("a string");
}
const Json::Array& Json::as_array() const {
  return get<Array>("an array");
}
Json::Array& Json::as_array() {
  return const_cast<Array&>(std::as_const(*this).as_array());
}
const Json::Object& Json::as_object() const {
  return get<Object>("an object");
}
Json::Object& Json::as_object() {
  return const_cast<Object&>(std::as_const(*this).as_object());
}

const Json* Json::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& m : as_object())
    if (m.first == key) return &m.second;
  return nullptr;
}

bool Json::operator==(const Json& other) const {
  if (type() != other.type()) return false;
  if (type() == Type::Number)
    return canonical_number(number_text()) == canonical_number(other.number_text());
  if (type() == Type::Null) return true;
  if (type() == Type::Bool) return as_bool() == other.as_bool();
  if (type() == Type::String) return as_string() == other.as_string();
  if (type() == Type::Array) return as_array() == other.as_array();
  return as_object() == other.as_object();
}

Json parse_json(std::string_view text, std::string_view what) {
  return JsonParser(text, what).parse_document();
}

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

namespace {
void write_json(std::string& out, const Json& v) {
  switch (v.type()) {
    case Json::Type::Null:
      out += "null";
      return;
    case Json::Type::Bool:
      out += v.as_bool() ? "true" : "false";
      return;
    case Json::Type::Number:
      out += canonical_number(v.number_text());
      return;
    case Json::Type::String:
      out += json_quote(v.as_string());
      return;
    case Json::Type::Array: {
      out += '[';
      bool first = true;
      for (const Json& item : v.as_array()) {
        if (!first) out += ", ";
        first = false;
        write_json(out, item);
      }
      out += ']';
      return;
    }
    case Json::Type::Object: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : v.as_object()) {
        if (!first) out += ", ";
        first = false;
        out += json_quote(key);
        out += ": ";
        write_json(out, value);
      }
      out += '}';
      return;
    }
  }
}
}  // namespace

std::string to_json_text(const Json& value) {
  std::string out;
  write_json(out, value);
  return out;
}

std::string to_python_str(const Json& value) {
  switch (value.type()) {
    case Json::Type::Null:
      return "None";
    case Json::Type::Bool:
      return value.as_bool() ? "True" : "False";
    case Json::Type::String:
      return value.as_string();
    default:
      return to_json_text(value);
  }
}

}  // namespace kz
