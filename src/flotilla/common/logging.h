#pragma once
// Logging to stderr by level. The level comes from FLOTILLA_LOG (debug, info, warn, error, off;
// default warn). Worker processes set a tag so their lines can be told apart.

#include <fmt/core.h>

#include <string>
#include <string_view>

namespace flotilla::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };

/// Parses "debug", "info", "warn"/"warning", "error", "off" (case-insensitive).
bool ParseLevel(std::string_view text, Level* out);
Level CurrentLevel();
void SetLevel(Level level);
/// A tag printed in every line, e.g. "worker-3". Empty by default.
void SetTag(std::string tag);

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
