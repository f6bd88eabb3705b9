#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace svcplane::api::codec {

// Converts a YAML stream (one or more `---` separated documents, as `kubectl apply -f` reads)
// into one JSON text per non-empty document, resolving plain scalars as YAML 1.1 / go-yaml do
// (true/false/yes/no, integers, floats, null). Errors are kBadRequest with line and column.
Result<std::vector<std::string>> YamlToJson(std::string_view yaml);

// The keys set twice in one mapping, as go-yaml v2's strict decoding reports them (what
// kube-apiserver's strict YAML decoding prints): `line 4: key "name" already set in map`, in
// document order. Malformed YAML gives none (YamlToJson reports it).
std::vector<std::string> YamlDuplicateKeys(std::string_view yaml);

}  // namespace svcplane::api::codec
