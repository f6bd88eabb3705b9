#include "apiserver/patch/internal/smp_order.h"

#include <string>
#include <utility>
#include <vector>

namespace svcplane::apiserver::patch::internal {

// sliceElementType: every element of every list must have the same Go type, and not be a list.
Result<ElemKind> SliceElementType(std::initializer_list<const json::array*> lists) {
  const json::value* first = nullptr;
  for (const json::array* list : lists) {
    if (list == nullptr) continue;
    for (const json::value& v : *list) {
      if (first == nullptr) {
        first = &v;
        if (v.is_array()) return ErrNoListOfLists();
      } else if (!SameGoType(*first, v) || v.is_null()) {
        std::string all = "[";
        for (const json::array* l : lists) {
          if (all.size() > 1) all += ' ';
          all += l == nullptr ? "[]" : GoFormat(*l);
        }
        return BadRequestError("list element types are not identical: " + all + "]");
      }
    }
  }
  if (first == nullptr) return BadRequestError("no elements in any of the given slices");
  if (first->is_null()) return BadRequestError("list element types are not identical: null");
  return first->is_object() ? ElemKind::kMap : ElemKind::kScalar;
}

namespace {

// The value `index` compares: the merge key's value for maps, the item itself otherwise.
const json::value& OrderValue(const json::value& item, std::string_view merge_key, ElemKind kind) {
  static const json::value* const kNull = new json::value();
  if (kind == ElemKind::kScalar) return item;
  const json::object* obj = item.if_object();
  if (obj == nullptr) return *kNull;
  const json::value* v = obj->if_contains(merge_key);
  return v == nullptr ? *kNull : *v;
}

// index(): position of `item` in `order` (already reduced to order values), or -1.
int IndexOf(const std::vector<json::value>& order, const json::value& item,
            std::string_view merge_key, ElemKind kind) {
  const json::value& want = OrderValue(item, merge_key, kind);
  for (size_t i = 0; i < order.size(); ++i) {
    if (GoEqual(want, order[i])) return static_cast<int>(i);
  }
  return -1;
}

// The order values of `list`, validating (for maps) that each item carries the merge key, as

// normalizeSliceOrder: sorts `to_sort` by `order` (Go's sort.SliceStable with upstream's lenient
// comparator, run as the insertion sort Go uses for short slices), `$patch: delete` items last.
Status NormalizeSliceOrder(std::vector<json::value>& to_sort, const std::vector<json::value>& order,
                           std::string_view merge_key, ElemKind kind) {
  std::vector<json::value> to_delete;
  if (kind == ElemKind::kMap) {
    std::vector<json::value> keep;
    keep.reserve(to_sort.size());
    for (json::value& item : to_sort) {
      if (!item.is_object()) return ErrBadArgType(kMapType, item);
      if (!item.get_object().contains(merge_key)) {
        return ErrNoMergeKey(item.get_object(), merge_key);
      }
      const json::value* d = item.get_object().if_contains(kDirectiveMarker);
      (d != nullptr && IsDirective(*d, kDeleteDirective) ? to_delete : keep)
          .push_back(std::move(item));
    }
    to_sort = std::move(keep);
  }
  auto less = [&](const json::value& a, const json::value& b) {
    int ia = IndexOf(order, a, merge_key, kind);
    if (ia >= 0) {
      int ib = IndexOf(order, b, merge_key, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (size_t i = 1; i < to_sort.size(); ++i) {
    for (size_t j = i; j > 0 && less(to_sort[j], to_sort[j - 1]); --j) {
      std::swap(to_sort[j], to_sort[j - 1]);
    }
  }
  for (json::value& d : to_delete) to_sort.push_back(std::move(d));
  return Status::Ok();
}

// mergeSortedSlice: interleaves server-only items (left) into patch items (right); left goes first
// only when both are in the live list and left came earlier there.
json::array MergeSortedSlice(std::vector<json::value>& left, std::vector<json::value>& right,
                             const std::vector<json::value>& server_order,
                             std::string_view merge_key, ElemKind kind) {
  json::array out;
  out.reserve(left.size() + right.size());
  size_t i = 0, j = 0;
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      out.push_back(std::move(right[j++]));
    } else if (j >= right.size()) {
      out.push_back(std::move(left[i++]));
    } else {
      int li = IndexOf(server_order, left[i], merge_key, kind);
      int ri = IndexOf(server_order, right[j], merge_key, kind);
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push_back(std::move(left[i++]));
      } else {
        out.push_back(std::move(right[j++]));
      }
    }
  }
  return out;
}

}  // namespace

// validateMergeKeyInLists does.
Result<std::vector<json::value>> OrderValues(const json::array* list, std::string_view merge_key,
                                             ElemKind kind) {
  std::vector<json::value> out;
  if (list == nullptr) return out;
  out.reserve(list->size());
  for (const json::value& item : *list) {
    if (kind == ElemKind::kMap) {
      if (!item.is_object()) return ErrBadArgType(kMapType, item);
      const json::value* v = item.get_object().if_contains(merge_key);
      if (v == nullptr) return ErrNoMergeKey(item.get_object(), merge_key);
      out.push_back(*v);
    } else {
      out.push_back(item);
    }
  }
  return out;
}

// normalizeElementOrder: patch items in patch order, server-only items in live order, merged.
// The orders are given as OrderValues (validated merge-key values, or the scalars themselves).
Result<json::array> NormalizeElementOrder(std::vector<json::value> patch_items,
                                          std::vector<json::value> server_only,
                                          const std::vector<json::value>& patch_order,
                                          const std::vector<json::value>& server_order,
                                          std::string_view merge_key, ElemKind kind) {
  SVC_RETURN_IF_ERROR(NormalizeSliceOrder(patch_items, patch_order, merge_key, kind));
  SVC_RETURN_IF_ERROR(NormalizeSliceOrder(server_only, server_order, merge_key, kind));
  return MergeSortedSlice(server_only, patch_items, server_order, merge_key, kind);
}

// partition{Primitives,Maps}ByPresentInList: splits `merged` into items present in `by` and the
// rest, keeping relative order.
// `merged` is consumed.
Status Partition(json::array& merged, const std::vector<json::value>& by,
                 std::string_view merge_key, ElemKind kind, std::vector<json::value>* in,
                 std::vector<json::value>* out) {
  for (json::value& item : merged) {
    if (kind == ElemKind::kMap) {
      if (!item.is_object()) return ErrBadArgType(kMapType, item);
      if (!item.get_object().contains(merge_key)) {
        return ErrNoMergeKey(item.get_object(), merge_key);
      }
    }
    bool found = IndexOf(by, item, merge_key, kind) >= 0;
    (found ? in : out)->push_back(std::move(item));
  }
  return Status::Ok();
}

}  // namespace svcplane::apiserver::patch::internal
