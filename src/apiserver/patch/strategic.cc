#include "apiserver/patch/strategic.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "apiserver/patch/internal/json_util.h"
#include "apiserver/patch/internal/smp_common.h"
#include "apiserver/patch/internal/smp_order.h"
#include "base/result.h"

// A port of the apply half of k8s.io/apimachinery/pkg/util/strategicpatch/patch.go. Function names
// follow upstream so the two can be read side by side; deviations are commented where they occur.

namespace svcplane::apiserver::patch {
namespace internal {
namespace {

// removeDirectives + discardNullValuesFromPatch, applied upstream to values that land in the
// result without merging. Returns false when the value itself is a `$patch` map and must go.
// Also drops the parallel-list and retainKeys keys (see the header comment).
bool CleanNewValue(json::value& v) {
  if (v.is_object()) {
    json::object& obj = v.get_object();
    if (obj.contains(kDirectiveMarker)) return false;
    std::vector<std::string> drop;
    for (auto& kv : obj) {
      if (kv.value().is_null() || IsDirectiveKey(kv.key()) || !CleanNewValue(kv.value())) {
        drop.emplace_back(kv.key());
      }
    }
    for (const std::string& k : drop) obj.erase(k);
  } else if (v.is_array()) {
    json::array& arr = v.get_array();
    json::array kept;
    kept.reserve(arr.size());
    for (json::value& e : arr) {
      if (CleanNewValue(e)) kept.push_back(std::move(e));
    }
    arr = std::move(kept);
  }
  return true;
}

// For values upstream copies verbatim (replace strategies): the typed decode afterwards drops
// directive keys and nulls but keeps the maps that carried them.
void StripDirectiveKeys(json::value& v) {
  if (v.is_object()) {
    json::object& obj = v.get_object();
    std::vector<std::string> drop;
    for (auto& kv : obj) {
      if (kv.value().is_null() || IsDirectiveKey(kv.key())) {
        drop.emplace_back(kv.key());
      } else {
        StripDirectiveKeys(kv.value());
      }
    }
    for (const std::string& k : drop) obj.erase(k);
  } else if (v.is_array()) {
    for (json::value& e : v.get_array()) StripDirectiveKeys(e);
  }
}

// extractKey: "$setElementOrder/ports" -> "ports".
bool ExtractKey(std::string_view s, std::string_view prefix, std::string_view* out) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos || s.substr(0, slash) != prefix) return false;
  *out = s.substr(slash + 1);
  return true;
}

struct ListMeta {
  ListStrategy strategy = ListStrategy::kReplace;
  std::string_view merge_key;
  const Schema* elem = nullptr;
};

ListMeta LookupList(const Schema& schema, std::string_view key) {
  ListMeta meta;
  meta.elem = &Schema::Empty();
  if (const FieldMeta* f = schema.Field(key)) {
    meta.strategy = f->list;
    meta.merge_key = f->merge_key;
    if (f->schema != nullptr) meta.elem = f->schema;
  }
  return meta;
}

Status MergeMap(json::object& original, const json::object& patch, const Schema& schema);

// mergeSliceWithSpecialElements + mergeSliceWithoutSpecialElements + ordering, for lists of maps.
Status MergeSliceOfMaps(json::array& original, const json::array& patch, const Schema& elem,
                        std::string_view merge_key, GoSliceAlias* alias) {
  json::array plain;  // the patch without `$patch` items
  plain.reserve(patch.size());
  bool replace = false;
  for (const json::value& v : patch) {
    const json::object& item = v.get_object();
    const json::value* directive = item.if_contains(kDirectiveMarker);
    if (directive == nullptr) {
      plain.push_back(v);
    } else if (IsDirective(*directive, kDeleteDirective)) {
      const json::value* key = item.if_contains(merge_key);
      if (key == nullptr) return ErrNoMergeKey(item, merge_key);
      json::array kept;
      for (json::value& o : original) {
        const json::value* ok = o.get_object().if_contains(merge_key);
        if (ok == nullptr || !GoEqual(*ok, *key)) {
          kept.push_back(std::move(o));
        } else if (alias != nullptr) {
          alias->Delete(kept.size());
        }
      }
      original = std::move(kept);
    } else if (IsDirective(*directive, kReplaceDirective)) {
      replace = true;  // keep scanning to prune the other `$patch` items
    } else if (IsDirective(*directive, kMergeDirective)) {
      return BadRequestError("merging lists cannot yet be specified in the patch");
    } else {
      return ErrBadPatchType(*directive, item);
    }
  }
  if (replace) {
    if (alias != nullptr) alias->Detach();
    json::value replaced = std::move(plain);
    StripDirectiveKeys(replaced);
    original = std::move(replaced.get_array());
    plain.clear();
  }

  Result<std::vector<json::value>> server_order = OrderValues(&original, merge_key, ElemKind::kMap);
  if (!server_order.ok()) return server_order.status();

  for (const json::value& v : plain) {
    const json::object& item = v.get_object();
    const json::value* key = item.if_contains(merge_key);
    if (key == nullptr) return ErrNoMergeKey(item, merge_key);
    json::object* match = nullptr;
    for (json::value& o : original) {
      const json::value* ok = o.get_object().if_contains(merge_key);
      if (ok != nullptr && GoEqual(*ok, *key)) {
        match = &o.get_object();
        break;
      }
    }
    if (match != nullptr) {
      SVC_RETURN_IF_ERROR(MergeMap(*match, item, elem));
    } else {
      if (alias != nullptr) alias->Append(*key);
      json::value added = v;
      StripDirectiveKeys(added);
      original.push_back(std::move(added));
    }
  }

  // serverOrder is the live list after deletions and before additions; only its keys matter.
  Result<std::vector<json::value>> patch_order = OrderValues(&plain, merge_key, ElemKind::kMap);
  if (!patch_order.ok()) return patch_order.status();
  std::vector<json::value> patch_items, server_only;
  SVC_RETURN_IF_ERROR(
      Partition(original, *patch_order, merge_key, ElemKind::kMap, &patch_items, &server_only));
  Result<json::array> ordered =
      NormalizeElementOrder(std::move(patch_items), std::move(server_only), *patch_order,
                            *server_order, merge_key, ElemKind::kMap);
  if (!ordered.ok()) return ordered.status();
  original = std::move(*ordered);
  return Status::Ok();
}

// mergeSlice.
Status MergeSlice(json::array& original, const json::array& patch, const Schema& elem,
                  std::string_view merge_key, bool is_delete_list, GoSliceAlias* alias) {
  if (original.empty() && patch.empty()) return Status::Ok();
  Result<ElemKind> kind = SliceElementType({&original, &patch});
  if (!kind.ok()) return kind.status();

  if (*kind == ElemKind::kScalar) {
    if (is_delete_list) {  // deleteFromSlice
      json::array kept;
      for (json::value& v : original) {
        bool drop = false;
        for (const json::value& d : patch) drop = drop || GoEqual(v, d);
        if (!drop) kept.push_back(std::move(v));
      }
      original = std::move(kept);
      return Status::Ok();
    }
    std::vector<json::value> server_order(original.begin(), original.end());
    std::vector<json::value> patch_order(patch.begin(), patch.end());
    // append + deduplicateScalars; the order is normalized below, so a stable dedup is enough.
    json::array merged;
    merged.reserve(original.size() + patch.size());
    auto add_unique = [&merged](const json::value& v) {
      for (const json::value& m : merged) {
        if (GoEqual(m, v)) return;
      }
      merged.push_back(v);
    };
    for (const json::value& v : original) add_unique(v);
    for (const json::value& v : patch) add_unique(v);
    std::vector<json::value> patch_items, server_only;
    SVC_RETURN_IF_ERROR(
        Partition(merged, patch_order, "", ElemKind::kScalar, &patch_items, &server_only));
    Result<json::array> ordered =
        NormalizeElementOrder(std::move(patch_items), std::move(server_only), patch_order,
                              server_order, "", ElemKind::kScalar);
    if (!ordered.ok()) return ordered.status();
    original = std::move(*ordered);
    return Status::Ok();
  }

  if (merge_key.empty()) return BadRequestError("cannot merge lists without merge key");
  return MergeSliceOfMaps(original, patch, elem, merge_key, alias);
}

// mergeSliceHandler.
Status MergeSliceHandler(json::array& original, const json::array& patch, const ListMeta& meta,
                         bool is_delete_list, GoSliceAlias* alias = nullptr) {
  if (meta.strategy != ListStrategy::kReplace || is_delete_list) {
    return MergeSlice(original, patch, *meta.elem, meta.merge_key, is_delete_list, alias);
  }
  json::value replaced = patch;
  StripDirectiveKeys(replaced);
  original = std::move(replaced.get_array());
  return Status::Ok();
}

// validatePatchWithSetOrderList: the patch list (minus deletions) must be a subsequence of the
// $setElementOrder list.
Status ValidatePatchWithSetOrderList(const json::array* patch_list, const json::array& set_order,
                                     std::string_view merge_key) {
  if (set_order.empty() || patch_list == nullptr || patch_list->empty()) return Status::Ok();
  std::vector<const json::value*> non_delete;
  for (const json::value& v : *patch_list) {
    if (!merge_key.empty()) {
      if (!v.is_object()) return ErrBadArgType(kMapType, v);
      const json::value* d = v.get_object().if_contains(kDirectiveMarker);
      if (d != nullptr && IsDirective(*d, kDeleteDirective)) continue;
    }
    non_delete.push_back(&v);
  }
  size_t pi = 0, si = 0;
  while (pi < non_delete.size() && si < set_order.size()) {
    const json::value& p = *non_delete[pi];
    if (p.is_object() && p.get_object().contains(kDirectiveMarker)) {
      ++pi;
      continue;
    }
    bool equal;
    if (merge_key.empty()) {
      equal = GoEqual(p, set_order[si]);
    } else {
      const json::value& s = set_order[si];
      if (!p.is_object()) return ErrBadArgType(kMapType, p);
      if (!s.is_object()) return ErrBadArgType(kMapType, s);
      const json::value* pk = p.get_object().if_contains(merge_key);
      if (pk == nullptr) return ErrNoMergeKey(p.get_object(), merge_key);
      const json::value* sk = s.get_object().if_contains(merge_key);
      if (sk == nullptr) return ErrNoMergeKey(s.get_object(), merge_key);
      equal = GoEqual(*pk, *sk);
    }
    if (equal) ++pi;
    ++si;
  }
  if (pi < non_delete.size() && si >= set_order.size()) {
    // Worded (capital, trailing newline) as apimachinery through Kubernetes 1.33.
    return BadRequestError(
        fmt::format("The order in patch list:\n{}\n doesn't match {} list:\n{}\n",
                    GoFormat(*patch_list), kSetElementOrderPrefix, GoFormat(set_order)));
  }
  return Status::Ok();
}

// applyRetainKeysDirective (server side: MergeParallelList is on).
Status ApplyRetainKeysDirective(json::object& original, const json::object& patch) {
  const json::value* retain = patch.if_contains(kRetainKeysDirective);
  if (retain == nullptr) return Status::Ok();
  if (!retain->is_array()) return ErrBadPatchFormatForRetainKeys();
  const json::array& keys = retain->get_array();
  auto listed = [&keys](std::string_view k) {
    for (const json::value& v : keys) {
      if (v.is_string() && v.get_string() == k) return true;
    }
    return false;
  };
  for (const auto& kv : patch) {
    std::string_view k = kv.key();
    if (k == kRetainKeysDirective || kv.value().is_null() ||
        k.starts_with(kDeleteFromPrimitiveListPrefix) || k.starts_with(kSetElementOrderPrefix)) {
      continue;
    }
    if (!listed(k)) return ErrBadPatchFormatForRetainKeys();
  }
  std::vector<std::string> drop;
  for (const auto& kv : original) {
    if (!listed(kv.key())) drop.emplace_back(kv.key());
  }
  for (const std::string& k : drop) original.erase(k);
  return Status::Ok();
}

// mergePatchIntoOriginal: handles every `$setElementOrder/<list>` together with `<list>`. Keys of
// lists it fully processed are appended to `done` so the main loop skips them.
Status MergePatchIntoOriginal(json::object& original, const json::object& patch,
                              const Schema& schema, std::vector<std::string_view>& done) {
  for (const auto& kv : patch) {
    std::string_view key = kv.key();
    if (!key.starts_with(kSetElementOrderPrefix)) continue;
    if (!kv.value().is_array()) return ErrBadArgType(kSliceType, kv.value());
    const json::array& set_order = kv.value().get_array();
    std::string_view list_key;
    if (!ExtractKey(key, kSetElementOrderPrefix, &list_key)) {
      return ErrBadPatchFormatForSetElementOrderList();
    }
    const json::array* original_list = nullptr;
    const json::array* patch_list = nullptr;
    if (const json::value* v = original.if_contains(list_key)) {
      if (!v->is_array()) return ErrBadArgType(kSliceType, *v);
      original_list = &v->get_array();
    }
    if (const json::value* v = patch.if_contains(list_key)) {
      if (!v->is_array()) return ErrBadArgType(kSliceType, *v);
      patch_list = &v->get_array();
    }
    ListMeta meta = LookupList(schema, list_key);
    SVC_RETURN_IF_ERROR(ValidatePatchWithSetOrderList(patch_list, set_order, meta.merge_key));

    if (original_list == nullptr && patch_list == nullptr) continue;
    // Fails with "no elements in any of the given slices" when both lists are empty, as upstream
    // does (e.g. `$setElementOrder/finalizers: []` against `finalizers: []`).
    Result<ElemKind> kind = SliceElementType({original_list, patch_list});
    if (!kind.ok()) return kind.status();
    // The orders are taken before the live list is moved out and merged.
    Result<std::vector<json::value>> set_order_values =
        OrderValues(&set_order, meta.merge_key, *kind);
    if (!set_order_values.ok()) return set_order_values.status();
    Result<std::vector<json::value>> server_order =
        OrderValues(original_list, meta.merge_key, *kind);
    if (!server_order.ok()) return server_order.status();

    json::value merged_value;
    if (original_list == nullptr) {
      merged_value = *patch_list;
      CleanNewValue(merged_value);
    } else {
      // Merge into the live list itself: the result replaces it, and on error the caller drops
      // the whole half-patched object anyway.
      merged_value = std::move(original[list_key]);
      if (patch_list != nullptr) {
        GoSliceAlias alias(*server_order);
        SVC_RETURN_IF_ERROR(
            MergeSliceHandler(merged_value.get_array(), *patch_list, meta, false, &alias));
        server_order = alias.View();
      }
    }
    std::vector<json::value> patch_items, server_only;
    SVC_RETURN_IF_ERROR(Partition(merged_value.get_array(), *set_order_values, meta.merge_key,
                                  *kind, &patch_items, &server_only));
    Result<json::array> ordered =
        NormalizeElementOrder(std::move(patch_items), std::move(server_only), *set_order_values,
                              *server_order, meta.merge_key, *kind);
    if (!ordered.ok()) return ordered.status();
    original[list_key] = std::move(*ordered);
    done.push_back(list_key);
  }
  return Status::Ok();
}

// mergeMap.
Status MergeMap(json::object& original, const json::object& patch, const Schema& schema) {
  if (const json::value* directive = patch.if_contains(kDirectiveMarker)) {
    // handleDirectiveInMergeMap
    if (IsDirective(*directive, kReplaceDirective)) {
      json::value replaced = patch;
      replaced.get_object().erase(kDirectiveMarker);
      StripDirectiveKeys(replaced);
      original = std::move(replaced.get_object());
      return Status::Ok();
    }
    if (IsDirective(*directive, kDeleteDirective)) {
      original.clear();
      return Status::Ok();
    }
    return ErrBadPatchType(*directive, patch);
  }

  SVC_RETURN_IF_ERROR(ApplyRetainKeysDirective(original, patch));
  std::vector<std::string_view> done;
  SVC_RETURN_IF_ERROR(MergePatchIntoOriginal(original, patch, schema, done));

  for (const auto& kv : patch) {
    std::string_view key = kv.key();
    if (key == kRetainKeysDirective || key.starts_with(kSetElementOrderPrefix)) continue;
    bool skip = false;
    for (std::string_view d : done) skip = skip || d == key;
    if (skip) continue;

    bool is_delete_list = false;
    if (key.starts_with(kDeleteFromPrimitiveListPrefix)) {
      if (!ExtractKey(key, kDeleteFromPrimitiveListPrefix, &key)) {
        return ErrBadPatchFormatForPrimitiveList();
      }
      is_delete_list = true;
    }
    const json::value& patch_value = kv.value();
    if (patch_value.is_null()) {
      original.erase(key);
      continue;
    }
    json::value* current = original.if_contains(key);
    if (current == nullptr || !SameGoType(*current, patch_value)) {
      if (!is_delete_list) {
        json::value added = patch_value;
        if (CleanNewValue(added)) {
          original[key] = std::move(added);
        } else {
          original.erase(key);
        }
      }
      continue;
    }
    if (current->is_object()) {
      const FieldMeta* field = schema.Field(key);
      if (field != nullptr && field->replace_map) {
        json::value replaced = patch_value;
        StripDirectiveKeys(replaced);
        *current = std::move(replaced);
      } else {
        const Schema& child =
            field != nullptr && field->schema != nullptr ? *field->schema : Schema::Empty();
        SVC_RETURN_IF_ERROR(MergeMap(current->get_object(), patch_value.get_object(), child));
      }
    } else if (current->is_array()) {
      SVC_RETURN_IF_ERROR(MergeSliceHandler(current->get_array(), patch_value.get_array(),
                                            LookupList(schema, key), is_delete_list));
    } else {
      *current = patch_value;
    }
  }
  return Status::Ok();
}

const char* GoJsonKindWord(const json::value& v) {
  switch (v.kind()) {
    case json::kind::array:
      return "array";
    case json::kind::string:
      return "string";
    case json::kind::bool_:
      return "bool";
    default:
      return "number";
  }
}

}  // namespace

Status StrategicMergeInPlace(json::object& target, const json::object& patch,
                             const Schema& schema) {
  return MergeMap(target, patch, schema);
}

}  // namespace internal

Status ApplyStrategicMergePatch(boost::json::value& target, const boost::json::value& patch,
                                const Schema& schema) {
  if (patch.is_null()) return Status::Ok();
  if (!patch.is_object()) {
    return BadRequestError(
        fmt::format("json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    internal::GoJsonKindWord(patch)));
  }
  boost::json::value result =
      target.is_object() ? target : boost::json::value(boost::json::object());
  SVC_RETURN_IF_ERROR(
      internal::StrategicMergeInPlace(result.get_object(), patch.get_object(), schema));
  target = std::move(result);
  return Status::Ok();
}

}  // namespace svcplane::apiserver::patch
