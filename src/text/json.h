// A small, strict JSON value for tool definitions and tool-call arguments: parsed from text
// (RFC 8259 only: no comments, no trailing commas, no NaN, no duplicate keys, valid UTF-8, no lone
// surrogates), kept in the order given, and written back the way the chat templates' `tojson`
// writes it. The engine needs no JSON library; this is all it reads and writes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kz {

class Json {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };
  using Array = std::vector<Json>;
  using Member = std::pair<std::string, Json>;
  using Object = std::vector<Member>;  // in the order given

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool b) : v_(b) {}
  Json(int64_t n);
  Json(int n) : Json(int64_t(n)) {}
  Json(double d);  // finite only (kz::Error otherwise)
  Json(std::string s) : v_(std::move(s)) {}
  Json(std::string_view s) : v_(std::string(s)) {}
  Json(const char* s) : v_(std::string(s)) {}
  static Json array(Array items = {});
  static Json object(Object members = {});

  Type type() const { return Type(v_.index()); }
  bool is_null() const { return type() == Type::Null; }
  bool is_string() const { return type() == Type::String; }
  bool is_array() const { return type() == Type::Array; }
  bool is_object() const { return type() == Type::Object; }

  // Accessors throw kz::Error on a value of another type.
  bool as_bool() const;
  const std::string& number_text() const;  // as written, e.g. "1.50e2"
  const std::string& as_string() const;
  const Array& as_array() const;
  Array& as_array();
  const Object& as_object() const;
  Object& as_object();
  // An object's member, or nullptr.
  const Json* find(std::string_view key) const;

  bool operator==(const Json& other) const;  // same type, members and order; numbers by value

 private:
  struct Number {
    std::string text;
  };
  std::variant<std::monostate, bool, Number, std::string, Array, Object> v_;
  template <class T>
  const T& get(const char* expected) const;
  friend Json parse_json(std::string_view, std::string_view);
  friend class JsonParser;
};

// Parses one JSON value (surrounding whitespace allowed). Throws kz::Error
// "WHAT: line L, column C: REASON" (columns count bytes).
Json parse_json(std::string_view text, std::string_view what = "JSON");

// The text of Jinja's `tojson` as the models' templates are rendered by Hugging Face transformers
// (python3-jinja2 with transformers' tojson: json.dumps(value, ensure_ascii=False)) and by
// llama.cpp: keys in the order given, ", " and ": " as separators, non-ASCII written as UTF-8,
// only '"', '\\' and control characters escaped (\n \r \t \b \f, others \u00XX). Plain Jinja2's
// own tojson would differ (sorted keys, \uXXXX for non-ASCII and for < > & '); the models were
// trained on the former. Numbers are written as Python writes the value it parsed: integers in
// full, other numbers as repr(float) (shortest round trip; 1e2 -> 100.0, 1e16 -> 1e+16).
std::string to_json_text(const Json& value);

// Python's str() of the value, as Jinja's `string` filter writes scalars: strings as they are,
// True / False / None, numbers as above; arrays and objects as to_json_text.
std::string to_python_str(const Json& value);

// A JSON string literal of s (the escaping of to_json_text).
std::string json_quote(std::string_view s);

}  // namespace kz
