#include "client/testing/fake_clientset.h"

#include <boost/json.hpp>

namespace svcplane::client::testing {

namespace {

boost::json::value MergePatch(boost::json::value target, const boost::json::value& patch) {
  if (!patch.is_object()) return patch;
  if (!target.is_object()) target = boost::json::object();
  auto& obj = target.as_object();
  for (const auto& [key, value] : patch.as_object()) {
    if (value.is_null()) {
      obj.erase(key);
    } else {
      boost::json::value current = obj.contains(key) ? obj.at(key) : boost::json::value();
      obj[key] = MergePatch(std::move(current), value);
    }
  }
  return target;
}

}  // namespace

Result<std::string> ApplyMergePatch(std::string_view doc, std::string_view patch) {
  boost::system::error_code ec;
  boost::json::value d = boost::json::parse(doc, ec);
  if (ec) return InvalidError("document: " + ec.message());
  boost::json::value p = boost::json::parse(patch, ec);
  if (ec) return BadRequestError("patch: " + ec.message());
  return boost::json::serialize(MergePatch(std::move(d), p));
}

}  // namespace svcplane::client::testing
