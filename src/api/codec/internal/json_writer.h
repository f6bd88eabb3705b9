#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace svcplane::api::codec::internal {

// Appends JSON to a caller-owned buffer. Strings are escaped as Go's encoding/json does
// (including <, >, & and U+2028/U+2029), so our bytes match kube-apiserver's.
class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  void Raw(std::string_view s) { out_->append(s); }
  void Char(char c) { out_->push_back(c); }
  void String(std::string_view s);
  // `"name":` for a key known to need no escaping (our own field names).
  void Key(std::string_view name) {
    out_->push_back('"');
    out_->append(name);
    out_->append("\":", 2);
  }
  void Int(int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof(buf), v);
    out_->append(buf, static_cast<size_t>(r.ptr - buf));
  }
  void Bool(bool v) { v ? out_->append("true", 4) : out_->append("false", 5); }
  void Null() { out_->append("null", 4); }

  std::string* buffer() { return out_; }

 private:
  std::string* out_;
};

}  // namespace svcplane::api::codec::internal
