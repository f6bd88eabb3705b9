#pragma once

// Element ordering of merged lists, ported from strategicpatch/patch.go (normalizeElementOrder,
// mergeSortedSlice, partition*ByPresentInList, sliceElementType).

#include <initializer_list>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "apiserver/patch/internal/smp_common.h"
#include "base/result.h"

namespace svcplane::apiserver::patch::internal {

// sliceElementType: every element of every list must have the same Go type, and not be a list.
// Null lists are skipped; no elements at all is an error, as upstream.
Result<ElemKind> SliceElementType(std::initializer_list<const json::array*> lists);

// The values `index` compares for each item of `list` (its merge-key value for maps, the item
// for scalars), validating that maps carry the key (validateMergeKeyInLists). Null list: empty.
Result<std::vector<json::value>> OrderValues(const json::array* list, std::string_view merge_key,
                                             ElemKind kind);

// partition{Primitives,Maps}ByPresentInList: moves the items of `merged` into `in` (present in
// `by`, given as OrderValues) or `out`, keeping relative order.
Status Partition(json::array& merged, const std::vector<json::value>& by,
                 std::string_view merge_key, ElemKind kind, std::vector<json::value>* in,
                 std::vector<json::value>* out);

// normalizeElementOrder: patch items in patch order, server-only items in live order, then
// interleaved by mergeSortedSlice. Orders are given as OrderValues.
Result<json::array> NormalizeElementOrder(std::vector<json::value> patch_items,
                                          std::vector<json::value> server_only,
                                          const std::vector<json::value>& patch_order,
                                          const std::vector<json::value>& server_order,
                                          std::string_view merge_key, ElemKind kind);

// mergePatchIntoOriginal keeps `originalFieldValue`, a Go slice header over the live list, and
// later uses it as the live order. mergeSlice edits that list in place: deletions shift the shared
// backing array left and appends write into its spare capacity, so the header then sees shifted
// and appended items. Upstream's ordering of server-only items depends on this, so we replay it
// on the merge-key values. Decoded lists grow by append, so their capacity is the next power of
// two of their length (true for both encoding/json and the protobuf decoder).
class GoSliceAlias {
 public:
  explicit GoSliceAlias(std::vector<json::value> keys) : len_(keys.size()), n_(keys.size()) {
    cap_ = 0;
    if (len_ > 0) {
      cap_ = 1;
      while (cap_ < len_) cap_ *= 2;
    }
    backing_ = std::move(keys);
    backing_.resize(cap_);
  }
  // append(s[:i], s[i+1:]...)
  void Delete(size_t i) {
    if (detached_) return;
    for (size_t j = i; j + 1 < n_; ++j) backing_[j] = backing_[j + 1];
    --n_;
  }
  // append(s, v): in place while capacity lasts, else a new array the header never sees.
  void Append(const json::value& key) {
    if (detached_) return;
    if (n_ < cap_) {
      backing_[n_++] = key;
    } else {
      detached_ = true;
    }
  }
  void Detach() { detached_ = true; }
  std::vector<json::value> View() const {
    return std::vector<json::value>(backing_.begin(), backing_.begin() + len_);
  }

 private:
  size_t len_;  // the header's length, fixed
  size_t n_;    // length of the slice mergeSlice is editing
  size_t cap_;
  bool detached_ = false;
  std::vector<json::value> backing_;
};

}  // namespace svcplane::apiserver::patch::internal
