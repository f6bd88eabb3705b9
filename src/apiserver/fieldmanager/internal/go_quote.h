#pragma once

#include <string>
#include <string_view>

#include <boost/json/value.hpp>

namespace svcplane::apiserver::fieldmanager::internal {

// Go's %q and unicode.IsPrint are api::validation::GoQuote and GoIsPrint (field_errors.h).

// Appends `v` as jsoniter's standard-library mode writes the decoded interface{} (Go's
// encoding/json): compact, map keys sorted, <, > and & escaped, floats in Go's shortest form.
// With sort_keys false, objects keep their order (for re-emitting JSON that was canonical).
void AppendGoJson(std::string& out, const boost::json::value& v, bool sort_keys = true);

}  // namespace svcplane::apiserver::fieldmanager::internal
