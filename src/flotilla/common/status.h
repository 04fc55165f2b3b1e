#pragma once
// Errors as values. Every fallible function returns Status or Result<T>; exceptions are not used
// for control flow. See docs/style.md for the rules.

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace flotilla {

enum class StatusCode : char {
  kOk = 0,
  kInvalid,         // bad input from the user: a malformed file, a bad argument
  kTypeError,       // a value or column of the wrong type
  kKeyError,        // a name that does not exist (column, table, option)
  kIndexError,      // a position out of range
  kIOError,         // the operating system or the network failed
  kOutOfMemory,     // the memory budget could not be met
  kNotImplemented,  // valid request the engine cannot do yet
  kCancelled,       // the query was cancelled
  kInternal,        // a bug in Flotilla: an invariant did not hold
};

std::string_view StatusCodeName(StatusCode code);

/// \brief The outcome of an operation: OK, or a code and a message for the person reading it.
///
/// User errors (kInvalid, kTypeError, kKeyError, ...) say what is wrong and what to do next.
/// kInternal means a bug in Flotilla, never a problem with the user's input.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }
  static Status Invalid(std::string msg) { return {StatusCode::kInvalid, std::move(msg)}; }
  static Status TypeError(std::string msg) { return {StatusCode::kTypeError, std::move(msg)}; }
  static Status KeyError(std::string msg) { return {StatusCode::kKeyError, std::move(msg)}; }
  static Status IndexError(std::string msg) { return {StatusCode::kIndexError, std::move(msg)}; }
  static Status IOError(std::string msg) { return {StatusCode::kIOError, std::move(msg)}; }
  static Status OutOfMemory(std::string msg) { return {StatusCode::kOutOfMemory, std::move(msg)}; }
  static Status NotImplemented(std::string msg) {
    return {StatusCode::kNotImplemented, std::move(msg)};
  }
  static Status Cancelled(std::string msg) { return {StatusCode::kCancelled, std::move(msg)}; }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;

  /// Returns a copy whose message is prefixed with `context` ("reading 'a.arrow': <message>").
  Status WithContext(std::string_view context) const;
  /// "Invalid: message", or "OK".
  std::string ToString() const;

  /// Aborts with the message when not OK. For tests, tools and true invariants only.
  void Check() const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  // Null when OK, so an OK Status is one pointer and free to copy.
  std::shared_ptr<const State> state_;
};

}  // namespace flotilla

#define FLOTILLA_CONCAT_IMPL(a, b) a##b
#define FLOTILLA_CONCAT(a, b) FLOTILLA_CONCAT_IMPL(a, b)

/// Returns the Status from the enclosing function when `expr` is not OK.
#define FLOTILLA_RETURN_NOT_OK(expr)                       \
  do {                                                     \
    ::flotilla::Status _st = ::flotilla::ToStatus((expr)); \
    if (!_st.ok()) return _st;                             \
  } while (false)

/// Fails with Invalid(message) when `cond` is false.
#define FLOTILLA_RETURN_IF_NOT(cond, message)                 \
  do {                                                        \
    if (!(cond)) return ::flotilla::Status::Invalid(message); \
  } while (false)

namespace flotilla {
inline const Status& ToStatus(const Status& s) {
  return s;
}
}  // namespace flotilla
