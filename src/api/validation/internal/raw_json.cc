#include "api/validation/internal/raw_json.h"

#include <cctype>

namespace svcplane::api::validation::internal {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  std::optional<RawMembers> Object() {
    RawMembers out;
    Ws();
    if (!Eat('{')) return std::nullopt;
    Ws();
    if (Eat('}')) return AtEnd() ? std::optional(out) : std::nullopt;
    while (true) {
      std::string key;
      if (!String(&key)) return std::nullopt;
      Ws();
      if (!Eat(':')) return std::nullopt;
      Ws();
      size_t start = i_;
      if (!Skip()) return std::nullopt;
      out.emplace_back(std::move(key), std::string(s_.substr(start, i_ - start)));
      Ws();
      if (Eat('}')) return AtEnd() ? std::optional(out) : std::nullopt;
      if (!Eat(',')) return std::nullopt;
      Ws();
    }
  }

  // Appends the unescaped string at the cursor to `out` (nullptr: skips it). Runs without
  // escapes are appended whole: these strings are read on every Pod create (defaulting, QoS),
  // and a push_back per character was most of their cost.
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    while (true) {
      const size_t run = s_.find_first_of("\\\"", i_);
      if (run == std::string_view::npos) return false;
      if (out) out->append(s_.data() + i_, run - i_);
      i_ = run;
      if (s_[i_] == '"') {
        ++i_;
        return true;
      }
      // Keys and quantities are plain ASCII; anything escaped is kept as the escaped char.
      if (++i_ >= s_.size()) return false;
      if (out) out->push_back(s_[i_]);
      ++i_;
    }
  }

 private:
  bool AtEnd() {
    Ws();
    return i_ == s_.size();
  }
  static bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
  void Ws() {
    while (i_ < s_.size() && IsJsonSpace(s_[i_])) ++i_;
  }
  bool Eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool Skip() {
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '"') return String(nullptr);
    if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      ++i_;
      Ws();
      if (Eat(close)) return true;
      while (true) {
        if (c == '{') {
          if (!String(nullptr)) return false;
          Ws();
          if (!Eat(':')) return false;
          Ws();
        }
        if (!Skip()) return false;
        Ws();
        if (Eat(close)) return true;
        if (!Eat(',')) return false;
        Ws();
      }
    }
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' &&
           !IsJsonSpace(s_[i_])) {
      ++i_;
    }
    return i_ > start;
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

std::optional<RawMembers> ParseObjectMembers(std::string_view json) {
  return Reader(json).Object();
}

std::optional<std::string> ScalarText(std::string_view raw_value) {
  if (raw_value.empty()) return std::nullopt;
  if (raw_value.front() == '"') {
    std::string out;
    if (!Reader(raw_value).String(&out)) return std::nullopt;
    return out;
  }
  if (raw_value.front() == '-' || std::isdigit(static_cast<unsigned char>(raw_value.front()))) {
    return std::string(raw_value);
  }
  return std::nullopt;
}

}  // namespace svcplane::api::validation::internal
