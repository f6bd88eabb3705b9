#include "apiserver/fieldmanager/typed.h"

#include <map>
#include <optional>
#include <set>
#include <utility>

#include "apiserver/fieldmanager/internal/merge_schema.h"
#include "apiserver/fieldmanager/internal/values.h"

namespace svcplane::apiserver::fieldmanager {

namespace json = boost::json;
using internal::Relationship;
using internal::ScalarType;
using internal::TypeNode;

namespace {

// Which of a node's shapes handles a value (SMD deduceAtom then handleAtom). kFull is the
// whole atom, used for an absent or null value or a value of a shape the node does not take;
// handleAtom then tries the map, the scalar and the list shape in that order.
enum class Shape : uint8_t { kFull, kScalar, kList, kMap };

Shape Deduce(const TypeNode* t, const json::value* v) {
  if (v == nullptr) return Shape::kFull;
  if (v->is_object()) return t->is_map ? Shape::kMap : Shape::kFull;
  if (v->is_array()) return t->is_list ? Shape::kList : Shape::kFull;
  if (!v->is_null() && t->scalar != ScalarType::kNone) return Shape::kScalar;
  return Shape::kFull;
}

Shape Handled(const TypeNode* t, Shape s) {
  if (s != Shape::kFull) return s;
  if (t->is_map) return Shape::kMap;
  if (t->scalar != ScalarType::kNone) return Shape::kScalar;
  return Shape::kList;
}

// Whether two deduced atoms are the same atom (a node with one shape is its own deduction).
bool SameAtom(const TypeNode* t, Shape a, Shape b) {
  int shapes = (t->is_map ? 1 : 0) + (t->is_list ? 1 : 0) + (t->scalar != ScalarType::kNone);
  return a == b || shapes <= 1;
}

// SMD validateScalar; "" when `v` fits (null and absent always fit).
std::string ScalarError(ScalarType type, const json::value* v) {
  if (v == nullptr || v->is_null()) return {};
  switch (type) {
    case ScalarType::kNumeric:
      if (!v->is_int64() && !v->is_uint64() && !v->is_double()) {
        return "expected numeric (int or float), got " + internal::GoTypeName(*v);
      }
      break;
    case ScalarType::kString:
      if (!v->is_string()) return "expected string, got " + internal::GoPointerSharpValue(*v);
      break;
    case ScalarType::kBoolean:
      if (!v->is_bool()) return "expected boolean, got " + internal::GoPointerValue(*v);
      break;
    default:
      break;
  }
  return {};
}

// SMD listItemToPathElement for an associative list (keyed or a set); sets *error instead.
std::optional<PathElement> ItemElement(const TypeNode* t, const json::value& item,
                                       std::string* error) {
  if (!t->keys.empty()) {
    if (item.is_null()) {
      *error = "associative list with keys may not have a null element";
      return std::nullopt;
    }
    if (!item.is_object()) {
      *error = "associative list with keys may not have non-map elements";
      return std::nullopt;
    }
    const json::object& o = item.get_object();
    std::vector<std::pair<std::string, json::value>> key;
    key.reserve(t->keys.size());
    for (size_t i = 0; i < t->keys.size(); ++i) {
      if (const json::value* v = o.if_contains(t->keys[i])) {
        key.emplace_back(t->keys[i], *v);
      } else if (!t->key_defaults[i].is_null()) {
        key.emplace_back(t->keys[i], t->key_defaults[i]);
      } else {
        *error = "associative list with keys has an element that omits key field \"" + t->keys[i] +
                 "\" (and doesn't have default value)";
        return std::nullopt;
      }
    }
    return PathElement::Key(std::move(key));
  }
  if (item.is_object()) {
    *error = "associative list without keys has an element that's a map type";
  } else if (item.is_array()) {
    *error = "not supported: associative list with lists as elements";
  } else if (item.is_null()) {
    *error = "associative list without keys has an element that's an explicit null";
  } else {
    return PathElement::Value(item);
  }
  return std::nullopt;
}

std::optional<PathElement> ListElement(const TypeNode* t, size_t index, const json::value& item,
                                       std::string* error) {
  if (t->IsAssociativeList()) return ItemElement(t, item, error);
  return PathElement::Index(static_cast<int64_t>(index));
}

const TypeNode* ChildType(const TypeNode* t, std::string_view key) {
  if (const TypeNode* f = t->FindField(key)) return f;
  return t->map_element;
}

// ---- ToFieldSet: SMD's validatingObjectWalker and toFieldSetWalker in one pass ----

class FieldSetWalker {
 public:
  void Walk(const TypeNode* t, const json::value& v, bool collect) {
    switch (Handled(t, Deduce(t, &v))) {
      case Shape::kScalar:
        if (std::string e = ScalarError(t->scalar, &v); !e.empty()) return Error(std::move(e));
        if (collect) set_.Insert(path_);
        return;
      case Shape::kList: {
        if (!v.is_array() && !v.is_null()) {
          return Error("expected list, got " + internal::GoPointerValue(v));
        }
        bool atomic = t->list_relationship == Relationship::kAtomic;
        if (collect && atomic) set_.Insert(path_);
        if (v.is_array()) VisitList(t, v.get_array(), collect && !atomic);
        return;
      }
      case Shape::kMap: {
        if (!v.is_object() && !v.is_null()) {
          return Error("expected map, got " + internal::GoPointerValue(v));
        }
        bool atomic = t->map_relationship == Relationship::kAtomic;
        if (collect && atomic) set_.Insert(path_);
        if (v.is_object()) VisitMap(t, v.get_object(), collect && !atomic);
        return;
      }
      case Shape::kFull:
        return;
    }
  }

  Set TakeSet() { return std::move(set_); }
  std::vector<std::string>& errors() { return errors_; }

 private:
  void Error(std::string message) {
    errors_.push_back(path_.empty() ? std::move(message) : PathString(path_) + ": " + message);
  }

  void VisitList(const TypeNode* t, const json::array& list, bool collect) {
    std::set<PathElement> observed;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string error;
      std::optional<PathElement> pe = ListElement(t, i, list[i], &error);
      if (!pe) {
        Error("element " + std::to_string(i) + ": " + error);
        continue;
      }
      if (t->IsAssociativeList() && !observed.insert(*pe).second) {
        Error("duplicate entries for key " + pe->String());
      }
      path_.push_back(std::move(*pe));
      Walk(t->list_element, list[i], collect);
      if (collect) set_.Insert(path_);
      path_.pop_back();
    }
  }

  void VisitMap(const TypeNode* t, const json::object& map, bool collect) {
    for (const auto& kv : map) {
      std::string_view key = kv.key();
      const TypeNode* field = t->FindField(key);
      const TypeNode* child = field ? field : t->map_element;
      path_.push_back(PathElement::Field(std::string(key)));
      if (child == nullptr) {
        // SMD stops validating this map at its first undeclared field.
        Error("field not declared in schema");
        path_.pop_back();
        return;
      }
      Walk(child, kv.value(), collect);
      if (collect && field == nullptr) set_.Insert(path_);
      path_.pop_back();
    }
  }

  Path path_;
  Set set_;
  std::vector<std::string> errors_;
};

// SMD ValidationErrors.Error().
std::string JoinErrors(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors[0];
  std::string out = "errors:";
  for (const auto& e : errors) out += "\n  " + e;
  return out;
}

// ---- Compare: SMD's compareWalker ----

class CompareWalker {
 public:
  explicit CompareWalker(Comparison* out) : out_(out) {}

  void Compare(const TypeNode* t, const json::value* lhs, const json::value* rhs) {
    bool in_leaf = false;
    Shape l = Deduce(t, lhs);
    Shape r = Deduce(t, rhs);
    if (rhs == nullptr) {
      Handle(Handled(t, l), t, lhs, rhs, &in_leaf);
    } else if (lhs == nullptr || SameAtom(t, l, r)) {
      Handle(Handled(t, r), t, lhs, rhs, &in_leaf);
    } else {
      bool other_leaf = false;
      Handle(Handled(t, l), t, lhs, rhs, &other_leaf);
      Handle(Handled(t, r), t, lhs, rhs, &in_leaf);
    }
    if (!in_leaf) {
      if (lhs == nullptr) {
        out_->added.Insert(path_);
      } else if (rhs == nullptr) {
        out_->removed.Insert(path_);
      }
    }
  }

 private:
  void Leaf(const json::value* lhs, const json::value* rhs, bool* in_leaf) {
    if (*in_leaf) return;
    *in_leaf = true;
    if (lhs == nullptr) {
      out_->added.Insert(path_);
    } else if (rhs == nullptr) {
      out_->removed.Insert(path_);
    } else if (!internal::ValuesEqual(*lhs, *rhs)) {
      out_->modified.Insert(path_);
    }
  }

  void Handle(Shape shape, const TypeNode* t, const json::value* lhs, const json::value* rhs,
              bool* in_leaf) {
    if (shape == Shape::kScalar) {
      if (!ScalarError(t->scalar, lhs).empty() && !ScalarError(t->scalar, rhs).empty()) return;
      return Leaf(lhs, rhs, in_leaf);
    }
    if (shape == Shape::kList) {
      const json::array* l = lhs && lhs->is_array() ? &lhs->get_array() : nullptr;
      const json::array* r = rhs && rhs->is_array() ? &rhs->get_array() : nullptr;
      bool empty = (!l || l->empty()) && (!r || r->empty());
      if (t->list_relationship == Relationship::kAtomic || empty) return Leaf(lhs, rhs, in_leaf);
      return VisitList(t, l, r);
    }
    const json::object* l = lhs && lhs->is_object() ? &lhs->get_object() : nullptr;
    const json::object* r = rhs && rhs->is_object() ? &rhs->get_object() : nullptr;
    bool empty = (!l || l->empty()) && (!r || r->empty());
    if (t->map_relationship == Relationship::kAtomic || empty) return Leaf(lhs, rhs, in_leaf);
    if (l) {
      for (const auto& kv : *l) {
        const json::value* other = r ? r->if_contains(kv.key()) : nullptr;
        Descend(PathElement::Field(std::string(kv.key())), ChildType(t, kv.key()), &kv.value(),
                other);
      }
    }
    if (r) {
      for (const auto& kv : *r) {
        if (l && l->contains(kv.key())) continue;
        Descend(PathElement::Field(std::string(kv.key())), ChildType(t, kv.key()), nullptr,
                &kv.value());
      }
    }
  }

  // Live objects may repeat a key (SMD >= 4.4 accepts them); the first item stands for it.
  void VisitList(const TypeNode* t, const json::array* l, const json::array* r) {
    std::map<PathElement, const json::value*> left;
    std::vector<std::pair<PathElement, const json::value*>> left_order;
    if (l) {
      for (size_t i = 0; i < l->size(); ++i) {
        std::string error;
        std::optional<PathElement> pe = ListElement(t, i, (*l)[i], &error);
        if (!pe) continue;
        if (left.emplace(*pe, &(*l)[i]).second) left_order.emplace_back(std::move(*pe), &(*l)[i]);
      }
    }
    std::set<PathElement> right;
    if (r) {
      for (size_t i = 0; i < r->size(); ++i) {
        std::string error;
        std::optional<PathElement> pe = ListElement(t, i, (*r)[i], &error);
        if (!pe || !right.insert(*pe).second) continue;
        auto it = left.find(*pe);
        Descend(std::move(*pe), t->list_element, it == left.end() ? nullptr : it->second, &(*r)[i]);
      }
    }
    for (auto& [pe, value] : left_order) {
      if (right.contains(pe)) continue;
      Descend(std::move(pe), t->list_element, value, nullptr);
    }
  }

  void Descend(PathElement pe, const TypeNode* t, const json::value* lhs, const json::value* rhs) {
    if (t == nullptr) t = deduced_fallback_;
    path_.push_back(std::move(pe));
    if (t) Compare(t, lhs, rhs);
    path_.pop_back();
  }

 public:
  // Undeclared fields of closed structs in live objects (which our codec may keep) compare as
  // deduced values rather than being skipped.
  const TypeNode* deduced_fallback_ = nullptr;

 private:
  Comparison* out_;
  Path path_;
};

// ---- Merge: SMD's mergingWalker with ruleKeepRHS ----

class MergeWalker {
 public:
  // The merged value, or nullopt when SMD's walk yields nothing for the node.
  std::optional<json::value> Merge(const TypeNode* t, const json::value* lhs,
                                   const json::value* rhs) {
    if (rhs == nullptr) return *lhs;
    if (lhs == nullptr) return *rhs;
    Shape shape = Handled(t, Deduce(t, rhs));
    if (shape == Shape::kScalar) return *rhs;
    if (shape == Shape::kList) {
      const json::array* l = lhs->is_array() ? &lhs->get_array() : nullptr;
      const json::array* r = rhs->is_array() ? &rhs->get_array() : nullptr;
      bool empty = (!l || l->empty()) && (!r || r->empty());
      if (t->list_relationship == Relationship::kAtomic || empty) return *rhs;
      return VisitList(t, l, r);
    }
    const json::object* l = lhs->is_object() ? &lhs->get_object() : nullptr;
    const json::object* r = rhs->is_object() ? &rhs->get_object() : nullptr;
    bool empty = (!l || l->empty()) && (!r || r->empty());
    if (t->map_relationship == Relationship::kAtomic || empty) return *rhs;
    json::object out;
    if (l) {
      for (const auto& kv : *l) {
        const json::value* other = r ? r->if_contains(kv.key()) : nullptr;
        if (auto v = Child(PathElement::Field(std::string(kv.key())), ChildType(t, kv.key()),
                           &kv.value(), other)) {
          out[kv.key()] = std::move(*v);
        }
      }
    }
    if (r) {
      for (const auto& kv : *r) {
        if (l && l->contains(kv.key())) continue;
        out[kv.key()] = kv.value();
      }
    }
    if (out.empty()) return std::nullopt;
    return json::value(std::move(out));
  }

  std::vector<std::string>& errors() { return errors_; }

 private:
  struct Item {
    PathElement pe;
    std::vector<const json::value*> values;  // more than one: a key live repeats
  };

  // Indexes a list's items by path element, in first-appearance order.
  bool Index(const TypeNode* t, const json::array* list, bool allow_duplicates,
             std::vector<Item>* order, std::map<PathElement, size_t>* index) {
    if (list == nullptr) return true;
    bool ok = true;
    for (size_t i = 0; i < list->size(); ++i) {
      std::string error;
      std::optional<PathElement> pe = ListElement(t, i, (*list)[i], &error);
      if (!pe) {
        Error("element " + std::to_string(i) + ": " + error);
        ok = false;
        continue;
      }
      auto [it, added] = index->emplace(*pe, order->size());
      if (added) {
        order->push_back(Item{std::move(*pe), {&(*list)[i]}});
      } else if (allow_duplicates) {
        (*order)[it->second].values.push_back(&(*list)[i]);
      } else {
        Error("duplicate entries for key " + pe->String());
        ok = false;
      }
    }
    return ok;
  }

  // SMD v4 visitListItems: live items stay where they are, items of both sides come in config
  // order, and new config items sit at their config position relative to the shared ones.
  std::optional<json::value> VisitList(const TypeNode* t, const json::array* l,
                                       const json::array* r) {
    std::vector<Item> lhs, rhs;
    std::map<PathElement, size_t> lhs_index, rhs_index;
    bool ok = Index(t, r, false, &rhs, &rhs_index);
    ok = Index(t, l, true, &lhs, &lhs_index) && ok;
    if (!ok) return std::nullopt;

    std::vector<const PathElement*> shared;
    for (const auto& item : rhs) {
      if (lhs_index.contains(item.pe)) shared.push_back(&item.pe);
    }
    size_t next_shared = 0;
    auto at_shared = [&](const PathElement& pe) {
      return next_shared < shared.size() && *shared[next_shared] == pe;
    };

    json::array out;
    auto emit = [&](const Item* left, const Item& right) {
      // A key live repeats is not merged: the config's item replaces all of its copies.
      const json::value* lv = left && left->values.size() == 1 ? left->values[0] : nullptr;
      if (auto v = Child(right.pe, t->list_element, lv, right.values[0])) {
        out.push_back(std::move(*v));
      }
    };
    size_t li = 0, ri = 0;
    while (li < lhs.size() || ri < rhs.size()) {
      if (li < lhs.size() && ri < rhs.size()) {
        const PathElement& pe = lhs[li].pe;
        if (pe == rhs[ri].pe) {
          emit(&lhs[li], rhs[ri]);
          ++li;
          ++ri;
          ++next_shared;
          continue;
        }
        if (rhs_index.contains(pe) && next_shared < shared.size() && !at_shared(pe)) {
          ++li;  // a shared item, emitted when its config position comes
          continue;
        }
      }
      if (li < lhs.size() && !rhs_index.contains(lhs[li].pe)) {
        for (const json::value* v : lhs[li].values) out.push_back(*v);
        ++li;
        continue;
      }
      if (ri < rhs.size()) {
        const Item& item = rhs[ri];
        auto it = lhs_index.find(item.pe);
        emit(it == lhs_index.end() ? nullptr : &lhs[it->second], item);
        if (at_shared(item.pe)) ++next_shared;
        ++ri;
        continue;
      }
      ++li;  // a shared live item whose config copy was already emitted
    }
    if (out.empty()) return std::nullopt;
    return json::value(std::move(out));
  }

  std::optional<json::value> Child(const PathElement& pe, const TypeNode* t, const json::value* lhs,
                                   const json::value* rhs) {
    path_.push_back(pe);
    // A field no schema declares (kept by our codec in live objects): the config's value wins.
    std::optional<json::value> v =
        t ? Merge(t, lhs, rhs) : std::optional<json::value>(rhs ? *rhs : *lhs);
    path_.pop_back();
    return v;
  }

  void Error(std::string message) {
    errors_.push_back(path_.empty() ? std::move(message) : PathString(path_) + ": " + message);
  }

  Path path_;
  std::vector<std::string> errors_;
};

// ---- RemoveItems: SMD's removingWalker (without extraction) ----

json::value Remove(const TypeNode* t, const json::value& v, const Set& remove) {
  Shape shape = t ? Handled(t, Deduce(t, &v)) : Shape::kScalar;
  if (shape == Shape::kScalar) return v;
  if (shape == Shape::kList) {
    // SMD answers null for a null, empty or atomic list on the removal path.
    if (!v.is_array() || v.get_array().empty() || t->list_relationship == Relationship::kAtomic) {
      return nullptr;
    }
    json::array out;
    const json::array& list = v.get_array();
    for (size_t i = 0; i < list.size(); ++i) {
      std::string error;
      std::optional<PathElement> pe = ListElement(t, i, list[i], &error);
      if (!pe) {
        out.push_back(list[i]);
        continue;
      }
      if (remove.HasMember(*pe)) continue;
      if (const Set* below = remove.Child(*pe)) {
        out.push_back(Remove(t->list_element, list[i], *below));
      } else {
        out.push_back(list[i]);
      }
    }
    if (out.empty()) return nullptr;
    return out;
  }
  if (!v.is_object() || v.get_object().empty() || t->map_relationship == Relationship::kAtomic) {
    return nullptr;
  }
  json::object out;
  for (const auto& kv : v.get_object()) {
    PathElement pe = PathElement::Field(std::string(kv.key()));
    if (remove.HasMember(pe)) continue;
    if (const Set* below = remove.Child(pe)) {
      out[kv.key()] = Remove(ChildType(t, kv.key()), kv.value(), *below);
    } else {
      out[kv.key()] = kv.value();
    }
  }
  if (out.empty()) return nullptr;
  return out;
}

}  // namespace

Result<Set> ToFieldSet(const TypeSchema& schema, const json::value& config,
                       std::vector<std::string>* errors) {
  FieldSetWalker walker;
  walker.Walk(schema.root(), config, true);
  if (!walker.errors().empty()) {
    std::string message = JoinErrors(walker.errors());
    if (errors) *errors = std::move(walker.errors());
    return BadRequestError(std::move(message));
  }
  return walker.TakeSet();
}

Comparison Compare(const TypeSchema& schema, const json::value& from, const json::value& to) {
  Comparison out;
  CompareWalker walker(&out);
  walker.deduced_fallback_ = schema.deduced();
  walker.Compare(schema.root(), &from, &to);
  return out;
}

Result<json::value> Merge(const TypeSchema& schema, const json::value& live,
                          const json::value& config) {
  MergeWalker walker;
  std::optional<json::value> merged = walker.Merge(schema.root(), &live, &config);
  if (!walker.errors().empty()) return InternalError(JoinErrors(walker.errors()));
  if (!merged) return json::value(json::object());
  return std::move(*merged);
}

json::value RemoveItems(const TypeSchema& schema, const json::value& obj, const Set& paths) {
  if (paths.Empty()) return obj;
  return Remove(schema.root(), obj, paths);
}

}  // namespace svcplane::apiserver::fieldmanager
