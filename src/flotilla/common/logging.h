#pragma once
// Logging to stderr by level. The level comes from FLOTILLA_LOG (debug, info, warn, error, off;
// default warn). Worker processes set a tag so their lines can be told apart, and a thread
// working for a distributed query's task names it (a context) in its lines; the lines written
// under a context can be captured, to travel back with the task's result.

#include <fmt/core.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace flotilla::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };

/// Parses "debug", "info", "warn"/"warning", "error", "off" (case-insensitive).
bool ParseLevel(std::string_view text, Level* out);
Level CurrentLevel();
void SetLevel(Level level);
/// A tag printed in every line, e.g. "worker-3". Empty by default.
void SetTag(std::string tag);

/// What the calling thread works for ("q3 t12.1": a query's task attempt), or null. Tasks queued
/// on a ThreadPool run under the context of the thread that queued them.
using Context = std::shared_ptr<const std::string>;
Context CurrentContext();

/// Sets the calling thread's context until destroyed.
class ScopedContext {
 public:
  explicit ScopedContext(Context context);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  Context previous_;
};

/// From now on, lines written under `context` by any thread are also kept (the first
/// `max_lines`), until TakeCapture.
void StartCapture(const std::string& context, size_t max_lines = 1000);
/// The lines kept for `context`, oldest first, as printed; stops keeping them.
std::vector<std::string> TakeCapture(const std::string& context);

void Write(Level level, std::string_view message);

inline bool Enabled(Level level) {
  return level >= CurrentLevel();
}

template <typename... Args>
void Debug(fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kDebug)) Write(Level::kDebug, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Info(fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kInfo)) Write(Level::kInfo, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Warn(fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kWarn)) Write(Level::kWarn, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Error(fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kError)) Write(Level::kError, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace flotilla::log
