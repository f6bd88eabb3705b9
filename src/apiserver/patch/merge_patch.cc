#include "apiserver/patch/merge_patch.h"

#include <string>
#include <vector>

#include <boost/json.hpp>

namespace svcplane::apiserver::patch {
namespace {

namespace json = boost::json;

void PruneNulls(json::value& v);

void PruneDocNulls(json::object& obj) {
  std::vector<std::string> drop;
  for (auto& kv : obj) {
    if (kv.value().is_null()) {
      drop.emplace_back(kv.key());
    } else {
      PruneNulls(kv.value());
    }
  }
  for (const std::string& k : drop) obj.erase(k);
}

// pruneNulls: nulls go from objects (at any depth); null array elements stay.
void PruneNulls(json::value& v) {
  if (v.is_object()) {
    PruneDocNulls(v.get_object());
  } else if (v.is_array()) {
    for (json::value& e : v.get_array()) {
      if (!e.is_null()) PruneNulls(e);
    }
  }
}

void MergeDocs(json::object& doc, const json::object& patch) {
  for (const auto& kv : patch) {
    if (kv.value().is_null()) {
      doc.erase(kv.key());
      continue;
    }
    json::value* cur = doc.if_contains(kv.key());
    if (cur == nullptr || cur->is_null()) {
      json::value added = kv.value();
      PruneNulls(added);
      doc[kv.key()] = std::move(added);
    } else if (!cur->is_object()) {  // merge(): current is not a document
      json::value added = kv.value();
      PruneNulls(added);
      *cur = std::move(added);
    } else if (!kv.value().is_object()) {  // merge(): the patch is not a document, used verbatim
      *cur = kv.value();
    } else {
      MergeDocs(cur->get_object(), kv.value().get_object());
    }
  }
}

}  // namespace

namespace internal {
void MergePatchInPlace(json::object& doc, const json::object& patch) { MergeDocs(doc, patch); }
}  // namespace internal

Status ApplyMergePatch(json::value& doc, const json::value& patch) {
  if (!patch.is_object()) return BadRequestError("Invalid JSON Patch");
  json::value result = doc.is_object() ? doc : json::value(json::object());
  MergeDocs(result.get_object(), patch.get_object());
  doc = std::move(result);
  return Status::Ok();
}

}  // namespace svcplane::apiserver::patch
