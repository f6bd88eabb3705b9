#include "api/codec/internal/json_decode.h"

#include <string>

#include "api/codec/internal/minify.h"

namespace svcplane::api::codec::internal {
namespace {

std::string_view TypeName(od::json_type t) {
  switch (t) {
    case od::json_type::array:
      return "array";
    case od::json_type::object:
      return "object";
    case od::json_type::number:
      return "number";
    case od::json_type::string:
      return "string";
    case od::json_type::boolean:
      return "boolean";
    case od::json_type::null:
      return "null";
  }
  return "value";
}

constexpr int kMaxDepth = 1000;  // simdjson's own limit is 1024; stay below it with our frames

bool Validate(od::value v, DecodeContext& ctx, int depth) {
  if (depth > kMaxDepth) return ctx.Fail("JSON nested too deeply");
  od::json_type t;
  if (auto err = v.type().get(t)) return ctx.FailSimdjson(err, "value", nullptr);
  switch (t) {
    case od::json_type::object: {
      od::object obj;
      if (auto err = v.get_object().get(obj)) return ctx.FailSimdjson(err, "object", nullptr);
      for (auto field : obj) {
        std::string_view key;
        if (auto err = field.unescaped_key().get(key)) return ctx.FailSimdjson(err, "key", nullptr);
        od::value fv;
        if (auto err = field.value().get(fv)) return ctx.FailSimdjson(err, "value", nullptr);
        ctx.Push(key);
        if (!Validate(fv, ctx, depth + 1)) return false;
        ctx.Pop();
      }
      return true;
    }
    case od::json_type::array: {
      od::array arr;
      if (auto err = v.get_array().get(arr)) return ctx.FailSimdjson(err, "array", nullptr);
      size_t i = 0;
      for (auto elem : arr) {
        od::value ev;
        if (auto err = elem.get(ev)) return ctx.FailSimdjson(err, "value", nullptr);
        ctx.PushIndex(i++);
        if (!Validate(ev, ctx, depth + 1)) return false;
        ctx.Pop();
      }
      return true;
    }
    case od::json_type::string: {
      // UTF-8 was validated for the whole document in stage 1; only escapes remain to check,
      // and only strings containing a backslash have any (the rest need no unescaping pass).
      std::string_view tok = v.raw_json_token();
      bool has_escape = false;
      for (size_t i = 1; i < tok.size() && tok[i] != '"'; ++i) {
        if (tok[i] == '\\') {
          has_escape = true;
          break;
        }
      }
      if (!has_escape) return true;
      std::string_view s;
      if (auto err = v.get_string().get(s)) return ctx.FailSimdjson(err, "string", nullptr);
      return true;
    }
    case od::json_type::number: {
      double d;
      if (auto err = v.get_double().get(d)) return ctx.FailSimdjson(err, "number", nullptr);
      return true;
    }
    case od::json_type::boolean: {
      bool b;
      if (auto err = v.get_bool().get(b)) return ctx.FailSimdjson(err, "boolean", nullptr);
      return true;
    }
    case od::json_type::null: {
      bool n = false;
      if (auto err = v.is_null().get(n)) return ctx.FailSimdjson(err, "null", nullptr);
      if (!n) return ctx.Fail("invalid literal");
      return true;
    }
  }
  return ctx.Fail("unexpected JSON value");
}

// Copies validated JSON without insignificant whitespace (simdjson's SIMD minifier), so a
// pretty-printed manifest's unknown fields are stored and served compactly, as kube-apiserver
// (which re-encodes them) does.
void AppendCompact(std::string_view raw, std::string* out) {
  out->resize(raw.size());
  size_t len = 0;
  if (Minify(raw.data(), raw.size(), out->data(), len) != simdjson::SUCCESS) {
    out->assign(raw);  // cannot happen for validated input; keep the bytes rather than lose them
    return;
  }
  out->resize(len);
}

bool GetInt64(od::value v, int64_t* out, DecodeContext& ctx) {
  if (auto err = v.get_int64().get(*out)) return ctx.FailSimdjson(err, "integer", &v);
  return true;
}

}  // namespace

bool DecodeContext::Fail(std::string_view what) {
  if (!error_.empty()) return false;
  std::string path;
  for (const auto& seg : path_) {
    if (const auto* name = std::get_if<std::string_view>(&seg)) {
      if (!path.empty()) path.push_back('.');
      path.append(*name);
    } else if (const auto* idx = std::get_if<size_t>(&seg)) {
      path += "[" + std::to_string(*idx) + "]";
    } else {
      path += "[" + std::string(std::get<Key>(seg).key) + "]";
    }
  }
  error_ = path.empty() ? std::string(what) : path + ": " + std::string(what);
  return false;
}

bool DecodeContext::FailSimdjson(simdjson::error_code code, std::string_view expected,
                                 od::value* v) {
  if (code == simdjson::INCORRECT_TYPE && v != nullptr) {
    od::json_type t;
    if (!v->type().get(t)) {
      return Fail("expected " + std::string(expected) + ", got " + std::string(TypeName(t)));
    }
    return Fail("expected " + std::string(expected));
  }
  if (code == simdjson::NUMBER_OUT_OF_RANGE) {
    return Fail("number out of range for " + std::string(expected));
  }
  return Fail(std::string("invalid JSON: ") + simdjson::error_message(code));
}

bool CaptureRaw(od::value v, std::string* out, DecodeContext& ctx) {
  std::string_view token = v.raw_json_token();
  const char* start = token.data();
  const bool container = !token.empty() && (token[0] == '{' || token[0] == '[');
  if (!Validate(v, ctx, 0)) return false;
  if (!container) {
    // A scalar is its own token (validation may not consume it, so the iterator's position
    // says nothing about where it ends); drop the whitespace the token view may carry.
    while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                              token.back() == '\t')) {
      token.remove_suffix(1);
    }
    if (out != nullptr) out->assign(token);
    return true;
  }
  const char* end = nullptr;
  if (auto err = ctx.doc()->current_location().get(end)) {
    return ctx.FailSimdjson(err, "value", nullptr);
  }
  while (end > start && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\r' || end[-1] == '\t')) {
    --end;
  }
  if (out != nullptr) AppendCompact(std::string_view(start, static_cast<size_t>(end - start)), out);
  return true;
}

bool DecodeValue(od::value v, std::string& out, DecodeContext& ctx) {
  if (TakeNull(v)) {
    out.clear();
    return true;
  }
  std::string_view s;
  if (auto err = v.get_string().get(s)) return ctx.FailSimdjson(err, "string", &v);
  out.assign(s);
  return true;
}

bool DecodeValue(od::value v, bool& out, DecodeContext& ctx) {
  if (TakeNull(v)) {
    out = false;
    return true;
  }
  if (auto err = v.get_bool().get(out)) return ctx.FailSimdjson(err, "boolean", &v);
  return true;
}

bool DecodeValue(od::value v, int32_t& out, DecodeContext& ctx) {
  if (TakeNull(v)) {
    out = 0;
    return true;
  }
  int64_t wide;
  if (!GetInt64(v, &wide, ctx)) return false;
  if (wide < std::numeric_limits<int32_t>::min() || wide > std::numeric_limits<int32_t>::max()) {
    return ctx.Fail("number " + std::to_string(wide) + " out of range for int32");
  }
  out = static_cast<int32_t>(wide);
  return true;
}

bool DecodeValue(od::value v, int64_t& out, DecodeContext& ctx) {
  if (TakeNull(v)) {
    out = 0;
    return true;
  }
  return GetInt64(v, &out, ctx);
}

bool DecodeValue(od::value v, meta::Time& out, DecodeContext& ctx) {
  out = meta::Time{};
  if (TakeNull(v)) return true;
  std::string_view s;
  if (auto err = v.get_string().get(s)) return ctx.FailSimdjson(err, "RFC 3339 time string", &v);
  if (s.empty()) return true;
  auto micros = meta::ParseRFC3339Micros(s);
  if (!micros) return ctx.Fail("invalid RFC 3339 time \"" + std::string(s) + "\"");
  int64_t secs = *micros / 1000000 - (*micros % 1000000 < 0 ? 1 : 0);
  out = meta::Time::FromUnix(secs);
  return true;
}

bool DecodeValue(od::value v, meta::MicroTime& out, DecodeContext& ctx) {
  out = meta::MicroTime{};
  if (TakeNull(v)) return true;
  std::string_view s;
  if (auto err = v.get_string().get(s)) return ctx.FailSimdjson(err, "RFC 3339 time string", &v);
  if (s.empty()) return true;
  auto micros = meta::ParseRFC3339Micros(s);
  if (!micros) return ctx.Fail("invalid RFC 3339 time \"" + std::string(s) + "\"");
  out = meta::MicroTime::FromUnixMicros(*micros);
  return true;
}

bool DecodeValue(od::value v, meta::IntOrString& out, DecodeContext& ctx) {
  out = meta::IntOrString{};
  if (TakeNull(v)) return true;
  od::json_type t;
  if (auto err = v.type().get(t)) return ctx.FailSimdjson(err, "value", nullptr);
  if (t == od::json_type::string) {
    out.is_string = true;
    return DecodeValue(v, out.str_value, ctx);
  }
  if (t == od::json_type::number) return DecodeValue(v, out.int_value, ctx);
  return ctx.Fail("expected integer or string, got " + std::string(TypeName(t)));
}

bool DecodeValue(od::value v, meta::Quantity& out, DecodeContext& ctx) {
  out = meta::Quantity{};
  if (TakeNull(v)) return true;
  od::json_type t;
  if (auto err = v.type().get(t)) return ctx.FailSimdjson(err, "value", nullptr);
  if (t == od::json_type::number) {  // upstream accepts `cpu: 4` as well as `cpu: "4"`
    std::string_view tok = v.raw_json_token();
    double d;
    if (auto err = v.get_double().get(d)) return ctx.FailSimdjson(err, "quantity", nullptr);
    while (!tok.empty() &&
           (tok.back() == ' ' || tok.back() == '\n' || tok.back() == '\r' || tok.back() == '\t')) {
      tok.remove_suffix(1);
    }
    out.text.assign(tok);
    return true;
  }
  if (!DecodeValue(v, out.text, ctx)) return false;
  if (!out.text.empty() && !out.MilliValue()) {
    return ctx.Fail(
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
  return true;
}

// Go's base64.StdEncoding as encoding/json decodes a []byte: padding required, '\r' and '\n'
// skipped; an error names the input byte as Go's CorruptInputError does.
bool DecodeValue(od::value v, meta::Bytes& out, DecodeContext& ctx) {
  out = meta::Bytes{};
  if (TakeNull(v)) return true;
  std::string text;
  if (!DecodeValue(v, text, ctx)) return false;
  auto fail = [&](size_t at) {
    return ctx.Fail("illegal base64 data at input byte " + std::to_string(at));
  };
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  uint32_t acc = 0;
  int have = 0;           // sextets in the current quantum
  size_t quantum_at = 0;  // input index where the current quantum started
  size_t i = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\r' || c == '\n') continue;
    if (have == 0) quantum_at = i;
    if (c == '=') {
      // "xx==" or "xxx=": what follows may only be the rest of the padding and line breaks.
      if (have < 2) return fail(i);
      size_t need = 4 - static_cast<size_t>(have) - 1;
      size_t j = i + 1;
      for (; j < text.size() && need > 0; ++j) {
        if (text[j] == '\r' || text[j] == '\n') continue;
        if (text[j] != '=') return fail(j - 1);  // Go names the byte before it
        --need;
      }
      if (need > 0) return fail(text.size());
      for (; j < text.size(); ++j) {
        if (text[j] != '\r' && text[j] != '\n') return fail(j);
      }
      if (have == 2) {
        out.data.push_back(static_cast<char>((acc >> 4) & 0xff));
      } else {
        out.data.push_back(static_cast<char>((acc >> 10) & 0xff));
        out.data.push_back(static_cast<char>((acc >> 2) & 0xff));
      }
      return true;
    }
    auto pos = kAlphabet.find(c);
    if (pos == std::string_view::npos) return fail(i);
    acc = (acc << 6) | static_cast<uint32_t>(pos);
    if (++have == 4) {
      out.data.push_back(static_cast<char>((acc >> 16) & 0xff));
      out.data.push_back(static_cast<char>((acc >> 8) & 0xff));
      out.data.push_back(static_cast<char>(acc & 0xff));
      acc = 0;
      have = 0;
    }
  }
  if (have != 0) return fail(quantum_at);
  return true;
}

bool DecodeValue(od::value v, meta::RawJson& out, DecodeContext& ctx) {
  out = meta::RawJson{};
  return CaptureRaw(v, &out.text, ctx);
}

}  // namespace svcplane::api::codec::internal
