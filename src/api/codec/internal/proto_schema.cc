#include "api/codec/internal/proto_schema.h"

#include <algorithm>
#include <cctype>

#include "base/check.h"

namespace svcplane::api::codec::internal {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool ScalarType(std::string_view t, ProtoType* out) {
  static const std::pair<std::string_view, ProtoType> kTypes[] = {
      {"double", ProtoType::kDouble},     {"float", ProtoType::kFloat},
      {"int64", ProtoType::kInt64},       {"uint64", ProtoType::kUint64},
      {"int32", ProtoType::kInt32},       {"uint32", ProtoType::kUint32},
      {"sint32", ProtoType::kSint32},     {"sint64", ProtoType::kSint64},
      {"fixed64", ProtoType::kFixed64},   {"fixed32", ProtoType::kFixed32},
      {"sfixed64", ProtoType::kSfixed64}, {"sfixed32", ProtoType::kSfixed32},
      {"bool", ProtoType::kBool},         {"string", ProtoType::kString},
      {"bytes", ProtoType::kBytes},
  };
  for (const auto& [name, type] : kTypes) {
    if (name == t) {
      *out = type;
      return true;
    }
  }
  return false;
}

// A type reference as written in package `pkg`: ".a.b.C" is absolute, "C" is in pkg.
std::string Qualify(std::string_view t, std::string_view pkg) {
  if (!t.empty() && t.front() == '.') return std::string(t.substr(1));
  return std::string(pkg) + "." + std::string(t);
}

Special SpecialOf(std::string_view full_name) {
  if (full_name == "k8s.io.apimachinery.pkg.apis.meta.v1.Time") return Special::kTime;
  if (full_name == "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime") return Special::kMicroTime;
  if (full_name == "k8s.io.apimachinery.pkg.util.intstr.IntOrString") return Special::kIntOrString;
  if (full_name == "k8s.io.apimachinery.pkg.api.resource.Quantity") return Special::kQuantity;
  if (full_name == "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1" ||
      full_name == "k8s.io.apimachinery.pkg.runtime.RawExtension") {
    return Special::kRawJson;
  }
  return Special::kNone;
}

}  // namespace

Result<std::unique_ptr<ProtoSchema>> ProtoSchema::Parse(
    const std::vector<std::string_view>& files) {
  auto schema = std::make_unique<ProtoSchema>();
  for (std::string_view text : files) {
    std::string pkg;
    ProtoMessage* current = nullptr;
    size_t line_no = 0;
    while (!text.empty()) {
      size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
      ++line_no;
      bool inline_json = false;
      if (size_t c = line.find("//"); c != std::string_view::npos) {
        inline_json = line.substr(c).find("+inline") != std::string_view::npos;
        line = line.substr(0, c);
      }
      line = Trim(line);
      if (line.empty()) continue;
      auto error = [&](std::string_view what) {
        return Status(Code::kInternal, "proto schema line " + std::to_string(line_no) + ": " +
                                           std::string(what) + ": " + std::string(line));
      };
      if (line.starts_with("syntax") || line.starts_with("import") || line.starts_with("option ")) {
        continue;
      }
      if (line.starts_with("package ")) {
        pkg = std::string(Trim(line.substr(8, line.size() - 9)));
        continue;
      }
      if (line.starts_with("message ")) {
        if (current) return error("nested messages are not supported");
        std::string_view name = Trim(line.substr(8, line.find('{') - 8));
        auto msg = std::make_unique<ProtoMessage>();
        msg->full_name = pkg + "." + std::string(name);
        msg->special = SpecialOf(msg->full_name);
        current = msg.get();
        schema->messages_[msg->full_name] = std::move(msg);
        continue;
      }
      if (line == "}") {
        if (!current) return error("unbalanced }");
        current = nullptr;
        continue;
      }
      if (!current || line.back() != ';') return error("unexpected line");
      // [optional|repeated] TYPE NAME = NUMBER;   or   map<K, V> NAME = NUMBER;
      ProtoField f;
      f.inline_json = inline_json;
      std::string_view rest = line.substr(0, line.size() - 1);
      std::string_view type;
      if (rest.starts_with("map<")) {
        size_t close = rest.find('>');
        if (close == std::string_view::npos) return error("bad map");
        std::string_view kv = rest.substr(4, close - 4);
        size_t comma = kv.find(',');
        if (comma == std::string_view::npos) return error("bad map");
        if (!ScalarType(Trim(kv.substr(0, comma)), &f.key_type)) return error("bad map key");
        type = Trim(kv.substr(comma + 1));
        f.is_map = true;
        f.repeated = true;
        rest = Trim(rest.substr(close + 1));
      } else {
        if (rest.starts_with("repeated ")) {
          f.repeated = true;
          rest = rest.substr(9);
        } else if (rest.starts_with("optional ")) {
          rest = rest.substr(9);
        }
        rest = Trim(rest);
        size_t sp = rest.find(' ');
        if (sp == std::string_view::npos) return error("missing field name");
        type = rest.substr(0, sp);
        rest = Trim(rest.substr(sp));
      }
      size_t eq = rest.find('=');
      if (eq == std::string_view::npos) return error("missing field number");
      f.name = std::string(Trim(rest.substr(0, eq)));
      std::string_view num = Trim(rest.substr(eq + 1));
      uint32_t n = 0;
      for (char ch : num) {
        if (ch < '0' || ch > '9' || n > 100000000) return error("bad field number");
        n = n * 10 + static_cast<uint32_t>(ch - '0');
      }
      if (n == 0 || f.name.empty()) return error("bad field");
      f.number = n;
      if (!ScalarType(type, &f.type)) {
        f.type = ProtoType::kMessage;
        f.type_name = Qualify(type, pkg);
      }
      current->fields.push_back(std::move(f));
    }
    if (current) return Status(Code::kInternal, "proto schema: unterminated message");
  }
  // Link type references and build the lookup indexes.
  for (auto& [name, msg] : schema->messages_) {
    uint32_t max = 0;
    for (auto& f : msg->fields) {
      if (f.type == ProtoType::kMessage) {
        f.message = schema->Find(f.type_name);
        if (!f.message) {
          return Status(Code::kInternal,
                        "proto schema: " + name + "." + f.name + ": unknown type " + f.type_name);
        }
      }
      max = std::max(max, f.number);
    }
    msg->by_number.assign(max + 1, -1);
    for (size_t i = 0; i < msg->fields.size(); ++i) {
      msg->by_number[msg->fields[i].number] = static_cast<int16_t>(i);
      msg->by_name.emplace(msg->fields[i].name, static_cast<int>(i));
      msg->number_order.push_back(static_cast<int16_t>(i));
    }
    std::sort(msg->number_order.begin(), msg->number_order.end(),
              [m = msg.get()](int16_t a, int16_t b) {
                return m->fields[a].number < m->fields[b].number;
              });
  }
  return schema;
}

const ProtoMessage* ProtoSchema::Find(std::string_view full_name) const {
  auto it = messages_.find(std::string(full_name));
  return it == messages_.end() ? nullptr : it->second.get();
}

const ProtoSchema& ProtoSchema::Builtin() {
  static const ProtoSchema* schema = [] {
    auto parsed = Parse(EmbeddedProtoFiles());
    SVC_CHECK(parsed.ok()) << "embedded proto schema: " << parsed.status().message();
    return parsed->release();
  }();
  return *schema;
}

}  // namespace svcplane::api::codec::internal
