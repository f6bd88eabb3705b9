#include "api/codec/internal/proto_transcode.h"

#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <map>

#include "api/codec/internal/utf8.h"
#include "api/meta/scalars.h"
#include "base/base64.h"

namespace svcplane::api::codec::internal {
namespace {

namespace dom = simdjson::dom;

constexpr int kMaxDepth = 64;

// --- JSON → wire -------------------------------------------------------------------------------

struct ToProto {
  ProtoWriter& w;
  std::string* error;

  bool Fail(std::string_view field, std::string_view what) {
    if (error->empty()) *error = std::string(field) + ": " + std::string(what);
    return false;
  }

  bool Integer(const ProtoField& f, dom::element v, int64_t* out) {
    int64_t i;
    if (!v.get_int64().get(i)) {
      *out = i;
      return true;
    }
    uint64_t u;
    if (!v.get_uint64().get(u)) {
      *out = static_cast<int64_t>(u);
      return true;
    }
    double d;
    if (!v.get_double().get(d) && std::trunc(d) == d && std::fabs(d) < 9.2e18) {
      *out = static_cast<int64_t>(d);
      return true;
    }
    return Fail(f.name, "expected integer");
  }

  bool Single(const ProtoField& f, ProtoType type, const ProtoMessage* m, uint32_t num,
              dom::element v, int depth) {
    switch (type) {
      case ProtoType::kString: {
        std::string_view s;
        if (v.get_string().get(s)) return Fail(f.name, "expected string");
        w.Bytes(num, s);
        return true;
      }
      case ProtoType::kBytes: {
        std::string_view s;
        if (v.get_string().get(s)) return Fail(f.name, "expected base64 string");
        auto raw = Unbase64(s);
        if (!raw) return Fail(f.name, "invalid base64");
        w.Bytes(num, *raw);
        return true;
      }
      case ProtoType::kBool: {
        bool b;
        if (v.get_bool().get(b)) return Fail(f.name, "expected boolean");
        w.Bool(num, b);
        return true;
      }
      case ProtoType::kDouble:
      case ProtoType::kFloat: {
        double d;
        if (v.get_double().get(d)) return Fail(f.name, "expected number");
        if (type == ProtoType::kDouble) {
          w.Fixed64(num, std::bit_cast<uint64_t>(d));
        } else {
          w.Fixed32(num, std::bit_cast<uint32_t>(static_cast<float>(d)));
        }
        return true;
      }
      case ProtoType::kMessage:
        return Message(f, *m, num, v, depth);
      default:
        break;
    }
    int64_t i;
    if (!Integer(f, v, &i)) return false;
    switch (type) {
      case ProtoType::kInt32:
        w.Int(num, static_cast<int32_t>(i));
        break;
      case ProtoType::kUint32:
        w.Int(num, static_cast<uint32_t>(i));
        break;
      case ProtoType::kSint32:
      case ProtoType::kSint64:
        w.Tag(num, kVarint);
        w.Varint((static_cast<uint64_t>(i) << 1) ^ static_cast<uint64_t>(i >> 63));
        break;
      case ProtoType::kFixed64:
      case ProtoType::kSfixed64:
        w.Fixed64(num, static_cast<uint64_t>(i));
        break;
      case ProtoType::kFixed32:
      case ProtoType::kSfixed32:
        w.Fixed32(num, static_cast<uint32_t>(i));
        break;
      default:
        w.Int(num, i);
    }
    return true;
  }

  bool Message(const ProtoField& f, const ProtoMessage& m, uint32_t num, dom::element v,
               int depth) {
    if (v.is_null()) return true;
    if (depth > kMaxDepth) return Fail(f.name, "nested too deeply");
    switch (m.special) {
      case Special::kTime:
      case Special::kMicroTime: {
        std::string_view s;
        if (v.get_string().get(s)) return Fail(f.name, "expected RFC 3339 time string");
        auto micros = meta::ParseRFC3339Micros(s);
        if (!micros) return Fail(f.name, "invalid RFC 3339 time \"" + std::string(s) + "\"");
        int64_t secs = *micros / 1000000 - (*micros % 1000000 < 0);
        int64_t nanos = (*micros - secs * 1000000) * 1000;
        size_t mark = w.Begin(num);
        w.Int(1, secs);
        // metav1.Time keeps whole seconds (its proto form drops nanos); MicroTime keeps them.
        w.Int(2, m.special == Special::kTime ? 0 : nanos);
        w.End(mark);
        return true;
      }
      case Special::kIntOrString: {
        size_t mark = w.Begin(num);
        std::string_view s;
        if (!v.get_string().get(s)) {
          w.Int(1, 1);
          w.Int(2, 0);
          w.Bytes(3, s);
        } else {
          int64_t i;
          if (!Integer(f, v, &i)) return false;
          w.Int(1, 0);
          w.Int(2, static_cast<int32_t>(i));
          w.Bytes(3, "");
        }
        w.End(mark);
        return true;
      }
      case Special::kQuantity: {
        std::string_view s;
        std::string text;
        if (!v.get_string().get(s)) {
          text = s;
        } else if (v.is_number()) {
          text = simdjson::minify(v);
        } else {
          return Fail(f.name, "expected quantity string");
        }
        size_t mark = w.Begin(num);
        w.Bytes(1, text);
        w.End(mark);
        return true;
      }
      case Special::kRawJson: {
        size_t mark = w.Begin(num);
        w.Bytes(1, simdjson::minify(v));
        w.End(mark);
        return true;
      }
      case Special::kNone:
        break;
    }
    dom::object obj;
    if (v.get_object().get(obj)) return Fail(f.name, "expected object");
    size_t mark = w.Begin(num);
    if (!Body(m, obj, depth + 1)) return false;
    w.End(mark);
    return true;
  }

  bool Field(const ProtoField& f, dom::element v, int depth) {
    if (v.is_null()) return true;
    if (f.is_map) {
      dom::object obj;
      if (v.get_object().get(obj)) return Fail(f.name, "expected object");
      // Go writes map entries in sorted key order.
      std::vector<std::pair<std::string_view, dom::element>> entries;
      for (auto [key, val] : obj) entries.emplace_back(key, val);
      std::stable_sort(entries.begin(), entries.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [key, val] : entries) {
        size_t mark = w.Begin(f.number);
        if (f.key_type == ProtoType::kString) {
          w.Bytes(1, key);
        } else {
          int64_t k = 0;
          auto r = std::from_chars(key.data(), key.data() + key.size(), k);
          if (r.ec != std::errc()) return Fail(f.name, "expected integer map key");
          w.Int(1, k);
        }
        if (!val.is_null() || f.type != ProtoType::kMessage) {
          if (!Single(f, f.type, f.message, 2, val, depth)) return false;
        }
        w.End(mark);
      }
      return true;
    }
    if (f.repeated) {
      dom::array arr;
      if (v.get_array().get(arr)) return Fail(f.name, "expected array");
      for (dom::element e : arr) {
        if (e.is_null() && f.type == ProtoType::kMessage) {
          size_t mark = w.Begin(f.number);  // a null element is an empty message, as in Go
          w.End(mark);
          continue;
        }
        if (!Single(f, f.type, f.message, f.number, e, depth)) return false;
      }
      return true;
    }
    return Single(f, f.type, f.message, f.number, v, depth);
  }

  // Fields in ascending number order, as Go writes them. Driven by the object's keys (a schema
  // can have 40 fields where an object sets 3); `+inline` fields are always written (Go writes
  // non-pointer structs), from the same object.
  bool Body(const ProtoMessage& m, dom::object obj, int depth) {
    struct Entry {
      uint32_t number;
      const ProtoField* field;
      dom::element value;
    };
    Entry small[32];
    std::vector<Entry> big;
    size_t n = 0;
    auto add = [&](Entry e) {
      if (n < std::size(small)) {
        small[n++] = e;
        return;
      }
      if (big.empty()) big.assign(small, small + n);
      big.push_back(e);
      ++n;
    };
    for (const ProtoField& f : m.fields) {
      if (f.inline_json && f.message) add({f.number, &f, dom::element()});
    }
    for (auto [key, value] : obj) {  // keys of inline structs are read by their own Body()
      const ProtoField* f = m.FieldByName(key);
      if (f && !f->inline_json) add({f->number, f, value});
    }
    Entry* entries = big.empty() ? small : big.data();
    std::sort(entries, entries + n,
              [](const Entry& a, const Entry& b) { return a.number < b.number; });
    for (size_t i = 0; i < n; ++i) {
      const Entry& e = entries[i];
      if (i > 0 && entries[i - 1].number == e.number) continue;  // a repeated key: first wins
      if (e.field->inline_json) {
        size_t mark = w.Begin(e.number);
        if (!Body(*e.field->message, obj, depth + 1)) return false;
        w.End(mark);
        continue;
      }
      if (!Field(*e.field, e.value, depth)) return false;
    }
    return true;
  }
};

dom::parser& LocalDomParser() {
  thread_local dom::parser parser;
  return parser;
}

bool ParseJson(std::string_view json, dom::element* out, std::string* error) {
  if (LocalDomParser().parse(json.data(), json.size(), true).get(*out)) {
    *error = "invalid JSON";
    return false;
  }
  return true;
}

// --- wire → JSON -------------------------------------------------------------------------------

struct ToJson {
  JsonWriter& w;
  std::string* error;

  bool Fail(std::string_view field, std::string_view what) {
    if (error->empty()) *error = std::string(field) + ": " + std::string(what);
    return false;
  }

  bool Number(const ProtoField& f, ProtoType type, WireType wt, std::string_view raw) {
    if (type == ProtoType::kDouble || type == ProtoType::kFixed64 || type == ProtoType::kSfixed64) {
      uint64_t bits;
      ProtoReader r(raw);
      if (wt != kFixed64 || !r.ReadFixed64(&bits)) return Fail(f.name, "bad fixed64");
      if (type == ProtoType::kDouble) return Double(std::bit_cast<double>(bits));
      type == ProtoType::kFixed64 ? w.Raw(std::to_string(bits)) : w.Int(static_cast<int64_t>(bits));
      return true;
    }
    if (type == ProtoType::kFloat || type == ProtoType::kFixed32 || type == ProtoType::kSfixed32) {
      uint32_t bits;
      ProtoReader r(raw);
      if (wt != kFixed32 || !r.ReadFixed32(&bits)) return Fail(f.name, "bad fixed32");
      if (type == ProtoType::kFloat) return Double(std::bit_cast<float>(bits));
      type == ProtoType::kFixed32 ? w.Int(bits) : w.Int(static_cast<int32_t>(bits));
      return true;
    }
    uint64_t v;
    if (wt != kVarint || !DecodeVarint(raw, &v)) return Fail(f.name, "expected varint");
    switch (type) {
      case ProtoType::kBool:
        w.Bool(v != 0);
        break;
      case ProtoType::kInt32:
        w.Int(static_cast<int32_t>(static_cast<uint32_t>(v)));
        break;
      case ProtoType::kUint32:
        w.Int(static_cast<uint32_t>(v));
        break;
      case ProtoType::kUint64:
        w.Raw(std::to_string(v));
        break;
      case ProtoType::kSint32:
      case ProtoType::kSint64:
        w.Int(static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)));
        break;
      default:
        w.Int(static_cast<int64_t>(v));
    }
    return true;
  }

  bool Double(double d) {
    if (!std::isfinite(d)) return Fail("number", "not finite");
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof(buf), d);
    w.Raw(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
    return true;
  }

  bool Single(const ProtoField& f, ProtoType type, const ProtoMessage* m, WireValue v, int depth) {
    if (type == ProtoType::kString || type == ProtoType::kBytes || type == ProtoType::kMessage) {
      if (v.wt != kLen) return Fail(f.name, "expected a length-delimited value");
      if (type == ProtoType::kMessage) return Message(f, *m, v.raw, depth);
      if (type == ProtoType::kBytes) {
        w.String(Base64(v.raw));
        return true;
      }
      if (!ValidUtf8(v.raw)) {
        return Fail(f.name, "invalid UTF-8");
      }
      w.String(v.raw);
      return true;
    }
    return Number(f, type, v.wt, v.raw);
  }

  // Packed repeated scalars arrive as one length-delimited run; others one per occurrence.
  bool Repeated(const ProtoField& f, std::span<const WireValue> values, int depth) {
    w.Char('[');
    bool first = true;
    auto elem = [&](WireValue v) {
      if (!first) w.Char(',');
      first = false;
      return Single(f, f.type, f.message, v, depth);
    };
    const bool scalar = f.type != ProtoType::kString && f.type != ProtoType::kBytes &&
                        f.type != ProtoType::kMessage;
    for (const WireValue& v : values) {
      if (scalar && v.wt == kLen) {
        WireType inner = (f.type == ProtoType::kDouble || f.type == ProtoType::kFixed64 ||
                          f.type == ProtoType::kSfixed64)
                             ? kFixed64
                         : (f.type == ProtoType::kFloat || f.type == ProtoType::kFixed32 ||
                            f.type == ProtoType::kSfixed32)
                             ? kFixed32
                             : kVarint;
        ProtoReader r(v.raw);
        while (!r.done()) {
          std::string_view one;
          if (!r.ReadRaw(inner, &one)) return Fail(f.name, "truncated packed field");
          if (!elem({inner, one})) return false;
        }
        continue;
      }
      if (!elem(v)) return false;
    }
    w.Char(']');
    return true;
  }

  bool Map(const ProtoField& f, std::span<const WireValue> values, int depth) {
    // Last entry wins for a repeated key; JSON keys sorted as Go's encoder writes them.
    std::map<std::string, std::string> entries;
    for (const WireValue& v : values) {
      if (v.wt != kLen) return Fail(f.name, "expected map entry");
      ProtoReader r(v.raw);
      std::string key;
      WireValue val{kLen, {}};
      bool has_val = false;
      while (!r.done()) {
        uint32_t num;
        WireType wt;
        std::string_view raw;
        if (!r.ReadTag(&num, &wt) || !r.ReadRaw(wt, &raw)) return Fail(f.name, "bad map entry");
        if (num == 1) {
          if (f.key_type == ProtoType::kString) {
            if (wt != kLen) return Fail(f.name, "bad map key");
            if (!ValidUtf8(raw)) {
              return Fail(f.name, "invalid UTF-8");
            }
            key.assign(raw);
          } else {
            uint64_t k;
            if (wt != kVarint || !DecodeVarint(raw, &k)) return Fail(f.name, "bad map key");
            key = std::to_string(static_cast<int64_t>(k));
          }
        } else if (num == 2) {
          val = {wt, raw};
          has_val = true;
        }
      }
      std::string text;
      JsonWriter vw(&text);
      ToJson sub{vw, error};
      if (has_val) {
        if (!sub.Single(f, f.type, f.message, val, depth)) return false;
      } else if (f.type == ProtoType::kString) {
        vw.String("");
      } else if (f.type == ProtoType::kMessage) {
        if (!sub.Message(f, *f.message, "", depth)) return false;
      } else {
        vw.Int(0);
      }
      entries[std::move(key)] = std::move(text);
    }
    w.Char('{');
    bool first = true;
    for (const auto& [k, v] : entries) {
      if (!first) w.Char(',');
      first = false;
      w.String(k);
      w.Char(':');
      w.Raw(v);
    }
    w.Char('}');
    return true;
  }

  bool Field(const ProtoField& f, std::span<const WireValue> values, int depth) {
    if (f.is_map) return Map(f, values, depth);
    if (f.repeated) return Repeated(f, values, depth);
    if (f.type == ProtoType::kMessage) {
      // Occurrences of a message field merge: their bodies concatenate.
      if (values.size() == 1) return Single(f, f.type, f.message, values[0], depth);
      std::string merged;
      for (const WireValue& v : values) {
        if (v.wt != kLen) return Fail(f.name, "expected a length-delimited value");
        merged.append(v.raw);
      }
      return Message(f, *f.message, merged, depth);
    }
    return Single(f, f.type, f.message, values.back(), depth);  // last one wins
  }

  bool Message(const ProtoField& f, const ProtoMessage& m, std::string_view body, int depth) {
    if (depth > kMaxDepth) return Fail(f.name, "nested too deeply");
    if (m.special != Special::kNone) return SpecialMessage(f, m, body);
    w.Char('{');
    bool first = true;
    if (!Fields(m, body, &first, depth + 1)) return false;
    w.Char('}');
    return true;
  }

  // Writes m's fields as members of the object being written (so inline fields can share it).
  bool Fields(const ProtoMessage& m, std::string_view body, bool* first, int depth) {
    if (depth > kMaxDepth) return Fail(m.full_name, "nested too deeply");
    // Occurrences grouped by field, in declaration order (Go's JSON order): field indexes and
    // values in parallel arrays on the stack (most messages have a handful of fields set), so
    // that one field's occurrences end up contiguous and are handed on as a span, without a
    // vector per message.
    constexpr size_t kSmall = 32;
    uint32_t small_index[kSmall];
    WireValue small_value[kSmall];
    std::vector<uint32_t> big_index;
    std::vector<WireValue> big_value;
    size_t n = 0;
    bool sorted = true;
    ProtoReader r(body);
    while (!r.done()) {
      uint32_t num;
      WireType wt;
      std::string_view raw;
      if (!r.ReadTag(&num, &wt) || !r.ReadRaw(wt, &raw)) {
        return Fail(m.full_name, "truncated or malformed message");
      }
      const ProtoField* f = m.FieldByNumber(num);
      if (!f) continue;  // unknown to our schema: dropped, as upstream drops them
      const auto index = static_cast<uint32_t>(f - m.fields.data());
      if (n < kSmall) {
        if (n && small_index[n - 1] > index) sorted = false;
        small_index[n] = index;
        small_value[n] = {wt, raw};
      } else {
        if (big_index.empty()) {
          big_index.assign(small_index, small_index + n);
          big_value.assign(small_value, small_value + n);
        }
        if (big_index.back() > index) sorted = false;
        big_index.push_back(index);
        big_value.push_back({wt, raw});
      }
      ++n;
    }
    uint32_t* index = big_index.empty() ? small_index : big_index.data();
    WireValue* value = big_index.empty() ? small_value : big_value.data();
    if (!sorted) {
      // Our encoder and Go's write fields in number order; declaration order differs only in
      // a few kinds. A stable sort of the positions keeps each field's occurrences in wire order.
      std::vector<uint32_t> order(n);
      for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
      std::stable_sort(order.begin(), order.end(),
                       [&](uint32_t a, uint32_t b) { return index[a] < index[b]; });
      std::vector<uint32_t> si(n);
      std::vector<WireValue> sv(n);
      for (size_t i = 0; i < n; ++i) {
        si[i] = index[order[i]];
        sv[i] = value[order[i]];
      }
      big_index = std::move(si);
      big_value = std::move(sv);
      index = big_index.data();
      value = big_value.data();
    }
    for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j < n && index[j] == index[i]) ++j;
      const std::span<const WireValue> values(value + i, j - i);
      const ProtoField& f = m.fields[index[i]];
      i = j;
      if (f.inline_json && f.message && f.message->special == Special::kNone) {
        std::string merged;
        for (const WireValue& v : values) {
          if (v.wt != kLen) return Fail(f.name, "expected a length-delimited value");
          merged.append(v.raw);
        }
        if (!Fields(*f.message, merged, first, depth + 1)) return false;
        continue;
      }
      if (OmitInJson(f, values)) continue;
      if (!*first) w.Char(',');
      *first = false;
      w.String(f.name);
      w.Char(':');
      if (!Field(f, values, depth)) return false;
    }
    return true;
  }

  bool SpecialMessage(const ProtoField& f, const ProtoMessage& m, std::string_view body) {
    int64_t ints[4] = {0, 0, 0, 0};
    std::string_view strs[4];
    bool seen[4] = {false, false, false, false};
    ProtoReader r(body);
    while (!r.done()) {
      uint32_t num;
      WireType wt;
      std::string_view raw;
      if (!r.ReadTag(&num, &wt) || !r.ReadRaw(wt, &raw)) return Fail(f.name, "malformed value");
      if (num > 3) continue;
      seen[num] = true;
      if (wt == kLen) {
        strs[num] = raw;
      } else if (wt == kVarint) {
        uint64_t v;
        if (!DecodeVarint(raw, &v)) return Fail(f.name, "malformed varint");
        ints[num] = static_cast<int64_t>(v);
      }
    }
    switch (m.special) {
      case Special::kTime:
        if (!seen[1] && !seen[2]) return w.Null(), true;
        w.Char('"');
        w.Raw(meta::FormatRFC3339(ints[1]));
        w.Char('"');
        return true;
      case Special::kMicroTime: {
        if (!seen[1] && !seen[2]) return w.Null(), true;
        int32_t nanos = static_cast<int32_t>(ints[2]);
        if (nanos < 0 || nanos > 999999999) return Fail(f.name, "nanos out of range");
        w.Char('"');
        w.Raw(meta::FormatRFC3339Micro(ints[1] * 1000000 + nanos / 1000));
        w.Char('"');
        return true;
      }
      case Special::kIntOrString:
        if (ints[1] == 1) {
          if (!ValidUtf8(strs[3])) {
            return Fail(f.name, "invalid UTF-8");
          }
          w.String(strs[3]);
        } else {
          w.Int(static_cast<int32_t>(ints[2]));
        }
        return true;
      case Special::kQuantity:
        if (!ValidUtf8(strs[1])) {
          return Fail(f.name, "invalid UTF-8");
        }
        w.String(strs[1]);
        return true;
      case Special::kRawJson: {
        if (strs[1].empty()) return w.Null(), true;
        dom::element e;
        std::string err;
        // Validated and minified: what we store must be well-formed JSON.
        if (LocalDomParser().parse(strs[1].data(), strs[1].size(), true).get(e)) {
          return Fail(f.name, "raw JSON is not valid JSON");
        }
        w.Raw(simdjson::minify(e));
        return true;
      }
      case Special::kNone:
        break;
    }
    return Fail(f.name, "unexpected message");
  }
};

}  // namespace

bool OmitInJson(const ProtoField& f, std::span<const WireValue> values) {
  return !f.repeated && f.type == ProtoType::kString && values.size() >= 1 &&
         values.back().raw.empty();
}

bool JsonMembersToProto(const ProtoMessage& m, std::string_view json_object, bool (*skip)(uint32_t),
                        std::string* out, std::vector<FieldSpan>* spans, std::string* error) {
  dom::element v;
  if (!ParseJson(json_object, &v, error)) return false;
  dom::object obj;
  if (v.get_object().get(obj)) return false;
  ProtoWriter w(out);
  ToProto tp{w, error};
  for (auto [key, value] : obj) {
    const ProtoField* f = m.FieldByName(key);
    if (!f || f->inline_json || skip(f->number)) continue;
    size_t begin = out->size();
    if (!tp.Field(*f, value, 0)) {
      out->resize(begin);  // a value that does not fit the schema is dropped, alone
      error->clear();
      continue;
    }
    if (out->size() > begin) spans->push_back({f->number, begin, out->size() - begin});
  }
  std::stable_sort(spans->begin(), spans->end(),
                   [](const FieldSpan& a, const FieldSpan& b) { return a.number < b.number; });
  return true;
}

bool JsonFieldToProto(const ProtoField& f, std::string_view json, ProtoWriter& w,
                      std::string* error) {
  dom::element v;
  if (!ParseJson(json, &v, error)) return false;
  ToProto tp{w, error};
  return tp.Field(f, v, 0);
}

bool JsonMessageToProto(const ProtoMessage& m, std::string_view json, ProtoWriter& w,
                        std::string* error) {
  dom::element v;
  if (!ParseJson(json, &v, error)) return false;
  if (v.is_null()) return true;
  ToProto tp{w, error};
  if (m.special != Special::kNone) {
    // Write it as field 1 of a scratch buffer, then keep only the body.
    std::string scratch;
    ProtoWriter sw(&scratch);
    ToProto sub{sw, error};
    ProtoField f;
    f.name = m.full_name;
    if (!sub.Message(f, m, 1, v, 0)) return false;
    ProtoReader r(scratch);
    uint32_t num;
    WireType wt;
    std::string_view body;
    if (!scratch.empty() && r.ReadTag(&num, &wt) && r.ReadBytes(&body)) {
      w.buffer()->append(body);
    }
    return true;
  }
  dom::object obj;
  if (v.get_object().get(obj)) {
    *error = m.full_name + ": expected object";
    return false;
  }
  return tp.Body(m, obj, 0);
}

bool ProtoFieldToJson(const ProtoField& f, std::span<const WireValue> values, JsonWriter& w,
                      std::string* error) {
  ToJson tj{w, error};
  return tj.Field(f, values, 0);
}

bool ProtoMessageToJson(const ProtoMessage& m, std::string_view body, JsonWriter& w,
                        std::string* error) {
  ToJson tj{w, error};
  ProtoField f;
  f.name = m.full_name;
  return tj.Message(f, m, body, 0);
}

}  // namespace svcplane::api::codec::internal
