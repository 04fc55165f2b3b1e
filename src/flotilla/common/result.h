#pragma once
// Result<T>: a value or the Status explaining why there is none.

#include <cassert>
#include <optional>
#include <type_traits>
#include <utility>

#include "flotilla/common/status.h"

namespace flotilla {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  /// From anything convertible to T (e.g. unique_ptr<Derived> for Result<unique_ptr<Base>>).
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U&&, T> &&
                                                    !std::is_same_v<std::decay_t<U>, T> &&
                                                    !std::is_same_v<std::decay_t<U>, Status>>>
  Result(U&& value) : value_(T(std::forward<U>(value))) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {      // NOLINT: implicit by design
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK Status");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  const T& ValueOrDie() const& {
    status_.Check();
    return *value_;
  }
  T& ValueOrDie() & {
    status_.Check();
    return *value_;
  }
  T ValueOrDie() && {
    status_.Check();
    return std::move(*value_);
  }
  /// Unchecked access; only after ok() was tested.
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T MoveValueUnsafe() { return std::move(*value_); }

 private:
  Status status_;
  std::optional<T> value_;
};

template <typename T>
const Status& ToStatus(const Result<T>& r) {
  return r.status();
}

}  // namespace flotilla

#define FLOTILLA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                   \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = tmp.MoveValueUnsafe();

/// `FLOTILLA_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from a Result or returns its error.
#define FLOTILLA_ASSIGN_OR_RETURN(lhs, rexpr) \
  FLOTILLA_ASSIGN_OR_RETURN_IMPL(FLOTILLA_CONCAT(_result_, __COUNTER__), lhs, rexpr)
