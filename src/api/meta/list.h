#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "api/meta/types.h"

namespace svcplane::api::meta {

// PodList, ServiceList...: one template, since every List kind has the same shape.
template <typename T>
struct List {
  std::string kind;
  std::string api_version;
  ListMeta metadata;
  std::vector<T> items;
  UnknownFields unknown;
  bool operator==(const List&) const = default;
};
template <typename T>
constexpr auto FieldsOf(Tag<List<T>>) {
  using L = List<T>;
  return std::make_tuple(F("kind", &L::kind), F("apiVersion", &L::api_version),
                         F("metadata", &L::metadata, kAlways, 1),
                         F("items", &L::items, kAlways, 2));
}

}  // namespace svcplane::api::meta
