#include "api/codec/strict.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "api/codec/internal/json_writer.h"
#include "api/codec/internal/padded_parser.h"
#include "api/codec/internal/proto_schema.h"
#include "api/validation/field_errors.h"

namespace svcplane::api::codec {
namespace {

namespace od = simdjson::ondemand;
using internal::ProtoField;
using internal::ProtoMessage;
using internal::ProtoSchema;
using internal::Special;

constexpr size_t kMaxErrors = 100;  // upstream stops saving strict errors there

// A message's JSON members with Go's inline structs flattened into their parent, each with its
// own slot for duplicate detection. Built once for the whole schema; immutable afterwards.
struct FlatMessage {
  struct Member {
    const ProtoField* field = nullptr;     // nullptr: kind/apiVersion at the top (TypeMeta)
    const FlatMessage* message = nullptr;  // for message fields without a custom JSON form
  };
  std::vector<Member> members;

  void Add(std::string_view name, Member m) {
    if (Find(name) >= 0) return;
    names_.push_back(name);
    members.push_back(m);
    Rehash();
  }
  // The member index of `name`, or -1. An open-addressing table on a cheap hash (length and
  // two bytes): every key of every object goes through here, so no general-purpose hashing.
  int Find(std::string_view name) const {
    if (slots_.empty()) return -1;
    const size_t mask = slots_.size() - 1;
    for (size_t i = Hash(name) & mask;; i = (i + 1) & mask) {
      int16_t idx = slots_[i];
      if (idx < 0) return -1;
      if (names_[idx] == name) return idx;
    }
  }

 private:
  static size_t Hash(std::string_view s) {
    if (s.empty()) return 0;
    return s.size() * 131 + static_cast<unsigned char>(s[0]) * 31 +
           static_cast<unsigned char>(s[s.size() / 2]) * 7 + static_cast<unsigned char>(s.back());
  }
  void Rehash() {
    size_t n = 8;
    while (n < names_.size() * 4) n *= 2;  // load <= 1/4: short probes
    slots_.assign(n, -1);
    for (size_t idx = 0; idx < names_.size(); ++idx) {
      size_t i = Hash(names_[idx]) & (n - 1);
      while (slots_[i] >= 0) i = (i + 1) & (n - 1);
      slots_[i] = static_cast<int16_t>(idx);
    }
  }

  std::vector<std::string_view> names_;
  std::vector<int16_t> slots_;
};

class FlatSchema {
 public:
  static const FlatSchema& Get() {
    static const FlatSchema* schema = new FlatSchema(ProtoSchema::Builtin());
    return *schema;
  }

 private:
  explicit FlatSchema(const ProtoSchema& schema) : schema_(schema) {}

  const FlatMessage* Flatten(const ProtoMessage* m) const {
    if (auto it = flat_.find(m); it != flat_.end()) return it->second.get();
    auto owned = std::make_unique<FlatMessage>();
    FlatMessage* flat = owned.get();
    flat_.emplace(m, std::move(owned));  // before recursing: messages can be recursive
    AddMembers(m, flat);
    return flat;
  }

  void AddMembers(const ProtoMessage* m, FlatMessage* flat) const {
    for (const ProtoField& f : m->fields) {
      if (f.inline_json && f.message) {
        AddMembers(f.message, flat);
        continue;
      }
      FlatMessage::Member member{&f, nullptr};
      if (f.type == internal::ProtoType::kMessage && f.message->special == Special::kNone) {
        member.message = Flatten(f.message);
      }
      flat->Add(f.name, member);
    }
  }

 public:
  // Top-level objects: the message's members plus TypeMeta's kind and apiVersion.
  const FlatMessage* Root(std::string_view full_name) const {
    std::lock_guard lock(mu_);
    if (auto it = by_name_.find(full_name); it != by_name_.end()) return it->second;
    std::string name(full_name);
    const ProtoMessage* m = schema_.Find(name);
    if (!m) return by_name_[name] = nullptr;
    auto root = std::make_unique<FlatMessage>(*Flatten(m));
    for (std::string_view tm : {"kind", "apiVersion"}) root->Add(tm, {});
    const FlatMessage* out = root.get();
    roots_.push_back(std::move(root));
    return by_name_[name] = out;
  }

 private:
  const ProtoSchema& schema_;
  // Grows only (under mu_); entries are never freed or changed once handed out.
  mutable std::mutex mu_;
  mutable std::unordered_map<const ProtoMessage*, std::unique_ptr<FlatMessage>> flat_;
  mutable std::map<std::string, const FlatMessage*, std::less<>> by_name_;
  mutable std::vector<std::unique_ptr<FlatMessage>> roots_;
};

// Walks one document with simdjson On-Demand; members it does not look into are skipped by the
// iterator. `path_` holds the path of the value being walked. With `emit`, it also writes
// the document without its unknown members (what upstream's decoder keeps).
class Walker {
 public:
  static constexpr size_t kMaxDepth = 256;

  Walker(StrictOptions options, std::vector<std::string>* out, std::string* emit = nullptr)
      : options_(options), out_(out), emit_(emit), writer_(emit) {}

  // Copies a value not walked into the output, as it was.
  bool Raw(od::value v) {
    if (!emit_) return true;
    od::json_type type;
    if (v.type().get(type)) return false;
    std::string_view raw;
    if (type == od::json_type::object) {
      od::object obj;
      if (v.get_object().get(obj) || obj.raw_json().get(raw)) return false;
    } else if (type == od::json_type::array) {
      od::array arr;
      if (v.get_array().get(arr) || arr.raw_json().get(raw)) return false;
    } else {
      raw = v.raw_json_token();
      while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\t' ||
                              raw.back() == '\r')) {
        raw.remove_suffix(1);
      }
    }
    emit_->append(raw);
    return true;
  }

  // Returns false on a JSON error (the walk stops; the decoder reports it).
  bool Value(od::value v, const FlatMessage* schema) {
    // The walk recurses per level, on a request fiber's 1 MiB stack: a nesting bomb (100,000
    // '[') would overflow it. No object of a served kind nests anywhere near this deep, and the
    // decoders refuse such documents on their own (simdjson, Boost.JSON depth limits).
    if (path_.size() > kMaxDepth) return false;
    od::json_type type;
    if (v.type().get(type)) return false;
    if (type == od::json_type::object) {
      od::object obj;
      if (v.get_object().get(obj)) return false;
      return Object(obj, schema);
    }
    if (type == od::json_type::array) {
      od::array arr;
      if (v.get_array().get(arr)) return false;
      return Array(arr, schema);
    }
    return Raw(v);
  }

  // A list's items are of the list field's type: `schema` is the item message (or none).
  bool Array(od::array arr, const FlatMessage* schema) {
    size_t i = 0;
    if (emit_) emit_->push_back('[');
    for (auto item : arr) {
      od::value v;
      if (item.get(v)) return false;
      if (emit_ && i > 0) emit_->push_back(',');
      path_.push_back({{}, i++});
      bool ok = Value(v, schema);
      path_.pop_back();
      if (!ok) return false;
    }
    if (emit_) emit_->push_back(']');
    return true;
  }

  // `schema` null: a map or free-form object (only duplicates are checked); `map_values` is the
  // value message of a map<string, Message> field.
  bool Object(od::object obj, const FlatMessage* schema, const FlatMessage* map_values = nullptr,
              bool is_map = false) {
    uint64_t seen_small = 0;
    std::vector<bool> seen_large;
    std::vector<std::string_view> seen_keys;  // maps and free-form objects
    bool first = true;
    if (emit_) emit_->push_back('{');
    for (auto member : obj) {
      std::string_view key;
      if (member.unescaped_key().get(key)) return false;
      const FlatMessage::Member* known = nullptr;
      bool duplicate = false;
      if (schema && !is_map) {
        int idx = schema->Find(key);
        if (idx < 0) {
          if (options_.unknown_fields) Save("unknown", key);
          continue;
        }
        known = &schema->members[idx];
        size_t slot = static_cast<size_t>(idx);
        if (slot < 64) {
          duplicate = seen_small & (uint64_t{1} << slot);
          seen_small |= uint64_t{1} << slot;
        } else {
          if (seen_large.size() <= slot) seen_large.resize(slot + 1);
          duplicate = seen_large[slot];
          seen_large[slot] = true;
        }
      } else {
        duplicate = std::find(seen_keys.begin(), seen_keys.end(), key) != seen_keys.end();
        if (!duplicate) seen_keys.push_back(key);
      }
      if (duplicate && options_.duplicate_fields) Save("duplicate", key);
      if (emit_) {
        if (!first) emit_->push_back(',');
        writer_.String(key);
        emit_->push_back(':');
      }
      first = false;
      path_.push_back({key, 0});
      bool ok = true;
      od::value v;
      if (member.value().get(v)) {
        ok = false;
      } else if (known) {
        ok = Member(v, *known);
      } else if (is_map) {
        ok = map_values ? Value(v, map_values) : Raw(v);
      } else {
        ok = Value(v, nullptr);  // free-form: duplicates all the way down
      }
      path_.pop_back();
      if (!ok) return false;
    }
    if (emit_) emit_->push_back('}');
    return true;
  }

  void Save(std::string_view what, std::string_view key) {
    if (out_->size() >= kMaxErrors) return;
    // Joined only now: most documents have no problem at all.
    std::string path;
    for (const Segment& seg : path_) {
      if (seg.key.data() == nullptr) {
        path += '[' + std::to_string(seg.index) + ']';
        continue;
      }
      if (!path.empty()) path += '.';
      path += seg.key;
    }
    if (!path.empty()) path += '.';
    path += key;
    std::string error = std::string(what) + " field " + validation::GoQuote(path);
    if (std::find(out_->begin(), out_->end(), error) == out_->end()) {
      out_->push_back(std::move(error));
    }
  }

 private:
  bool Member(od::value v, const FlatMessage::Member& m) {
    if (!m.field) return Value(v, nullptr);  // kind, apiVersion; a JSON patch op's members
    const ProtoField& f = *m.field;
    if (f.is_map) {
      od::json_type type;
      if (v.type().get(type)) return false;
      if (type != od::json_type::object) return Raw(v);
      od::object obj;
      if (v.get_object().get(obj)) return false;
      return Object(obj, nullptr, m.message, /*is_map=*/true);
    }
    if (f.type != internal::ProtoType::kMessage) return Raw(v);
    if (!m.message) return Raw(v);  // a custom JSON form: its own decoder, no strictness
    if (f.repeated) {
      od::json_type type;
      if (v.type().get(type)) return false;
      if (type != od::json_type::array) return Raw(v);
      od::array arr;
      if (v.get_array().get(arr)) return false;
      return Array(arr, m.message);
    }
    od::json_type type;
    if (v.type().get(type)) return false;
    if (type != od::json_type::object) return Raw(v);
    od::object obj;
    if (v.get_object().get(obj)) return false;
    return Object(obj, m.message);
  }

  StrictOptions options_;
  std::vector<std::string>* out_;
  std::string* emit_;
  internal::JsonWriter writer_;
  // The path of the value being walked: keys (views into the parser's buffers, valid for the
  // document) or list indexes (null key).
  struct Segment {
    std::string_view key;
    size_t index = 0;
  };
  std::vector<Segment> path_;
};

using ThreadParser = internal::PaddedParser;

template <typename Fn>
std::vector<std::string> WalkDocument(std::string_view json, StrictOptions options, Fn&& fn,
                                      std::string* emit = nullptr) {
  std::vector<std::string> out;
  thread_local ThreadParser tp;
  od::document doc;
  if (tp.parser.iterate(tp.Pad(json)).get(doc)) return out;
  od::value root;
  if (doc.get_value().get(root)) return out;
  Walker w(options, &out, emit);
  fn(w, root);
  return out;
}

}  // namespace

std::vector<std::string> StrictDecodingErrors(std::string_view json,
                                              std::string_view message_full_name,
                                              StrictOptions options) {
  const FlatMessage* schema = nullptr;
  if (!message_full_name.empty()) {
    schema = FlatSchema::Get().Root(message_full_name);
    if (!schema) options.unknown_fields = false;  // not in the schema: nothing is known
  }
  return WalkDocument(json, options, [&](Walker& w, od::value root) { w.Value(root, schema); });
}

std::string PruneUnknownFields(std::string_view json, std::string_view message_full_name) {
  const FlatMessage* schema = FlatSchema::Get().Root(message_full_name);
  if (!schema) return std::string(json);
  std::string out;
  out.reserve(json.size());
  bool ok = false;
  WalkDocument(
      json, {}, [&](Walker& w, od::value root) { ok = w.Value(root, schema); }, &out);
  return ok ? out : std::string(json);
}

std::vector<std::string> JsonPatchStrictErrors(std::string_view json) {
  // jsonPatchOp: {op, path, from string; value interface{}}.
  static const FlatMessage* op = [] {
    auto* m = new FlatMessage;
    for (std::string_view name : {"op", "path", "from", "value"}) m->Add(name, {});
    return m;
  }();
  auto out = WalkDocument(json, {}, [&](Walker& w, od::value root) {
    od::array arr;
    if (root.get_array().get(arr)) return;
    w.Array(arr, op);
  });
  for (auto& e : out) e = "json patch " + e;
  return out;
}

std::string StrictDecodingErrorMessage(const std::vector<std::string>& problems) {
  std::string out = "strict decoding error: ";
  for (size_t i = 0; i < problems.size(); ++i) {
    if (i) out += ", ";
    out += problems[i];
  }
  return out;
}

}  // namespace svcplane::api::codec
