// The strict JSON reader and the `tojson` writer: writing is compared with Python's
// json.dumps(ensure_ascii=False), the writer of the templates' tojson (tests/text/chat_render.py).
#include "text/json.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "base/error.h"
#include "testing/files.h"

namespace kz {
namespace {

namespace fs = std::filesystem;

std::string parse_error(std::string_view text) {
  try {
    parse_json(text, "input");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Json, ParsesValuesInOrder) {
  const Json v = parse_json(R"( {"z": 1, "a": [true, false, null], "m": {"k": "v"}} )");
  ASSERT_TRUE(v.is_object());
  const Json::Object& o = v.as_object();
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(o[0].first, "z");
  EXPECT_EQ(o[1].first, "a");
  EXPECT_EQ(o[2].first, "m");
  EXPECT_EQ(o[0].second.number_text(), "1");
  EXPECT_EQ(o[1].second.as_array().size(), 3u);
  EXPECT_TRUE(o[1].second.as_array()[0].as_bool());
  EXPECT_TRUE(o[1].second.as_array()[2].is_null());
  EXPECT_EQ(v.find("m")->find("k")->as_string(), "v");
  EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(Json, DecodesEscapes) {
  EXPECT_EQ(parse_json(R"("a\"b\\c\/d\b\f\n\r\t")").as_string(), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(parse_json(R"("\u00e9\u4f60\ud83d\ude42")").as_string(), "é你🙂");
  EXPECT_EQ(parse_json("\"raw é 你 🙂\"").as_string(), "raw é 你 🙂");
}

TEST(Json, RejectsWithLineAndColumn) {
  EXPECT_EQ(parse_error(""), "input: line 1, column 1: unexpected end of text, expected a value");
  EXPECT_EQ(parse_error("{\"a\": 1,}"), "input: line 1, column 9: expected a string key");
  EXPECT_EQ(parse_error("[1, 2"), "input: line 1, column 6: expected ',' or ']' in an array");
  EXPECT_EQ(parse_error("{\"a\": 1,\n \"a\": 2}"), "input: line 2, column 2: duplicate key \"a\"");
  EXPECT_EQ(parse_error("01"), "input: line 1, column 2: leading zero in a number");
  EXPECT_EQ(parse_error("1."), "input: line 1, column 3: expected digits after '.'");
  EXPECT_EQ(parse_error("1e400"), "input: line 1, column 1: number out of range: 1e400");
  EXPECT_EQ(parse_error("NaN"),
            "input: line 1, column 1: unexpected character 'N', expected a value");
  EXPECT_EQ(parse_error("\"\\ud800\""),
            "input: line 1, column 8: lone high surrogate in a \\u escape");
  EXPECT_EQ(parse_error("\"\\udc00\""),
            "input: line 1, column 8: lone low surrogate in a \\u escape");
  EXPECT_EQ(parse_error("\"a\nb\""),
            "input: line 1, column 3: control character in a string (must be escaped)");
  EXPECT_EQ(parse_error("\"\xC3(\""), "input: line 1, column 2: invalid UTF-8 in a string");
  EXPECT_EQ(parse_error("\"\\x\""), "input: line 1, column 3: invalid escape '\\x'");
  EXPECT_EQ(parse_error("true false"), "input: line 1, column 6: unexpected text after the value");
  EXPECT_EQ(parse_error("// c\n1"),
            "input: line 1, column 1: unexpected character '/', expected a value");
  EXPECT_EQ(parse_error(std::string(300, '[') + std::string(300, ']')),
            "input: line 1, column 258: nested deeper than 256 levels");
}

TEST(Json, AccessorsNameTheType) {
  try {
    parse_json("[1]").as_object();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "JSON: expected an object, got array");
  }
}

TEST(Json, BuildsValuesInCpp) {
  const Json v = Json::object(
      {{"i", 42}, {"d", 0.1}, {"b", false}, {"n", nullptr}, {"s", "x"}, {"a", Json::array({1})}});
  EXPECT_EQ(to_json_text(v), R"({"i": 42, "d": 0.1, "b": false, "n": null, "s": "x", "a": [1]})");
  EXPECT_EQ(v, parse_json(to_json_text(v)));
  EXPECT_EQ(parse_json("100.0"), parse_json("1e2"));  // numbers compare by value
  EXPECT_FALSE(parse_json("[1, 2]") == parse_json("[2, 1]"));
  EXPECT_FALSE(parse_json(R"({"a": 1, "b": 2})") == parse_json(R"({"b": 2, "a": 1})"));
}

TEST(Json, PythonStr) {
  EXPECT_EQ(to_python_str(parse_json("true")), "True");
  EXPECT_EQ(to_python_str(parse_json("false")), "False");
  EXPECT_EQ(to_python_str(parse_json("null")), "None");
  EXPECT_EQ(to_python_str(parse_json("\"a \\\"b\\\"\"")), "a \"b\"");
  EXPECT_EQ(to_python_str(parse_json("[1, \"x\"]")), "[1, \"x\"]");
}

using testing::read_text;

// Every value's to_json_text equals what Python's json.dumps(json.loads(text),
// ensure_ascii=False) writes: numbers (int in full, float as repr), escapes, non-ASCII, order.
TEST(Json, WritesAsPythonDoes) {
  const std::vector<std::string> values = {
      "0",
      "-0",
      "7",
      "-12",
      "12345678901234567890123",
      "1.0",
      "1.50",
      "-0.0",
      "0.1",
      "1e2",
      "1E+2",
      "2.5e-3",
      "1e-4",
      "1e-5",
      "0.0001",
      "0.00001234",
      "123456789012345.6",
      "1234567890123456.0",
      "12345678901234567.0",
      "1e15",
      "1e16",
      "1e17",
      "1.7976931348623157e308",
      "5e-324",
      "3.141592653589793",
      "1e22",
      "-1.5e300",
      "0.30000000000000004",
      "100e-2",
      R"("plain")",
      R"("quote \" backslash \\ slash \/ nl \n cr \r tab \t bs \b ff \f")",
      R"("ctl \u0001 \u001f del )"
      "\x7f"
      R"( nul \u0000")",
      R"("<b>&'</b> \u2028 \u00e9 é 你 🙂")",
      R"({"z": {"b": [1, 2.0, {"c": null}], "a": true}, "y": [], "x": {}})",
      R"([[], [[]], {"k": [false]}])"};
  char dir_template[] = "/tmp/kz_json_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const fs::path dir = dir_template;
  {
    std::ofstream in(dir / "values.txt", std::ios::binary);
    for (const std::string& v : values) in << v << "\n";
  }
  const std::string command =
      "/usr/bin/python3 -c 'import json,sys\n"
      "for line in open(sys.argv[1], encoding=\"utf-8\"):\n"
      "    sys.stdout.write(json.dumps(json.loads(line), ensure_ascii=False) + \"\\n\")' '" +
      (dir / "values.txt").string() + "' > '" + (dir / "python.txt").string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::istringstream python(read_text(dir / "python.txt"));
  for (const std::string& v : values) {
    std::string expected;
    ASSERT_TRUE(std::getline(python, expected)) << v;
    EXPECT_EQ(to_json_text(parse_json(v)), expected) << v;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kz
