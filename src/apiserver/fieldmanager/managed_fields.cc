#include "apiserver/fieldmanager/managed_fields.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "api/validation/field_errors.h"
#include "apiserver/fieldmanager/internal/go_quote.h"
#include "base/json_string.h"

namespace svcplane::apiserver::fieldmanager {
namespace {

namespace json = boost::json;

Status DecodeError(std::string msg) { return Status(Code::kBadRequest, std::move(msg)); }

// Reads an optional string member; Go's decoder takes null as "".
Status ReadString(const json::object& obj, std::string_view key, std::string* out) {
  const json::value* v = obj.if_contains(key);
  if (v == nullptr || v->is_null()) return Status::Ok();
  if (!v->is_string()) {
    return DecodeError(
        "json: cannot unmarshal " + std::string(v->is_number() ? "number" : "value") +
        " into Go struct field ManagedFieldsEntry." + std::string(key) + " of type string");
  }
  *out = std::string(v->get_string());
  return Status::Ok();
}

// The fields of one entry as they were written, before the checks of DecodeManagedFields.
struct RawEntry {
  std::string manager, operation, api_version, fields_type, subresource;
  std::optional<int64_t> time;
  const json::value* fields_v1 = nullptr;  // null when absent or JSON null

  bool IsZero() const {
    return manager.empty() && operation.empty() && api_version.empty() && fields_type.empty() &&
           subresource.empty() && !time.has_value() && fields_v1 == nullptr;
  }
};

Result<RawEntry> ReadEntry(const json::value& v) {
  if (!v.is_object()) return DecodeError("managed fields entry is not an object");
  const json::object& obj = v.get_object();
  RawEntry e;
  SVC_RETURN_IF_ERROR(ReadString(obj, "manager", &e.manager));
  SVC_RETURN_IF_ERROR(ReadString(obj, "operation", &e.operation));
  SVC_RETURN_IF_ERROR(ReadString(obj, "apiVersion", &e.api_version));
  SVC_RETURN_IF_ERROR(ReadString(obj, "fieldsType", &e.fields_type));
  SVC_RETURN_IF_ERROR(ReadString(obj, "subresource", &e.subresource));
  if (const json::value* t = obj.if_contains("time"); t != nullptr && !t->is_null()) {
    std::optional<int64_t> micros;
    if (t->is_string()) micros = api::meta::ParseRFC3339Micros(t->get_string());
    if (!micros) return DecodeError("invalid time in managed fields entry: " + json::serialize(*t));
    // metav1.Time is written in whole seconds; keep the second it falls in.
    int64_t secs = *micros / 1000000;
    if (*micros % 1000000 < 0) --secs;
    e.time = secs;
  }
  if (const json::value* f = obj.if_contains("fieldsV1"); f != nullptr && !f->is_null()) {
    e.fields_v1 = f;
  }
  return e;
}

// The checks and set decoding of upstream DecodeManagedFields for entry `index`.
Result<ManagedFieldsEntry> CheckEntry(RawEntry raw, size_t index) {
  if (raw.operation != kOperationApply && raw.operation != kOperationUpdate) {
    return DecodeError("operation must be `Apply` or `Update`");
  }
  if (raw.api_version.empty()) return DecodeError("apiVersion must not be empty");
  if (raw.fields_type.empty()) {
    return DecodeError("missing fieldsType in managed fields entry " + std::to_string(index));
  }
  if (raw.fields_type != "FieldsV1") {
    return DecodeError("invalid fieldsType " + api::validation::GoQuote(raw.fields_type) +
                       " in managed fields entry " + std::to_string(index));
  }
  ManagedFieldsEntry e;
  e.manager = std::move(raw.manager);
  e.operation = std::move(raw.operation);
  e.api_version = std::move(raw.api_version);
  e.time = raw.time;
  e.subresource = std::move(raw.subresource);
  if (raw.fields_v1 != nullptr) {
    Result<Set> set = Set::FromFieldsV1(json::serialize(*raw.fields_v1));
    if (!set.ok()) {
      return DecodeError("error decoding versioned set: error decoding set: " +
                         set.status().message());
    }
    e.fields = *std::move(set);
  }
  return e;
}

// Adds `e` to `list`, replacing an entry with the same identifier (upstream keys a map by it).
void PutEntry(ManagedFieldsList& list, ManagedFieldsEntry e) {
  if (ManagedFieldsEntry* old = FindEntry(list, e.Identifier()); old != nullptr) {
    *old = std::move(e);
  } else {
    list.push_back(std::move(e));
  }
}

template <typename Source>
Result<ManagedFieldsList> DecodeAll(const Source& entries) {
  ManagedFieldsList list;
  list.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    Result<RawEntry> raw = ReadEntry(entries[i]);
    if (!raw.ok()) return raw.status();
    Result<ManagedFieldsEntry> e = CheckEntry(*std::move(raw), i);
    if (!e.ok()) return e.status();
    PutEntry(list, *std::move(e));
  }
  return list;
}

// ObjectMeta keeps each entry as its JSON text; this gives DecodeAll the parsed values.
class ParsedRawEntries {
 public:
  explicit ParsedRawEntries(const std::vector<api::meta::RawJson>& raw) {
    values_.reserve(raw.size());
    for (const auto& r : raw) {
      boost::system::error_code ec;
      json::value v = json::parse(r.text, ec);
      if (ec) {
        error_ = DecodeError("invalid managed fields entry JSON: " + ec.message());
        return;
      }
      values_.push_back(std::move(v));
    }
  }
  const Status& error() const { return error_; }
  size_t size() const { return values_.size(); }
  const json::value& operator[](size_t i) const { return values_[i]; }

 private:
  std::vector<json::value> values_;
  Status error_;
};

void AppendMember(std::string& out, std::string_view key, std::string_view value) {
  if (value.empty()) return;
  out += out.size() > 1 ? ",\"" : "\"";
  out += key;
  out += "\":";
  AppendJsonString(out, value);
}

}  // namespace

std::string ManagedFieldsEntry::Identifier() const {
  std::string out = "{";
  AppendMember(out, "manager", manager);
  AppendMember(out, "operation", operation);
  if (!IsApply()) AppendMember(out, "apiVersion", api_version);
  AppendMember(out, "subresource", subresource);
  out += "}";
  return out;
}

std::string ManagedFieldsEntry::ToJson() const {
  std::string out = "{";
  AppendMember(out, "manager", manager);
  AppendMember(out, "operation", operation);
  AppendMember(out, "apiVersion", api_version);
  if (time.has_value()) AppendMember(out, "time", api::meta::FormatRFC3339(*time));
  AppendMember(out, "fieldsType", "FieldsV1");
  out += ",\"fieldsV1\":";
  out += fields.ToFieldsV1();
  AppendMember(out, "subresource", subresource);
  out += "}";
  return out;
}

Result<ManagedFieldsList> DecodeManagedFields(const std::vector<api::meta::RawJson>& entries) {
  ParsedRawEntries parsed(entries);
  if (!parsed.error().ok()) return parsed.error();
  return DecodeAll(parsed);
}

Result<ManagedFieldsList> DecodeManagedFields(const boost::json::array& entries) {
  return DecodeAll(entries);
}

bool IsResetManagedFields(const boost::json::array& entries) {
  if (entries.empty()) return true;
  if (entries.size() != 1) return false;
  Result<RawEntry> raw = ReadEntry(entries[0]);
  return raw.ok() && raw->IsZero();
}

void SortManagedFields(ManagedFieldsList& list) {
  auto key = [](const ManagedFieldsEntry& e) {
    return std::tie(e.operation, e.manager, e.api_version, e.subresource);
  };
  std::stable_sort(list.begin(), list.end(), [&](const auto& p, const auto& q) {
    if (p.operation != q.operation) return p.operation < q.operation;
    int64_t ps = p.time.value_or(0), qs = q.time.value_or(0);
    if (ps != qs) return ps < qs;
    return key(p) < key(q);
  });
}

void DropEmptyEntries(ManagedFieldsList& list) {
  std::erase_if(list, [](const ManagedFieldsEntry& e) { return e.fields.Empty(); });
}

ManagedFieldsEntry* FindEntry(ManagedFieldsList& list, std::string_view identifier) {
  for (auto& e : list) {
    if (e.Identifier() == identifier) return &e;
  }
  return nullptr;
}

std::vector<api::meta::RawJson> EncodeManagedFields(ManagedFieldsList list) {
  SortManagedFields(list);
  std::vector<api::meta::RawJson> out;
  out.reserve(list.size());
  for (const auto& e : list) out.push_back(api::meta::RawJson{e.ToJson()});
  return out;
}

boost::json::array EncodeManagedFieldsJson(ManagedFieldsList list) {
  SortManagedFields(list);
  json::array out;
  out.reserve(list.size());
  for (const auto& e : list) out.push_back(json::parse(e.ToJson()));
  return out;
}

void CapUpdateManagers(ManagedFieldsList& list, size_t max_updaters) {
  std::vector<std::pair<std::string, std::optional<int64_t>>> updaters;  // identifier, time
  for (const auto& e : list) {
    if (!e.IsApply()) updaters.emplace_back(e.Identifier(), e.time);
  }
  if (updaters.size() <= max_updaters) return;
  std::sort(updaters.begin(), updaters.end(), [](const auto& a, const auto& b) {
    int64_t as = a.second.value_or(0), bs = b.second.value_or(0);
    if (as != bs) return as < bs;
    return a.first < b.first;
  });
  auto erase = [&](std::string_view identifier) {
    std::erase_if(list, [&](const ManagedFieldsEntry& e) { return e.Identifier() == identifier; });
  };
  // Mirrors upstream's loop over its identifier-keyed map step by step, including its quirks:
  // an existing bucket absorbs later entries while the first entry of that version survives.
  std::map<std::string, std::string> version_to_first;
  size_t length = updaters.size();
  for (size_t i = 0; i < updaters.size() && length > max_updaters; ++i) {
    const std::string& id = updaters[i].first;
    ManagedFieldsEntry* current = FindEntry(list, id);
    if (current == nullptr) continue;  // already merged away
    const std::string version = current->api_version;
    ManagedFieldsEntry bucket_key;
    bucket_key.manager = std::string(kAncientChangesManager);
    bucket_key.operation = std::string(kOperationUpdate);
    bucket_key.api_version = version;
    const std::string bucket_id = bucket_key.Identifier();
    auto first = version_to_first.find(version);
    if (first == version_to_first.end()) {
      version_to_first.emplace(version, id);
      continue;
    }
    if (FindEntry(list, bucket_id) == nullptr) {
      if (ManagedFieldsEntry* seed = FindEntry(list, first->second); seed != nullptr) {
        bucket_key.fields = seed->fields;
        bucket_key.time = seed->time;
        erase(first->second);
      }
      list.push_back(bucket_key);
    }
    current = FindEntry(list, id);
    Set merged = current->fields.Union(FindEntry(list, bucket_id)->fields);
    std::optional<int64_t> time = current->time;
    ManagedFieldsEntry* bucket = FindEntry(list, bucket_id);
    bucket->fields = std::move(merged);
    bucket->time = time;  // the merged entry is the more recent one
    erase(id);            // (when the bucket itself was `id`, upstream deletes it too)
    --length;
  }
}

bool EntriesEqualIgnoringTime(const std::vector<api::meta::RawJson>& a,
                              const std::vector<api::meta::RawJson>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].text == b[i].text) continue;
    boost::system::error_code ea, eb;
    json::value va = json::parse(a[i].text, ea);
    json::value vb = json::parse(b[i].text, eb);
    if (ea || eb || !va.is_object() || !vb.is_object()) return false;
    va.get_object().erase("time");
    vb.get_object().erase("time");
    if (va != vb) return false;
  }
  return true;
}

std::string PrintManager(std::string_view identifier) {
  boost::system::error_code ec;
  json::value v = json::parse(identifier, ec);
  if (ec || !v.is_object()) return api::validation::GoQuote(identifier);
  Result<RawEntry> raw = ReadEntry(v);
  if (!raw.ok()) return api::validation::GoQuote(identifier);
  std::string out = api::validation::GoQuote(raw->manager);
  if (!raw->subresource.empty())
    out += " with subresource " + api::validation::GoQuote(raw->subresource);
  if (raw->operation == kOperationUpdate) {
    out += " using " + raw->api_version;
    if (raw->time) out += " at " + api::meta::FormatRFC3339(*raw->time);
  }
  return out;
}

Status ApplyConflictStatus(std::vector<Conflict> conflicts) {
  std::sort(conflicts.begin(), conflicts.end(), [](const Conflict& a, const Conflict& b) {
    if (a.manager_identifier != b.manager_identifier) {
      return a.manager_identifier < b.manager_identifier;
    }
    return std::lexicographical_compare(a.path.begin(), a.path.end(), b.path.begin(), b.path.end());
  });
  std::vector<StatusCause> causes;
  causes.reserve(conflicts.size());
  for (const auto& c : conflicts) {
    causes.push_back(StatusCause{.type = "FieldManagerConflict",
                                 .field = PathString(c.path),
                                 .message = "conflict with " + PrintManager(c.manager_identifier)});
  }
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " +
              PrintManager(conflicts[0].manager_identifier) + ": " + PathString(conflicts[0].path);
  } else {
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: ";
    std::string_view previous;
    bool first_line = true;
    for (const auto& c : conflicts) {
      if (first_line || c.manager_identifier != previous) {
        if (!first_line) message += "\n";
        message += "conflicts with " + PrintManager(c.manager_identifier) + ":";
        previous = c.manager_identifier;
        first_line = false;
      }
      message += "\n- " + PathString(c.path);
    }
  }
  return Status(Code::kConflict, std::move(message)).WithCauses(std::move(causes));
}

}  // namespace svcplane::apiserver::fieldmanager
