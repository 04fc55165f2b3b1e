#include "flotilla/common/status.h"

#include <cstdio>
#include <cstdlib>

namespace flotilla {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalid:
      return "Invalid";
    case StatusCode::kTypeError:
      return "Type error";
    case StatusCode::kKeyError:
      return "Key error";
    case StatusCode::kIndexError:
      return "Index error";
    case StatusCode::kIOError:
      return "IO error";
    case StatusCode::kOutOfMemory:
      return "Out of memory";
    case StatusCode::kNotImplemented:
      return "Not implemented";
    case StatusCode::kCancelled:
      return "Cancelled";
    case StatusCode::kInternal:
      return "Internal error";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) state_ = std::make_shared<State>(State{code, std::move(message)});
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string msg(context);
  msg += ": ";
  msg += state_->message;
  return Status(state_->code, std::move(msg));
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code()));
  out += ": ";
  out += message();
  return out;
}

void Status::Check() const {
  if (ok()) return;
  std::fprintf(stderr, "flotilla: fatal: %s\n", ToString().c_str());
  std::abort();
}

}  // namespace flotilla
