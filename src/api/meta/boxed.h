#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace svcplane::api::meta {

// A value-semantic box for the fields of an object that most readers never look at (a Pod's
// volumes, tolerations, container statuses...), so that the fields controllers read stay inline
// and an object without the rest (an informer's transformed copy, a fresh object) pays one null
// pointer for them instead of hundreds of bytes of empty members.
//
// Reads through a const box never allocate: an empty box reads as a default T. Writes through a
// non-const box allocate it on first use. Copies are deep (no sharing, so no copy-on-write
// races between threads); an empty box equals a box holding a default T.
template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;

  const T& get() const { return p_ ? *p_ : Default(); }
  T& mut() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  const T* operator->() const { return &get(); }
  T* operator->() { return &mut(); }
  const T& operator*() const { return get(); }
  T& operator*() { return mut(); }

  // Whether anything was ever written (a box may hold a default T after a write of zeros).
  bool allocated() const { return p_ != nullptr; }
  void reset() { p_.reset(); }

  bool operator==(const Boxed& o) const { return get() == o.get(); }

 private:
  static const T& Default() {
    static const T kDefault{};
    return kDefault;
  }

  std::unique_ptr<T> p_;
};

// A std::vector behind one pointer, null while empty: 8 bytes instead of 24 for members that are
// empty in almost every object (the unknown JSON members of each struct). Iterators are plain
// pointers; the subset of std::vector's interface that callers use.
template <typename T>
class BoxedVector {
 public:
  BoxedVector() = default;
  BoxedVector(const BoxedVector& o)
      : p_(o.p_ && !o.p_->empty() ? std::make_unique<std::vector<T>>(*o.p_) : nullptr) {}
  BoxedVector(BoxedVector&&) noexcept = default;
  BoxedVector& operator=(const BoxedVector& o) {
    if (this != &o) p_ = o.p_ && !o.p_->empty() ? std::make_unique<std::vector<T>>(*o.p_) : nullptr;
    return *this;
  }
  BoxedVector& operator=(BoxedVector&&) noexcept = default;

  bool empty() const { return !p_ || p_->empty(); }
  size_t size() const { return p_ ? p_->size() : 0; }
  T* begin() { return p_ ? p_->data() : nullptr; }
  T* end() { return p_ ? p_->data() + p_->size() : nullptr; }
  const T* begin() const { return p_ ? p_->data() : nullptr; }
  const T* end() const { return p_ ? p_->data() + p_->size() : nullptr; }
  T& operator[](size_t i) { return (*p_)[i]; }
  const T& operator[](size_t i) const { return (*p_)[i]; }
  T& back() { return p_->back(); }
  const T& back() const { return p_->back(); }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    return Vec().emplace_back(std::forward<Args>(args)...);
  }
  void push_back(T v) { Vec().push_back(std::move(v)); }
  void clear() { p_.reset(); }

  bool operator==(const BoxedVector& o) const {
    if (empty() || o.empty()) return empty() == o.empty();
    return *p_ == *o.p_;
  }

 private:
  std::vector<T>& Vec() {
    if (!p_) p_ = std::make_unique<std::vector<T>>();
    return *p_;
  }

  std::unique_ptr<std::vector<T>> p_;
};

}  // namespace svcplane::api::meta
