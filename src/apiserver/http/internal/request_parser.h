#pragma once

#include <boost/beast/http.hpp>

namespace svcplane::apiserver::http::internal {

// Beast's request parser, except that a header field too long for Beast's fields to hold (a
// name or value over 65533 bytes) fails the parse with header_limit (answered 431) instead of
// throwing std::length_error out of the read, which would escape into Asio and end the process.
// With a 1 MiB header limit a single field that long is easy to send.
class RequestParser final
    : public boost::beast::http::request_parser<boost::beast::http::string_body> {
 public:
  // Beast's own bound (basic_fields stores offsets as uint16 and adds 2 for ": ").
  static constexpr std::size_t kMaxFieldPart = 65535 - 2;

 private:
  void on_field_impl(boost::beast::http::field name, boost::beast::string_view name_string,
                     boost::beast::string_view value, boost::beast::error_code& ec) override {
    if (name_string.size() > kMaxFieldPart || value.size() > kMaxFieldPart) {
      ec = boost::beast::http::error::header_limit;
      return;
    }
    get().insert(name, name_string, value);
  }
};

}  // namespace svcplane::apiserver::http::internal
