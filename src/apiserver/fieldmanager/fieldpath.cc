#include "apiserver/fieldmanager/fieldpath.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include "api/validation/field_errors.h"
#include "apiserver/fieldmanager/internal/go_quote.h"
#include "base/json_string.h"

namespace svcplane::apiserver::fieldmanager {
namespace {

namespace json = boost::json;

bool IsNumber(const json::value& v) { return v.is_int64() || v.is_uint64() || v.is_double(); }

double AsDouble(const json::value& v) {
  if (v.is_double()) return v.get_double();
  if (v.is_int64()) return static_cast<double>(v.get_int64());
  return static_cast<double>(v.get_uint64());
}

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareIntegers(const json::value& a, const json::value& b) {
  if (a.is_uint64() && b.is_uint64()) return Cmp(a.get_uint64(), b.get_uint64());
  if (a.is_uint64()) return b.get_int64() < 0 ? 1 : Cmp(a.get_uint64(), uint64_t(b.get_int64()));
  if (b.is_uint64()) return a.get_int64() < 0 ? -1 : Cmp(uint64_t(a.get_int64()), b.get_uint64());
  return Cmp(a.get_int64(), b.get_int64());
}

int CompareStrings(std::string_view a, std::string_view b) {
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// The rank of a non-numeric kind in SMD's total order: numbers < strings < bools < lists <
// maps < null.
int KindRank(const json::value& v) {
  if (IsNumber(v)) return 0;
  if (v.is_string()) return 1;
  if (v.is_bool()) return 2;
  if (v.is_array()) return 3;
  if (v.is_object()) return 4;
  return 5;  // null
}

std::vector<const json::key_value_pair*> SortedEntries(const json::object& o) {
  std::vector<const json::key_value_pair*> out;
  out.reserve(o.size());
  for (const auto& kv : o) out.push_back(&kv);
  std::sort(out.begin(), out.end(),
            [](const auto* a, const auto* b) { return a->key() < b->key(); });
  return out;
}

// SMD value.Compare: a total order over values; ints and floats compare numerically.
int CompareValues(const json::value& a, const json::value& b) {
  int ra = KindRank(a), rb = KindRank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      if (a.is_double() || b.is_double()) return Cmp(AsDouble(a), AsDouble(b));
      return CompareIntegers(a, b);
    case 1:
      return CompareStrings(a.get_string(), b.get_string());
    case 2:
      return Cmp(a.get_bool(), b.get_bool());
    case 3: {
      const auto& la = a.get_array();
      const auto& lb = b.get_array();
      for (size_t i = 0; i < la.size() && i < lb.size(); ++i) {
        if (int c = CompareValues(la[i], lb[i]); c != 0) return c;
      }
      return Cmp(la.size(), lb.size());
    }
    case 4: {
      auto ea = SortedEntries(a.get_object());
      auto eb = SortedEntries(b.get_object());
      for (size_t i = 0; i < ea.size() && i < eb.size(); ++i) {
        if (int c = CompareStrings(ea[i]->key(), eb[i]->key()); c != 0) return c;
        if (int c = CompareValues(ea[i]->value(), eb[i]->value()); c != 0) return c;
      }
      return Cmp(ea.size(), eb.size());
    }
    default:
      return 0;
  }
}

// Go's strconv.AppendFloat(f, fmt, -1, 64) for fmt 'f' or 'e': the shortest digits that read
// back as `f`. std::to_chars gives the same digits and the same two-digit exponent form.
std::string ShortestFloat(double f, bool scientific) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, f,
                           scientific ? std::chars_format::scientific : std::chars_format::fixed);
  return std::string(buf, res.ptr);
}

// A float as Go's encoding/json (and jsoniter's standard-library mode) writes it.
void AppendJsonFloat(std::string& out, double f) {
  if (!std::isfinite(f)) {  // unrepresentable in JSON; upstream errors, we write null
    out += "null";
    return;
  }
  double abs = std::fabs(f);
  bool scientific = abs != 0 && (abs < 1e-6 || abs >= 1e21);
  std::string s = ShortestFloat(f, scientific);
  if (scientific) {
    // Go cleans e-09 up to e-9 (negative exponents only).
    size_t n = s.size();
    if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') s.erase(n - 2, 1);
  }
  out += s;
}

// Go's strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v prints: %e when the exponent is
// below -4 or at least 6 (the threshold for the shortest form), %f otherwise.
std::string GoFormatFloat(double f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "+Inf" : "-Inf";
  std::string sci = ShortestFloat(f, true);
  int exp = std::atoi(sci.c_str() + sci.find('e') + 1);
  if (f != 0 && (exp < -4 || exp >= 6)) return sci;
  return ShortestFloat(f, false);
}

// SMD value.ToString: how values print inside conflict paths.
std::string ValueToString(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return v.get_bool() ? "true" : "false";
    case json::kind::int64:
      return std::to_string(v.get_int64());
    case json::kind::uint64:
      return std::to_string(v.get_uint64());
    case json::kind::double_:
      return GoFormatFloat(v.get_double());
    case json::kind::string:
      return api::validation::GoQuote(v.get_string());
    case json::kind::array: {
      std::string out = "[";
      bool first = true;
      for (const auto& item : v.get_array()) {
        if (!first) out += ",";
        first = false;
        out += ValueToString(item);
      }
      return out + "]";
    }
    case json::kind::object: {
      std::string out;
      for (const auto* kv : SortedEntries(v.get_object())) {
        out += std::string(kv->key()) + "=" + ValueToString(kv->value());
      }
      return out;
    }
  }
  return "";
}

void SortKey(std::vector<std::pair<std::string, json::value>>& key) {
  std::stable_sort(key.begin(), key.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

Status ParseError(std::string msg) { return Status(Code::kBadRequest, std::move(msg)); }

// DeserializePathElement. `unknown` is set for a well-formed key of a kind this version does
// not know, which the caller skips.
Result<PathElement> ParsePathElement(std::string_view s, bool* unknown) {
  *unknown = false;
  if (s.size() < 2) return ParseError("key must be 2 characters long: " + std::string(s));
  if (s[1] != ':') return ParseError("missing colon: " + std::string(s));
  std::string_view payload = s.substr(2);
  switch (s[0]) {
    case 'f':
      return PathElement::Field(std::string(payload));
    case 'v': {
      boost::system::error_code ec;
      json::value v = json::parse(payload, ec);
      if (ec)
        return ParseError("parsing value path element " + std::string(s) + ": " + ec.message());
      return PathElement::Value(std::move(v));
    }
    case 'k': {
      boost::system::error_code ec;
      json::value v = json::parse(payload, ec);
      if (ec) return ParseError("parsing key path element " + std::string(s) + ": " + ec.message());
      if (!v.is_object()) return ParseError("key path element is not an object: " + std::string(s));
      std::vector<std::pair<std::string, json::value>> fields;
      for (auto& kv : v.get_object()) fields.emplace_back(std::string(kv.key()), kv.value());
      return PathElement::Key(std::move(fields));
    }
    case 'i': {
      int64_t i = 0;
      auto res = std::from_chars(payload.data(), payload.data() + payload.size(), i);
      if (res.ec != std::errc() || res.ptr != payload.data() + payload.size() || payload.empty()) {
        return ParseError("parsing index path element: " + std::string(s));
      }
      return PathElement::Index(i);
    }
    default:
      *unknown = true;
      return ParseError("unknown path element type");
  }
}

// Inserts `pe` into a sorted vector of elements, keeping it sorted and unique.
void InsertSorted(std::vector<PathElement>& v, PathElement pe) {
  auto it = std::lower_bound(v.begin(), v.end(), pe);
  if (it != v.end() && *it == pe) return;
  v.insert(it, std::move(pe));
}

bool HasSorted(const std::vector<PathElement>& v, const PathElement& pe) {
  auto it = std::lower_bound(v.begin(), v.end(), pe);
  return it != v.end() && *it == pe;
}

std::vector<PathElement> UnionElements(const std::vector<PathElement>& a,
                                       const std::vector<PathElement>& b) {
  std::vector<PathElement> out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int c = Compare(a[i], b[j]);
    if (c < 0) {
      out.push_back(a[i++]);
    } else {
      out.push_back(b[j++]);
      if (c == 0) ++i;
    }
  }
  out.insert(out.end(), a.begin() + static_cast<ptrdiff_t>(i), a.end());
  out.insert(out.end(), b.begin() + static_cast<ptrdiff_t>(j), b.end());
  return out;
}

std::vector<PathElement> IntersectElements(const std::vector<PathElement>& a,
                                           const std::vector<PathElement>& b) {
  std::vector<PathElement> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int c = Compare(a[i], b[j]);
    if (c < 0) {
      ++i;
    } else if (c > 0) {
      ++j;
    } else {
      out.push_back(a[i]);
      ++i;
      ++j;
    }
  }
  return out;
}

std::vector<PathElement> SubtractElements(const std::vector<PathElement>& a,
                                          const std::vector<PathElement>& b) {
  std::vector<PathElement> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int c = Compare(a[i], b[j]);
    if (c < 0) {
      out.push_back(a[i++]);
    } else {
      if (c == 0) ++i;
      ++j;
    }
  }
  out.insert(out.end(), a.begin() + static_cast<ptrdiff_t>(i), a.end());
  return out;
}

}  // namespace

namespace internal {

// A value as jsoniter (ConfigCompatibleWithStandardLibrary) writes the decoded interface{}:
// compact, map keys sorted, HTML-escaped strings.
void AppendGoJson(std::string& out, const json::value& v, bool sort_keys) {
  switch (v.kind()) {
    case json::kind::null:
      out += "null";
      break;
    case json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      break;
    case json::kind::int64:
      out += std::to_string(v.get_int64());
      break;
    case json::kind::uint64:
      out += std::to_string(v.get_uint64());
      break;
    case json::kind::double_:
      AppendJsonFloat(out, v.get_double());
      break;
    case json::kind::string:
      AppendJsonString(out, v.get_string());
      break;
    case json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : v.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        AppendGoJson(out, item, sort_keys);
      }
      out.push_back(']');
      break;
    }
    case json::kind::object: {
      out.push_back('{');
      bool first = true;
      auto append = [&](const json::key_value_pair& kv) {
        if (!first) out.push_back(',');
        first = false;
        AppendJsonString(out, kv.key());
        out.push_back(':');
        AppendGoJson(out, kv.value(), sort_keys);
      };
      if (sort_keys) {
        for (const auto* kv : SortedEntries(v.get_object())) append(*kv);
      } else {
        for (const auto& kv : v.get_object()) append(kv);
      }
      out.push_back('}');
      break;
    }
  }
}

}  // namespace internal

PathElement PathElement::Field(std::string name) {
  PathElement pe;
  pe.kind = Kind::kField;
  pe.field = std::move(name);
  return pe;
}

PathElement PathElement::Key(std::vector<std::pair<std::string, boost::json::value>> fields) {
  PathElement pe;
  pe.kind = Kind::kKey;
  SortKey(fields);
  pe.key = std::move(fields);
  return pe;
}

PathElement PathElement::Value(boost::json::value v) {
  PathElement pe;
  pe.kind = Kind::kValue;
  pe.value = std::move(v);
  return pe;
}

PathElement PathElement::Index(int64_t i) {
  PathElement pe;
  pe.kind = Kind::kIndex;
  pe.index = i;
  return pe;
}

std::string PathElement::String() const {
  switch (kind) {
    case Kind::kField:
      return "." + field;
    case Kind::kKey: {
      std::string out = "[";
      for (size_t i = 0; i < key.size(); ++i) {
        if (i > 0) out += ",";
        out += key[i].first + "=" + ValueToString(key[i].second);
      }
      return out + "]";
    }
    case Kind::kValue:
      return "[=" + ValueToString(value) + "]";
    case Kind::kIndex:
      return "[" + std::to_string(index) + "]";
  }
  return "{{invalid path element}}";
}

std::string PathElement::FieldsV1Key() const {
  switch (kind) {
    case Kind::kField:
      return "f:" + field;
    case Kind::kKey: {
      std::string out = "k:{";
      for (size_t i = 0; i < key.size(); ++i) {
        if (i > 0) out.push_back(',');
        AppendJsonString(out, key[i].first);
        out.push_back(':');
        internal::AppendGoJson(out, key[i].second);
      }
      out.push_back('}');
      return out;
    }
    case Kind::kValue: {
      std::string out = "v:";
      internal::AppendGoJson(out, value);
      return out;
    }
    case Kind::kIndex:
      return "i:" + std::to_string(index);
  }
  return "";
}

int Compare(const PathElement& a, const PathElement& b) {
  if (a.kind != b.kind) return a.kind < b.kind ? -1 : 1;
  switch (a.kind) {
    case PathElement::Kind::kField:
      return CompareStrings(a.field, b.field);
    case PathElement::Kind::kKey:
      // value.FieldList.Compare: field by field, name then value; the shorter list first.
      for (size_t i = 0; i < a.key.size() && i < b.key.size(); ++i) {
        if (int c = CompareStrings(a.key[i].first, b.key[i].first); c != 0) return c;
        if (int c = CompareValues(a.key[i].second, b.key[i].second); c != 0) return c;
      }
      return Cmp(a.key.size(), b.key.size());
    case PathElement::Kind::kValue:
      return CompareValues(a.value, b.value);
    case PathElement::Kind::kIndex:
      return Cmp(a.index, b.index);
  }
  return 0;
}

bool operator==(const PathElement& a, const PathElement& b) { return Compare(a, b) == 0; }

std::string PathString(const Path& path) {
  std::string out;
  for (const auto& pe : path) out += pe.String();
  return out;
}

size_t Set::Size() const {
  size_t n = members_.size();
  for (const auto& [pe, child] : children_) n += child.Size();
  return n;
}

void Set::Insert(const Path& path) {
  // The empty path is the whole object, which nobody owns (SMD ignores it too).
  if (path.empty()) return;
  Set* s = this;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    auto& ch = s->children_;
    auto it =
        std::lower_bound(ch.begin(), ch.end(), path[i],
                         [](const auto& node, const PathElement& pe) { return node.first < pe; });
    if (it == ch.end() || !(it->first == path[i])) it = ch.insert(it, {path[i], Set()});
    s = &it->second;
  }
  InsertSorted(s->members_, path.back());
}

bool Set::Has(const Path& path) const {
  if (path.empty()) return false;
  const Set* s = this;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    s = s->Child(path[i]);
    if (s == nullptr) return false;
  }
  return s->HasMember(path.back());
}

bool Set::HasPrefix(const Path& path) const {
  if (path.empty()) return !Empty();
  const Set* s = this;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    s = s->Child(path[i]);
    if (s == nullptr) return false;
  }
  return s->HasMember(path.back()) || s->Child(path.back()) != nullptr;
}

const Set* Set::Child(const PathElement& pe) const {
  auto it = std::lower_bound(children_.begin(), children_.end(), pe,
                             [](const auto& node, const PathElement& p) { return node.first < p; });
  if (it == children_.end() || !(it->first == pe)) return nullptr;
  return &it->second;
}

bool Set::HasMember(const PathElement& pe) const { return HasSorted(members_, pe); }

Set Set::Union(const Set& other) const {
  Set out;
  out.members_ = UnionElements(members_, other.members_);
  const auto& a = children_;
  const auto& b = other.children_;
  out.children_.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int c = Compare(a[i].first, b[j].first);
    if (c < 0) {
      out.children_.push_back(a[i++]);
    } else if (c > 0) {
      out.children_.push_back(b[j++]);
    } else {
      out.children_.emplace_back(a[i].first, a[i].second.Union(b[j].second));
      ++i;
      ++j;
    }
  }
  out.children_.insert(out.children_.end(), a.begin() + static_cast<ptrdiff_t>(i), a.end());
  out.children_.insert(out.children_.end(), b.begin() + static_cast<ptrdiff_t>(j), b.end());
  return out;
}

Set Set::Intersection(const Set& other) const {
  Set out;
  out.members_ = IntersectElements(members_, other.members_);
  const auto& a = children_;
  const auto& b = other.children_;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int c = Compare(a[i].first, b[j].first);
    if (c < 0) {
      ++i;
    } else if (c > 0) {
      ++j;
    } else {
      Set sub = a[i].second.Intersection(b[j].second);
      if (!sub.Empty()) out.children_.emplace_back(a[i].first, std::move(sub));
      ++i;
      ++j;
    }
  }
  return out;
}

Set Set::Difference(const Set& other) const {
  Set out;
  out.members_ = SubtractElements(members_, other.members_);
  for (const auto& [pe, child] : children_) {
    const Set* theirs = other.Child(pe);
    if (theirs == nullptr) {
      out.children_.emplace_back(pe, child);
      continue;
    }
    Set sub = child.Difference(*theirs);
    if (!sub.Empty()) out.children_.emplace_back(pe, std::move(sub));
  }
  return out;
}

Set Set::RecursiveDifference(const Set& other) const {
  Set out;
  out.members_ = SubtractElements(members_, other.members_);
  for (const auto& [pe, child] : children_) {
    if (other.HasMember(pe)) continue;  // the whole subtree goes with its owner
    const Set* theirs = other.Child(pe);
    if (theirs == nullptr) {
      out.children_.emplace_back(pe, child);
      continue;
    }
    Set sub = child.RecursiveDifference(*theirs);
    if (!sub.Empty()) out.children_.emplace_back(pe, std::move(sub));
  }
  return out;
}

Set Set::Leaves() const {
  Set out;
  for (const auto& pe : members_) {
    if (Child(pe) == nullptr) out.members_.push_back(pe);
  }
  for (const auto& [pe, child] : children_) {
    Set sub = child.Leaves();
    if (!sub.Empty()) out.children_.emplace_back(pe, std::move(sub));
  }
  return out;
}

Set Set::WithPrefix(const PathElement& pe) const {
  const Set* child = Child(pe);
  return child == nullptr ? Set() : *child;
}

namespace {

void IteratePrefix(const Set& s, Path& prefix, const std::function<void(const Path&)>& fn) {
  for (const auto& pe : s.members()) {
    prefix.push_back(pe);
    fn(prefix);
    prefix.pop_back();
  }
  for (const auto& [pe, child] : s.children()) {
    prefix.push_back(pe);
    IteratePrefix(child, prefix, fn);
    prefix.pop_back();
  }
}

// emitContentsV1: "." first when the node is also a member, then members and children merged
// in canonical order; an element that is both writes its children.
void EmitContents(const Set& s, bool include_self, std::string& out) {
  bool first = true;
  auto field = [&](const PathElement& pe) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(out, pe.FieldsV1Key());
    out.push_back(':');
  };
  if (include_self && !s.Empty()) {
    out += "\".\":{}";
    first = false;
  }
  const auto& members = s.members();
  const auto& children = s.children();
  size_t mi = 0, ci = 0;
  while (mi < members.size() || ci < children.size()) {
    int c = mi == members.size()    ? 1
            : ci == children.size() ? -1
                                    : Compare(members[mi], children[ci].first);
    if (c < 0) {
      field(members[mi++]);
      out += "{}";
      continue;
    }
    field(children[ci].first);
    out.push_back('{');
    EmitContents(children[ci].second, c == 0, out);
    out.push_back('}');
    if (c == 0) ++mi;
    ++ci;
  }
}

}  // namespace

void Set::Iterate(const std::function<void(const Path&)>& fn) const {
  Path prefix;
  IteratePrefix(*this, prefix, fn);
}

std::string Set::String() const {
  std::string out;
  Iterate([&](const Path& p) {
    if (!out.empty()) out.push_back('\n');
    out += PathString(p);
  });
  return out;
}

std::string Set::ToFieldsV1() const {
  std::string out = "{";
  EmitContents(*this, false, out);
  out.push_back('}');
  return out;
}

// readIterV1 over a parsed JSON object: fills `out` with the entries below this node and says
// whether the node itself is a member ("." present, or no known entries at all). Entries may
// come in any order and repeat; the result is canonical.
Status Set::ReadFieldsV1(const boost::json::object& obj, Set* out, bool* is_member) {
  *is_member = false;
  bool any = false;
  for (const auto& kv : obj) {
    if (kv.key() == ".") {
      *is_member = true;
      continue;
    }
    bool unknown = false;
    Result<PathElement> pe = ParsePathElement(kv.key(), &unknown);
    if (unknown) continue;  // a future kind of element: dropped, as upstream does
    if (!pe.ok()) return pe.status();
    any = true;
    Set below;
    bool child_is_member = true;
    if (kv.value().is_object()) {
      SVC_RETURN_IF_ERROR(ReadFieldsV1(kv.value().get_object(), &below, &child_is_member));
    } else if (!kv.value().is_null()) {
      return ParseError("expected an object for FieldsV1 key " + std::string(kv.key()));
    }
    if (child_is_member) out->members_.push_back(*pe);
    if (!below.Empty()) out->children_.emplace_back(*std::move(pe), std::move(below));
  }
  if (!any) *is_member = true;

  auto& m = out->members_;
  std::sort(m.begin(), m.end());
  m.erase(std::unique(m.begin(), m.end()), m.end());
  auto& c = out->children_;
  if (c.size() > 1) {
    std::stable_sort(c.begin(), c.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<PathElement, Set>> merged;
    for (auto& node : c) {
      if (!merged.empty() && merged.back().first == node.first) {
        merged.back().second = merged.back().second.Union(node.second);
      } else {
        merged.push_back(std::move(node));
      }
    }
    c = std::move(merged);
  }
  return Status::Ok();
}

Result<Set> Set::FromFieldsV1(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return ParseError("invalid FieldsV1 JSON: " + ec.message());
  if (v.is_null()) return Set();
  if (!v.is_object()) return ParseError("FieldsV1 must be a JSON object");
  Set out;
  bool is_member = false;
  SVC_RETURN_IF_ERROR(ReadFieldsV1(v.get_object(), &out, &is_member));
  return out;
}

}  // namespace svcplane::apiserver::fieldmanager
