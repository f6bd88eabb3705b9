#include "apiserver/table/table.h"

#include "api/codec/json.h"

namespace svcplane::apiserver::table {
namespace {

// Go encoding/json string escaping (HTML-safe), so bytes match kube-apiserver's.
void AppendString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out->append("\\\"");
        continue;
      case '\\':
        out->append("\\\\");
        continue;
      case '\n':
        out->append("\\n");
        continue;
      case '\r':
        out->append("\\r");
        continue;
      case '\t':
        out->append("\\t");
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xf]);
      continue;
    }
    // U+2028 and U+2029 (E2 80 A8/A9).
    if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xA8) {
      out->append(static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029");
      i += 2;
      continue;
    }
    out->push_back(static_cast<char>(c));
  }
  out->push_back('"');
}

void AppendKey(std::string_view k, std::string* out) {
  out->push_back('"');
  out->append(k);
  out->append("\":");
}

void AppendColumns(std::span<const Column> cols, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i) out->push_back(',');
    out->append("{\"name\":");
    AppendString(cols[i].name, out);
    out->append(",\"type\":");
    AppendString(cols[i].type, out);
    out->append(",\"format\":");
    AppendString(cols[i].format, out);
    out->append(",\"description\":");
    AppendString(cols[i].description, out);
    out->append(",\"priority\":");
    out->append(std::to_string(cols[i].priority));
    out->push_back('}');
  }
  out->push_back(']');
}

template <typename T>
void AppendRow(const TableItem<T>& item, const TableOptions& opt, std::string* out) {
  Row row = MakeRow(*item.object, opt.now);
  out->append("{\"cells\":[");
  for (size_t i = 0; i < row.cells.size(); ++i) {
    if (i) out->push_back(',');
    if (const auto* s = std::get_if<std::string>(&row.cells[i])) {
      AppendString(*s, out);
    } else {
      out->append(std::to_string(std::get<int64_t>(row.cells[i])));
    }
  }
  out->push_back(']');
  if (!row.conditions.empty()) {
    out->append(",\"conditions\":[");
    for (size_t i = 0; i < row.conditions.size(); ++i) {
      const auto& c = row.conditions[i];
      if (i) out->push_back(',');
      out->append("{\"type\":");
      AppendString(c.type, out);
      out->append(",\"status\":");
      AppendString(c.status, out);
      out->append(",\"reason\":");
      AppendString(c.reason, out);
      out->append(",\"message\":");
      AppendString(c.message, out);
      out->push_back('}');
    }
    out->push_back(']');
  }
  if (opt.include_object != IncludeObject::kNone) {
    std::string encoded;
    std::string_view json = item.json;
    if (json.empty()) {
      encoded = api::codec::EncodeJson(*item.object);
      json = encoded;
    }
    out->append(",\"object\":");
    if (opt.include_object == IncludeObject::kObject) {
      out->append(json);
    } else {
      out->append("{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":");
      out->append(opt.v1beta1 ? "\"meta.k8s.io/v1beta1\"" : "\"meta.k8s.io/v1\"");
      out->append(",\"metadata\":");
      std::string_view m = ExtractMetadata(json);
      out->append(m.empty() ? std::string_view("{}") : m);
      out->push_back('}');
    }
  }
  out->push_back('}');
}

void AppendListMeta(const api::meta::ListMeta& meta, std::string* out) {
  out->push_back('{');
  bool comma = false;
  auto field = [&](std::string_view k) {
    if (comma) out->push_back(',');
    comma = true;
    AppendKey(k, out);
  };
  if (!meta.resource_version.empty()) {
    field("resourceVersion");
    AppendString(meta.resource_version, out);
  }
  if (!meta.continue_.empty()) {
    field("continue");
    AppendString(meta.continue_, out);
  }
  if (meta.remaining_item_count) {
    field("remainingItemCount");
    out->append(std::to_string(*meta.remaining_item_count));
  }
  out->push_back('}');
}

void AppendPartial(std::string_view object_json, std::string* out) {
  out->append(R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":)");
  std::string_view m = ExtractMetadata(object_json);
  out->append(m.empty() ? std::string_view("{}") : m);
  out->push_back('}');
}

void AppendHeader(const TableOptions& opt, std::string* out) {
  out->append("{\"kind\":\"Table\",\"apiVersion\":");
  out->append(opt.v1beta1 ? "\"meta.k8s.io/v1beta1\"" : "\"meta.k8s.io/v1\"");
}

template <typename T>
std::string_view KindOf() {
  if constexpr (std::is_same_v<T, api::core::v1::Pod>) return "Pod";
  if constexpr (std::is_same_v<T, api::core::v1::Service>) return "Service";
  if constexpr (std::is_same_v<T, api::core::v1::Endpoints>) return "Endpoints";
  if constexpr (std::is_same_v<T, api::discovery::v1::EndpointSlice>) return "EndpointSlice";
  if constexpr (std::is_same_v<T, api::core::v1::Node>) return "Node";
  if constexpr (std::is_same_v<T, api::core::v1::Namespace>) return "Namespace";
  if constexpr (std::is_same_v<T, api::core::v1::Event>) return "Event";
  if constexpr (std::is_same_v<T, api::coordination::v1::Lease>) return "Lease";
  if constexpr (std::is_same_v<T, api::rbac::v1::Role>) return "Role";
  if constexpr (std::is_same_v<T, api::rbac::v1::ClusterRole>) return "ClusterRole";
  if constexpr (std::is_same_v<T, api::rbac::v1::RoleBinding>) return "RoleBinding";
  if constexpr (std::is_same_v<T, api::rbac::v1::ClusterRoleBinding>) return "ClusterRoleBinding";
  if constexpr (std::is_same_v<T, api::apps::v1::Deployment>) return "Deployment";
  if constexpr (std::is_same_v<T, api::apps::v1::ReplicaSet>) return "ReplicaSet";
  if constexpr (std::is_same_v<T, api::core::v1::ConfigMap>) return "ConfigMap";
  if constexpr (std::is_same_v<T, api::core::v1::Secret>) return "Secret";
  if constexpr (std::is_same_v<T, api::core::v1::ServiceAccount>) return "ServiceAccount";
}

template <typename T>
std::string OneRowTable(const TableItem<T>& item, bool columns, const TableOptions& opt) {
  std::string out;
  AppendHeader(opt, &out);
  out.append(",\"metadata\":{");
  if (!item.object->metadata.resource_version.empty()) {
    AppendKey("resourceVersion", &out);
    AppendString(item.object->metadata.resource_version, &out);
  }
  out.append("},\"columnDefinitions\":");
  if (columns) {
    AppendColumns(Columns(KindOf<T>()), &out);
  } else {
    out.append("null");
  }
  out.append(",\"rows\":[");
  AppendRow(item, opt, &out);
  out.append("]}");
  return out;
}

}  // namespace

std::optional<IncludeObject> ParseIncludeObject(std::string_view value) {
  if (value.empty() || value == "Metadata") return IncludeObject::kMetadata;
  if (value == "Object") return IncludeObject::kObject;
  if (value == "None") return IncludeObject::kNone;
  return std::nullopt;
}

std::string_view ExtractMetadata(std::string_view json) {
  // Scan the top-level object for the "metadata" key; values are skipped by bracket depth with
  // strings (and their escapes) honoured. Input is our own encoder's output, so it is valid.
  int depth = 0;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (c == '"') {
      size_t start = i;
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\') ++i;
      }
      if (depth == 1 && json.substr(start, i - start + 1) == "\"metadata\"") {
        size_t j = i + 1;
        while (j < json.size() && (json[j] == ' ' || json[j] == ':' || json[j] == '\n')) ++j;
        if (j >= json.size() || json[j] != '{') return {};
        // Find the matching close brace.
        int d = 0;
        for (size_t k = j; k < json.size(); ++k) {
          char ck = json[k];
          if (ck == '"') {
            for (++k; k < json.size() && json[k] != '"'; ++k) {
              if (json[k] == '\\') ++k;
            }
          } else if (ck == '{' || ck == '[') {
            ++d;
          } else if (ck == '}' || ck == ']') {
            if (--d == 0) return json.substr(j, k - j + 1);
          }
        }
        return {};
      }
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return {};
}

std::string EncodePartialObjectMetadata(std::string_view object_json) {
  std::string out;
  AppendPartial(object_json, &out);
  return out;
}

std::string EncodePartialObjectMetadataList(std::span<const std::string_view> objects_json,
                                            const api::meta::ListMeta& meta) {
  std::string out =
      R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":)";
  AppendListMeta(meta, &out);
  out.append(",\"items\":[");
  for (size_t i = 0; i < objects_json.size(); ++i) {
    if (i) out.push_back(',');
    AppendPartial(objects_json[i], &out);
  }
  out.append("]}");
  return out;
}

template <typename T>
std::string EncodeListTable(std::span<const TableItem<T>> items, const api::meta::ListMeta& meta,
                            const TableOptions& opt) {
  std::string out;
  out.reserve(512 + items.size() * 512);
  AppendHeader(opt, &out);
  out.append(",\"metadata\":");
  AppendListMeta(meta, &out);
  out.append(",\"columnDefinitions\":");
  AppendColumns(Columns(KindOf<T>()), &out);
  out.append(",\"rows\":[");
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back(',');
    AppendRow(items[i], opt, &out);
  }
  out.append("]}");
  return out;
}

template <typename T>
std::string EncodeObjectTable(const TableItem<T>& item, const TableOptions& opt) {
  return OneRowTable(item, true, opt);
}

template <typename T>
std::string EncodeWatchTable(const TableItem<T>& item, bool first, const TableOptions& opt) {
  return OneRowTable(item, first, opt);
}

#define SVCPLANE_INSTANTIATE(T)                                                             \
  template std::string EncodeListTable<T>(std::span<const TableItem<T>>,                    \
                                          const api::meta::ListMeta&, const TableOptions&); \
  template std::string EncodeObjectTable<T>(const TableItem<T>&, const TableOptions&);      \
  template std::string EncodeWatchTable<T>(const TableItem<T>&, bool, const TableOptions&);

SVCPLANE_INSTANTIATE(api::core::v1::Pod)
SVCPLANE_INSTANTIATE(api::core::v1::Service)
SVCPLANE_INSTANTIATE(api::core::v1::Endpoints)
SVCPLANE_INSTANTIATE(api::discovery::v1::EndpointSlice)
SVCPLANE_INSTANTIATE(api::core::v1::Node)
SVCPLANE_INSTANTIATE(api::core::v1::Namespace)
SVCPLANE_INSTANTIATE(api::core::v1::Event)
SVCPLANE_INSTANTIATE(api::coordination::v1::Lease)
SVCPLANE_INSTANTIATE(api::rbac::v1::Role)
SVCPLANE_INSTANTIATE(api::rbac::v1::ClusterRole)
SVCPLANE_INSTANTIATE(api::rbac::v1::RoleBinding)
SVCPLANE_INSTANTIATE(api::rbac::v1::ClusterRoleBinding)
SVCPLANE_INSTANTIATE(api::apps::v1::Deployment)
SVCPLANE_INSTANTIATE(api::apps::v1::ReplicaSet)
SVCPLANE_INSTANTIATE(api::core::v1::ConfigMap)
SVCPLANE_INSTANTIATE(api::core::v1::Secret)
SVCPLANE_INSTANTIATE(api::core::v1::ServiceAccount)
#undef SVCPLANE_INSTANTIATE

}  // namespace svcplane::apiserver::table
