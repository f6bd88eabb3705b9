#include "api/codec/yaml.h"

#include <yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <regex>

#include "api/codec/internal/json_writer.h"
#include "api/validation/field_errors.h"

// libyaml rather than yaml-cpp: yaml-cpp 0.7 (Debian bookworm) never returns on some malformed
// input (",x", "{ 1\",..."), allocating until memory runs out; our fuzzer found two such
// inputs. libyaml is the parser PyYAML uses and is continuously fuzzed by OSS-Fuzz.

namespace svcplane::api::codec {
namespace {

using internal::JsonWriter;

constexpr int kMaxDepth = 1000;
// Aliases can make a small document expand enormously ("billion laughs"); bodies are at most
// 3 MiB, so anything expanding past this is an attack, not a manifest.
constexpr size_t kMaxOutput = 64u << 20;

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

Status WriteNode(JsonWriter& w, yaml_document_t* doc, yaml_node_t* node, int depth) {
  if (node == nullptr) {
    w.Null();
    return Status::Ok();
  }
  if (depth > kMaxDepth) return BadRequestError("yaml: nested too deeply");
  if (w.buffer()->size() > kMaxOutput) {
    return BadRequestError("yaml: document expands beyond 64 MiB (alias expansion?)");
  }
  switch (node->type) {
    case YAML_SCALAR_NODE: {
      std::string value(reinterpret_cast<const char*>(node->data.scalar.value),
                        node->data.scalar.length);
      if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        WritePlainScalar(w, value);
      } else {
        w.String(value);  // quoted or block scalar: a string
      }
      return Status::Ok();
    }
    case YAML_SEQUENCE_NODE: {
      w.Char('[');
      bool first = true;
      for (yaml_node_item_t* it = node->data.sequence.items.start;
           it < node->data.sequence.items.top; ++it) {
        if (!first) w.Char(',');
        first = false;
        SVC_RETURN_IF_ERROR(WriteNode(w, doc, yaml_document_get_node(doc, *it), depth + 1));
      }
      w.Char(']');
      return Status::Ok();
    }
    case YAML_MAPPING_NODE: {
      w.Char('{');
      bool first = true;
      for (yaml_node_pair_t* p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
           ++p) {
        yaml_node_t* key = yaml_document_get_node(doc, p->key);
        if (key == nullptr || key->type != YAML_SCALAR_NODE) {
          return BadRequestError("yaml: mapping keys must be scalars (line " +
                                 std::to_string(key ? key->start_mark.line + 1 : 0) + ")");
        }
        if (!first) w.Char(',');
        first = false;
        w.String(std::string_view(reinterpret_cast<const char*>(key->data.scalar.value),
                                  key->data.scalar.length));
        w.Char(':');
        SVC_RETURN_IF_ERROR(WriteNode(w, doc, yaml_document_get_node(doc, p->value), depth + 1));
      }
      w.Char('}');
      return Status::Ok();
    }
    case YAML_NO_NODE:
      break;
  }
  w.Null();
  return Status::Ok();
}

// libyaml composes nodes recursively; keep flow nesting (the only cheap way to nest deeply)
// within bounds before handing it the text.
Status CheckFlowDepth(std::string_view yaml) {
  int depth = 0;
  for (char c : yaml) {
    if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return BadRequestError("yaml: nested too deeply");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return Status::Ok();
}

struct Parser {
  yaml_parser_t p;
  Parser() { yaml_parser_initialize(&p); }
  ~Parser() { yaml_parser_delete(&p); }
};

struct Document {
  yaml_document_t d;
  bool loaded = false;
  ~Document() {
    if (loaded) yaml_document_delete(&d);
  }
};

void CollectDuplicateKeys(yaml_document_t* doc, yaml_node_t* node, int depth,
                          std::vector<std::string>* out) {
  if (node == nullptr || depth > kMaxDepth) return;
  if (node->type == YAML_SEQUENCE_NODE) {
    for (yaml_node_item_t* it = node->data.sequence.items.start; it < node->data.sequence.items.top;
         ++it) {
      CollectDuplicateKeys(doc, yaml_document_get_node(doc, *it), depth + 1, out);
    }
    return;
  }
  if (node->type != YAML_MAPPING_NODE) return;
  std::vector<std::string_view> seen;
  for (yaml_node_pair_t* p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
       ++p) {
    yaml_node_t* key = yaml_document_get_node(doc, p->key);
    if (key != nullptr && key->type == YAML_SCALAR_NODE) {
      std::string_view k(reinterpret_cast<const char*>(key->data.scalar.value),
                         key->data.scalar.length);
      if (std::find(seen.begin(), seen.end(), k) != seen.end()) {
        out->push_back("line " + std::to_string(key->start_mark.line + 1) + ": key " +
                       validation::GoQuote(k) + " already set in map");
      } else {
        seen.push_back(k);
      }
    }
    CollectDuplicateKeys(doc, yaml_document_get_node(doc, p->value), depth + 1, out);
  }
}

}  // namespace

std::vector<std::string> YamlDuplicateKeys(std::string_view yaml) {
  std::vector<std::string> out;
  if (!CheckFlowDepth(yaml).ok()) return out;
  Parser parser;
  yaml_parser_set_input_string(&parser.p, reinterpret_cast<const unsigned char*>(yaml.data()),
                               yaml.size());
  while (true) {
    Document doc;
    if (!yaml_parser_load(&parser.p, &doc.d)) return out;
    doc.loaded = true;
    yaml_node_t* root = yaml_document_get_root_node(&doc.d);
    if (root == nullptr) break;
    CollectDuplicateKeys(&doc.d, root, 0, &out);
  }
  return out;
}

Result<std::vector<std::string>> YamlToJson(std::string_view yaml) {
  SVC_RETURN_IF_ERROR(CheckFlowDepth(yaml));
  Parser parser;
  yaml_parser_set_input_string(&parser.p, reinterpret_cast<const unsigned char*>(yaml.data()),
                               yaml.size());
  std::vector<std::string> out;
  while (true) {
    Document doc;
    if (!yaml_parser_load(&parser.p, &doc.d)) {
      const auto& mark = parser.p.problem_mark;
      return BadRequestError("yaml: line " + std::to_string(mark.line + 1) + ", column " +
                             std::to_string(mark.column + 1) + ": " +
                             (parser.p.problem ? parser.p.problem : "invalid YAML"));
    }
    doc.loaded = true;
    yaml_node_t* root = yaml_document_get_root_node(&doc.d);
    if (root == nullptr) break;  // end of the stream
    if (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0 &&
        root->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
      continue;  // an empty document between `---` separators
    }
    std::string json;
    JsonWriter w(&json);
    SVC_RETURN_IF_ERROR(WriteNode(w, &doc.d, root, 0));
    out.push_back(std::move(json));
  }
  return out;
}

}  // namespace svcplane::api::codec
