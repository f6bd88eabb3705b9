#pragma once

// Protocol-buffer wire primitives: varints, tags, length-delimited fields. No schema here.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace svcplane::api::codec::internal {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// Appends to a caller-owned buffer. Nested messages are written in place: Begin() leaves one
// byte for the length (or two when the caller expects 128..16383 bytes: a Pod, its spec), which
// End() fills in directly when the guess was right and otherwise fixes by moving the body. The
// output is byte for byte what Go's generated Marshal writes (minimal varints).
class ProtoWriter {
 public:
  explicit ProtoWriter(std::string* out) : out_(out) {}

  void Varint(uint64_t v) {
    if (v < 0x80) {
      out_->push_back(static_cast<char>(v));
      return;
    }
    char buf[10];
    size_t n = 0;
    while (v >= 0x80) {
      buf[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
    out_->append(buf, n);
  }
  void Tag(uint32_t field, WireType wt) { Varint((uint64_t{field} << 3) | wt); }
  // int32 and int64 alike: negative values take ten bytes, as protobuf's int32 does.
  void Int(uint32_t field, int64_t v) {
    Tag(field, kVarint);
    Varint(static_cast<uint64_t>(v));
  }
  void Bool(uint32_t field, bool v) {
    Tag(field, kVarint);
    out_->push_back(v ? 1 : 0);
  }
  void Bytes(uint32_t field, std::string_view s) {
    Tag(field, kLen);
    Varint(s.size());
    out_->append(s);
  }
  void Fixed64(uint32_t field, uint64_t v) {
    Tag(field, kFixed64);
    char b[8];
    std::memcpy(b, &v, 8);  // little-endian hosts only (x86-64, arm64)
    out_->append(b, 8);
  }
  void Fixed32(uint32_t field, uint32_t v) {
    Tag(field, kFixed32);
    char b[4];
    std::memcpy(b, &v, 4);
    out_->append(b, 4);
  }

  // Starts a length-delimited field; returns the mark End() needs (where its body starts).
  // A two-byte placeholder is written as 0x80 0x00: a tag's last byte is always < 0x80, so End()
  // can tell which one it finds.
  size_t Begin(uint32_t field, bool expect_big = false) {
    Tag(field, kLen);
    if (expect_big) {
      out_->append("\x80\x00", 2);
    } else {
      out_->push_back('\0');
    }
    return out_->size();
  }
  void End(size_t mark) {
    const size_t reserved = (static_cast<unsigned char>((*out_)[mark - 2]) & 0x80) ? 2 : 1;
    const size_t len = out_->size() - mark;
    char buf[10];
    size_t n = 0;
    uint64_t v = len;
    while (v >= 0x80) {
      buf[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
    if (n > reserved) {
      out_->insert(mark, n - reserved, '\0');
    } else if (n < reserved) {
      char* base = out_->data();
      std::memmove(base + mark - 1, base + mark, len);
      out_->pop_back();
    }
    std::memcpy(out_->data() + mark - reserved, buf, n);
  }

  std::string* buffer() { return out_; }

 private:
  std::string* out_;
};

// Reads one message body. Every read is bounds-checked; on malformed input the Next*/Read*
// calls return false and the caller reports an error (never reads past the end).
class ProtoReader {
 public:
  explicit ProtoReader(std::string_view data)
      : p_(reinterpret_cast<const uint8_t*>(data.data())), end_(p_ + data.size()) {}

  bool done() const { return p_ >= end_; }

  bool ReadVarint(uint64_t* v) {
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return false;
      uint8_t c = *p_++;
      r |= uint64_t{c & 0x7Fu} << shift;
      if (c < 0x80) {
        *v = r;
        return true;
      }
    }
    return false;  // more than ten bytes
  }

  // Reads a tag; false on a malformed tag (field 0, group wire types, bad varint).
  bool ReadTag(uint32_t* field, WireType* wt) {
    uint64_t key;
    if (!ReadVarint(&key)) return false;
    uint64_t f = key >> 3;
    uint32_t t = static_cast<uint32_t>(key & 7);
    if (f == 0 || f > 0x1FFFFFFF) return false;
    if (t != kVarint && t != kFixed64 && t != kLen && t != kFixed32) return false;
    *field = static_cast<uint32_t>(f);
    *wt = static_cast<WireType>(t);
    return true;
  }

  bool ReadBytes(std::string_view* out) {
    uint64_t n;
    if (!ReadVarint(&n)) return false;
    if (n > static_cast<uint64_t>(end_ - p_)) return false;
    *out = std::string_view(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }

  bool ReadFixed64(uint64_t* v) {
    if (end_ - p_ < 8) return false;
    std::memcpy(v, p_, 8);
    p_ += 8;
    return true;
  }
  bool ReadFixed32(uint32_t* v) {
    if (end_ - p_ < 4) return false;
    std::memcpy(v, p_, 4);
    p_ += 4;
    return true;
  }

  // Reads the value of a field of wire type `wt` as raw bytes (varints and fixed values as their
  // encoded bytes, length-delimited ones without their length).
  bool ReadRaw(WireType wt, std::string_view* out) {
    const uint8_t* start = p_;
    switch (wt) {
      case kVarint: {
        uint64_t v;
        if (!ReadVarint(&v)) return false;
        break;
      }
      case kFixed64:
        if (end_ - p_ < 8) return false;
        p_ += 8;
        break;
      case kFixed32:
        if (end_ - p_ < 4) return false;
        p_ += 4;
        break;
      case kLen:
        return ReadBytes(out);
    }
    *out = std::string_view(reinterpret_cast<const char*>(start), static_cast<size_t>(p_ - start));
    return true;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

inline bool DecodeVarint(std::string_view raw, uint64_t* v) {
  ProtoReader r(raw);
  return r.ReadVarint(v) && r.done();
}

}  // namespace svcplane::api::codec::internal
