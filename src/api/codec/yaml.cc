#include "api/codec/yaml.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "api/codec/internal/json_writer.h"

namespace svcplane::api::codec {
namespace {

using internal::JsonWriter;

constexpr int kMaxDepth = 1000;

bool IsOneOf(const std::string& s, std::initializer_list<const char*> options) {
  for (const char* o : options) {
    if (s == o) return true;
  }
  return false;
}

// Writes a plain (unquoted) scalar with go-yaml v2's implicit typing.
void WritePlainScalar(JsonWriter& w, const std::string& s) {
  if (s.empty() || IsOneOf(s, {"~", "null", "Null", "NULL"})) return w.Null();
  if (IsOneOf(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "y", "Y", "on", "On", "ON"})) {
    return w.Bool(true);
  }
  if (IsOneOf(s, {"false", "False", "FALSE", "no", "No", "NO", "n", "N", "off", "Off", "OFF"})) {
    return w.Bool(false);
  }
  static const std::regex kInt("[-+]?(0|[1-9][0-9_]*)");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?)");
  static const std::regex kHex("0x[0-9a-fA-F_]+");
  static const std::regex kOctal("0o?[0-7_]+");
  std::string digits;
  for (char c : s) {
    if (c != '_') digits.push_back(c);
  }
  if (std::regex_match(s, kInt)) {
    int64_t v;
    const char* b = digits.data() + (digits[0] == '+' ? 1 : 0);
    auto r = std::from_chars(b, digits.data() + digits.size(), v);
    if (r.ec == std::errc()) return w.Int(v);
    return w.Raw(digits[0] == '+' ? digits.substr(1) : digits);  // big integers stay numbers
  }
  if (std::regex_match(s, kHex) || std::regex_match(s, kOctal)) {
    int base = s[1] == 'x' ? 16 : 8;
    size_t skip = (s[1] == 'x' || s[1] == 'o') ? 2 : 1;
    uint64_t v = std::strtoull(digits.c_str() + skip, nullptr, base);
    return w.Raw(std::to_string(v));
  }
  if (std::regex_match(s, kFloat)) {
    double d = std::strtod(digits.c_str(), nullptr);
    if (std::isfinite(d)) {
      std::string text = digits[0] == '+' ? digits.substr(1) : digits;
      if (text[0] == '.') text.insert(0, "0");
      if (text.size() > 1 && text[0] == '-' && text[1] == '.') text.insert(1, "0");
      if (text.back() == '.') text.push_back('0');
      auto epos = text.find_first_of("eE");
      if (epos != std::string::npos && epos > 0 && text[epos - 1] == '.') text.insert(epos, "0");
      return w.Raw(text);
    }
  }
  w.String(s);  // .inf/.nan and everything else: a string (JSON has no infinities)
}

Status WriteNode(JsonWriter& w, const YAML::Node& node, int depth) {
  if (depth > kMaxDepth) return BadRequestError("yaml: nested too deeply");
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      w.Null();
      return Status::Ok();
    case YAML::NodeType::Scalar:
      if (node.Tag() == "?") {
        WritePlainScalar(w, node.Scalar());
      } else {
        w.String(node.Scalar());  // quoted or explicitly tagged: a string
      }
      return Status::Ok();
    case YAML::NodeType::Sequence: {
      w.Char('[');
      bool first = true;
      for (const auto& item : node) {
        if (!first) w.Char(',');
        first = false;
        SVC_RETURN_IF_ERROR(WriteNode(w, item, depth + 1));
      }
      w.Char(']');
      return Status::Ok();
    }
    case YAML::NodeType::Map: {
      w.Char('{');
      bool first = true;
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return BadRequestError("yaml: mapping keys must be scalars (line " +
                                 std::to_string(kv.first.Mark().line + 1) + ")");
        }
        if (!first) w.Char(',');
        first = false;
        w.String(kv.first.Scalar());
        w.Char(':');
        SVC_RETURN_IF_ERROR(WriteNode(w, kv.second, depth + 1));
      }
      w.Char('}');
      return Status::Ok();
    }
  }
  return BadRequestError("yaml: unsupported node");
}

size_t IndentOf(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  return i;
}

// True when `line` (comments already cut) ends with a block scalar indicator: | or > with
// optional chomping/indentation modifiers.
bool OpensBlockScalar(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  while (!line.empty() &&
         (line.back() == '+' || line.back() == '-' || (line.back() >= '1' && line.back() <= '9'))) {
    line.remove_suffix(1);
  }
  if (line.empty() || (line.back() != '|' && line.back() != '>')) return false;
  line.remove_suffix(1);
  return line.empty() || line.back() == ' ' || line.back() == ':' || line.back() == '-';
}

// yaml-cpp 0.7 never returns (it allocates nodes until memory runs out) when a flow entry ','
// starts a token outside any flow collection: ",x", "- a\n,b", "[1],", "'x',". Such input is
// never valid YAML (a plain scalar cannot start with ','), so find it first and refuse it.
// Quoted strings, comments and block scalar contents are skipped.
Status CheckStrayFlowEntry(std::string_view yaml) {
  int depth = 0;            // [ { nesting
  char quote = 0;           // inside '...' or "..."
  bool after_node = false;  // a quoted scalar or flow collection just closed on this line
  size_t block_indent = std::string_view::npos;  // inside a block scalar indented more than this
  size_t line_no = 1, pos = 0;
  while (pos <= yaml.size()) {
    size_t end = yaml.find('\n', pos);
    if (end == std::string_view::npos) end = yaml.size();
    std::string_view line = yaml.substr(pos, end - pos);
    size_t indent = IndentOf(line);
    const bool blank = indent == line.size();
    if (block_indent != std::string_view::npos && quote == 0) {
      if (blank || indent > block_indent) {
        pos = end + 1;
        ++line_no;
        continue;
      }
      block_indent = std::string_view::npos;
    }
    bool token_start = true;  // only whitespace so far on this line
    after_node = false;
    size_t cut = line.size();  // where a comment starts
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (quote != 0) {
        if (quote == '"' && c == '\\') {
          ++i;
        } else if (c == quote) {
          if (quote == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
            ++i;
          } else {
            quote = 0;
            if (depth == 0) after_node = true;
          }
        }
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') continue;
      if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
        cut = i;
        break;
      }
      if (c == ',' && depth == 0 && (token_start || after_node)) {
        return BadRequestError("yaml: line " + std::to_string(line_no) + ", column " +
                               std::to_string(i + 1) +
                               ": did not find expected node content (stray ',')");
      }
      if ((c == '"' || c == '\'') && (token_start || depth > 0 || (i > 0 && line[i - 1] == ' '))) {
        quote = c;
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if ((c == ']' || c == '}') && depth > 0) {
        if (--depth == 0) after_node = true;
        token_start = false;
        continue;
      } else {
        after_node = false;
      }
      token_start = false;
    }
    if (quote == 0 && depth == 0 && OpensBlockScalar(line.substr(0, cut))) block_indent = indent;
    pos = end + 1;
    ++line_no;
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> YamlToJson(std::string_view yaml) {
  SVC_RETURN_IF_ERROR(CheckStrayFlowEntry(yaml));
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return BadRequestError("yaml: line " + std::to_string(e.mark.line + 1) + ", column " +
                           std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  std::vector<std::string> out;
  for (const auto& doc : docs) {
    if (!doc.IsDefined() || doc.IsNull()) continue;  // empty document between `---`
    std::string json;
    JsonWriter w(&json);
    try {
      SVC_RETURN_IF_ERROR(WriteNode(w, doc, 0));
    } catch (const YAML::Exception& e) {
      return BadRequestError("yaml: " + e.msg);
    }
    out.push_back(std::move(json));
  }
  return out;
}

}  // namespace svcplane::api::codec
