#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/types.h"
#include "apiserver/table/duration.h"

namespace svcplane::apiserver::table {

// meta.k8s.io/v1 TableColumnDefinition. Priority 0 columns show by default, 1 only with -o wide.
struct Column {
  std::string_view name;
  std::string_view type;  // "string" | "integer" | ...
  std::string_view format;
  std::string_view description;
  int priority = 0;
};

// A cell is a string or, for a few upstream columns (Event Count), a number.
using Cell = std::variant<std::string, int64_t>;

// meta.k8s.io/v1 TableRowCondition (pods that finished carry "Completed").
struct RowCondition {
  std::string_view type;
  std::string_view status;
  std::string_view reason;
  std::string_view message;
};

struct Row {
  std::vector<Cell> cells;
  std::vector<RowCondition> conditions;
};

// The columns kube-apiserver returns for each kind (pkg/printers/internalversion), all of them
// (the server prints "wide"; kubectl hides priority > 0 unless -o wide).
std::span<const Column> Columns(std::string_view kind);

// Row cells exactly as kubectl shows them on a real cluster; `now` is the reference for AGE.
Row MakeRow(const api::core::v1::Pod& pod, TimePoint now);
Row MakeRow(const api::core::v1::Service& svc, TimePoint now);
Row MakeRow(const api::core::v1::Endpoints& ep, TimePoint now);
Row MakeRow(const api::discovery::v1::EndpointSlice& slice, TimePoint now);
Row MakeRow(const api::core::v1::Node& node, TimePoint now);
Row MakeRow(const api::core::v1::Namespace& ns, TimePoint now);
Row MakeRow(const api::core::v1::Event& ev, TimePoint now);
Row MakeRow(const api::coordination::v1::Lease& lease, TimePoint now);
Row MakeRow(const api::rbac::v1::Role& role, TimePoint now);
Row MakeRow(const api::rbac::v1::ClusterRole& role, TimePoint now);
Row MakeRow(const api::rbac::v1::RoleBinding& binding, TimePoint now);
Row MakeRow(const api::rbac::v1::ClusterRoleBinding& binding, TimePoint now);
Row MakeRow(const api::apps::v1::Deployment& deployment, TimePoint now);
Row MakeRow(const api::apps::v1::ReplicaSet& rs, TimePoint now);
Row MakeRow(const api::core::v1::ConfigMap& cm, TimePoint now);
Row MakeRow(const api::core::v1::Secret& secret, TimePoint now);
Row MakeRow(const api::core::v1::ServiceAccount& sa, TimePoint now);

// ?includeObject=: what each row carries in `object`.
enum class IncludeObject {
  kNone,      // no object
  kMetadata,  // PartialObjectMetadata (the default; kubectl needs it for -A, --show-labels, -L)
  kObject,    // the full object (kubectl --sort-by)
};
// "" and "Metadata" → kMetadata, "Object", "None"; anything else → nullopt (answer 400).
std::optional<IncludeObject> ParseIncludeObject(std::string_view value);

struct TableOptions {
  bool v1beta1 = false;  // apiVersion meta.k8s.io/v1beta1 instead of v1
  IncludeObject include_object = IncludeObject::kMetadata;
  TimePoint now;
};

// One object of a table: the typed object plus, optionally, its JSON encoding as served
// (with kind/apiVersion). When `json` is empty it is encoded here if the row needs it.
template <typename T>
struct TableItem {
  const T* object;
  std::string_view json;
};

// The Table for a LIST: metadata carries the list's resourceVersion/continue/remainingItemCount.
template <typename T>
std::string EncodeListTable(std::span<const TableItem<T>> items, const api::meta::ListMeta& meta,
                            const TableOptions& options);

// The Table for a single GET (metadata.resourceVersion = the object's).
template <typename T>
std::string EncodeObjectTable(const TableItem<T>& item, const TableOptions& options);

// The one-row Table carried by one watch event's `object`. Column definitions are written only
// when `first` is true; later events carry `"columnDefinitions":null`, as upstream does.
template <typename T>
std::string EncodeWatchTable(const TableItem<T>& item, bool first, const TableOptions& options);

// Accept ...;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1: the objects' metadata only,
// from their served JSON encodings.
std::string EncodePartialObjectMetadata(std::string_view object_json);
std::string EncodePartialObjectMetadataList(std::span<const std::string_view> objects_json,
                                            const api::meta::ListMeta& meta);

// The "metadata" member of an encoded object, verbatim ("" if absent). Exposed for tests and
// for PartialObjectMetadata responses.
std::string_view ExtractMetadata(std::string_view object_json);

}  // namespace svcplane::apiserver::table
