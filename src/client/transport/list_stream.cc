#include "client/transport/list_stream.h"

#include <cstring>

namespace svcplane::client::transport {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Whether any byte of `w` is '"' or '\\' (the classic "has a zero byte" test on w XOR each).
inline bool HasQuoteOrBackslash(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHighs = 0x8080808080808080ULL;
  const uint64_t q = w ^ (kOnes * static_cast<uint8_t>('"'));
  const uint64_t b = w ^ (kOnes * static_cast<uint8_t>('\\'));
  return (((q - kOnes) & ~q) | ((b - kOnes) & ~b)) & kHighs;
}

// The closing quote of the string whose opening quote is at s[open], or npos if it has not
// arrived yet. Skips 8 bytes at a time up to the next quote or backslash: the strings of a
// Pod are mostly short, where a memchr call per string (and a look back for backslashes) cost
// more than the scan.
size_t StringEnd(std::string_view s, size_t open) {
  const char* p = s.data();
  const size_t n = s.size();
  size_t i = open + 1;
  while (true) {
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (HasQuoteOrBackslash(w)) break;
      i += 8;
    }
    while (i < n && p[i] != '"' && p[i] != '\\') ++i;
    if (i >= n) return std::string_view::npos;
    if (p[i] == '"') return i;
    i += 2;  // a backslash and the byte it escapes (which may be a quote or a backslash)
  }
}

// A varint at s[*pos]: 1 read (pos advanced), 0 if incomplete, -1 if malformed.
int ReadVarint(std::string_view s, size_t* pos, uint64_t* v) {
  uint64_t out = 0;
  for (size_t i = 0; i < 10; ++i) {
    if (*pos + i >= s.size()) return 0;
    const uint8_t b = static_cast<uint8_t>(s[*pos + i]);
    out |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      *pos += i + 1;
      *v = out;
      return 1;
    }
  }
  return -1;
}

constexpr std::string_view kMagic{"k8s\0", 4};

}  // namespace

Status JsonListSplitter::Fail(std::string_view what) const {
  return BadRequestError("invalid JSON list: " + std::string(what));
}

bool JsonListSplitter::ScanValue() {
  const std::string_view s = buffer_;
  if (!scanning_) {
    scanning_ = true;
    value_start_ = scan_ = pos_;
    depth_ = 0;
  }
  const char first = s[value_start_];
  if (first != '{' && first != '[' && first != '"') {
    // A number, true, false or null: ends at the next delimiter.
    while (scan_ < s.size()) {
      const char c = s[scan_];
      if (c == ',' || c == '}' || c == ']' || IsSpace(c)) {
        value_end_ = scan_;
        scanning_ = false;
        return true;
      }
      ++scan_;
    }
    return false;
  }
  while (scan_ < s.size()) {
    const char c = s[scan_];
    if (c == '"') {
      const size_t end = StringEnd(s, scan_);
      if (end == std::string_view::npos) return false;  // resume at this quote
      scan_ = end + 1;
      if (depth_ == 0) break;
    } else if (c == '{' || c == '[') {
      ++depth_;
      ++scan_;
    } else if (c == '}' || c == ']') {
      ++scan_;
      if (--depth_ == 0) break;
    } else {
      ++scan_;
    }
  }
  if (depth_ != 0 || scan_ == value_start_ || (first == '"' && s[scan_ - 1] != '"')) return false;
  value_end_ = scan_;
  scanning_ = false;
  return true;
}

Status JsonListSplitter::Feed(std::string_view chunk, const ListItemHandler& on_item) {
  if (stopped_) return Status::Ok();
  // Drop what was consumed: at most one partial item stays, so the move is short.
  const size_t keep = scanning_ ? value_start_ : pos_;
  if (keep > 0) {
    buffer_.erase(0, keep);
    pos_ -= keep;
    if (scanning_) {
      value_start_ -= keep;
      scan_ -= keep;
    }
  }
  buffer_.append(chunk);
  const std::string_view s = buffer_;
  while (true) {
    if (!scanning_) {
      while (pos_ < s.size() && IsSpace(s[pos_])) ++pos_;
    }
    if (pos_ >= s.size()) return Status::Ok();
    const char c = s[pos_];
    switch (state_) {
      case State::kStart:
        if (c != '{') return Fail("expected an object");
        ++pos_;
        state_ = State::kKey;
        break;
      case State::kKey: {
        if (c == '}') {
          ++pos_;
          state_ = State::kDone;
          break;
        }
        if (c == ',' && !first_member_) {
          ++pos_;
          break;
        }
        if (c != '"') return Fail("expected a member name");
        const size_t end = StringEnd(s, pos_);
        if (end == std::string_view::npos) return Status::Ok();
        key_.assign(s.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end + 1;
        first_member_ = false;
        state_ = State::kColon;
        break;
      }
      case State::kColon:
        if (c != ':') return Fail("expected ':'");
        ++pos_;
        state_ = State::kValue;
        break;
      case State::kValue:
        if (key_ == "items" && c == '[') {
          ++pos_;
          state_ = State::kItems;
          break;
        }
        if (!ScanValue()) return Status::Ok();
        if (key_ == "metadata") metadata_.assign(s.substr(value_start_, value_end_ - value_start_));
        if (key_ == "items" && s.substr(value_start_, value_end_ - value_start_) != "null") {
          return Fail("\"items\" is not an array");
        }
        pos_ = value_end_;
        state_ = State::kAfterValue;
        break;
      case State::kAfterValue:
        if (c == ',') {
          ++pos_;
          state_ = State::kKey;
        } else if (c == '}') {
          ++pos_;
          state_ = State::kDone;
        } else {
          return Fail("expected ',' or '}' after a member");
        }
        break;
      case State::kItems:
      case State::kItemsNext:
        if (c == ']') {
          ++pos_;
          state_ = State::kAfterValue;
          break;
        }
        if (state_ == State::kItemsNext) {
          if (c != ',') return Fail("expected ',' or ']' between items");
          ++pos_;
          state_ = State::kItems;
          break;
        }
        if (c != '{') return Fail("an item of \"items\" is not an object");
        if (!ScanValue()) return Status::Ok();
        pos_ = value_end_;
        state_ = State::kItemsNext;
        if (!on_item(s.substr(value_start_, value_end_ - value_start_))) {
          stopped_ = true;
          return Status::Ok();
        }
        break;
      case State::kDone:
        return Fail("unexpected data after the list");
    }
  }
}

Status JsonListSplitter::Finish() const {
  if (stopped_ || state_ == State::kDone) return Status::Ok();
  return Fail("the body ended inside the list");
}

Status ProtobufListSplitter::Fail(std::string_view what) const {
  return BadRequestError("invalid protobuf list: " + std::string(what));
}

Status ProtobufListSplitter::Feed(std::string_view chunk, const ListItemHandler& on_item) {
  if (stopped_) return Status::Ok();
  buffer_.erase(0, pos_);  // at most one partial field stays
  pos_ = 0;
  buffer_.append(chunk);
  const std::string_view s = buffer_;
  if (!magic_seen_) {
    if (s.size() < kMagic.size()) return Status::Ok();
    if (s.substr(0, kMagic.size()) != kMagic) return Fail("missing the \"k8s\\0\" prefix");
    magic_seen_ = true;
    pos_ = kMagic.size();
  }
  while (pos_ < s.size()) {
    // One field: tag, and for length-delimited fields the length and the bytes.
    size_t p = pos_;
    uint64_t tag = 0;
    int r = ReadVarint(s, &p, &tag);
    if (r < 0) return Fail("malformed field tag");
    if (r == 0) return Status::Ok();
    const uint64_t field = tag >> 3;
    const uint32_t wire = tag & 7;
    uint64_t len = 0;
    if (wire == 0) {
      r = ReadVarint(s, &p, &len);
    } else if (wire == 2) {
      r = ReadVarint(s, &p, &len);
    } else if (wire == 1 || wire == 5) {
      r = 1;
      len = wire == 1 ? 8 : 4;
    } else {
      return Fail("unsupported wire type");
    }
    if (r < 0) return Fail("malformed length");
    if (r == 0) return Status::Ok();
    if (!in_raw_ && field == 2 && wire == 2) {
      // Unknown.raw: the List message itself; its fields follow at this level of the scan.
      if (raw_seen_) return Fail("two raw fields");
      raw_seen_ = in_raw_ = true;
      inner_left_ = len;
      pos_ = p;
      if (inner_left_ == 0) in_raw_ = false;
      continue;
    }
    const uint64_t body = wire == 0 ? 0 : len;
    if (s.size() - p < body) return Status::Ok();  // the field has not fully arrived
    const uint64_t whole = p - pos_ + body;
    if (in_raw_) {
      if (whole > inner_left_) return Fail("a field overruns the list");
      if (field == 1 && wire == 2) {
        metadata_.assign(s.substr(pos_, whole));
      } else if (field == 2 && wire == 2) {
        if (!on_item(s.substr(p, body))) {
          stopped_ = true;
          return Status::Ok();
        }
      }
      inner_left_ -= whole;
      if (inner_left_ == 0) in_raw_ = false;
    }
    pos_ = p + body;
  }
  return Status::Ok();
}

Status ProtobufListSplitter::Finish() const {
  if (stopped_) return Status::Ok();
  if (!magic_seen_ || !raw_seen_ || in_raw_ || pos_ != buffer_.size()) {
    return Fail("the body ended inside the list");
  }
  return Status::Ok();
}

}  // namespace svcplane::client::transport
