#include "flotilla/common/logging.h"

#include <strings.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>

namespace flotilla::log {
namespace {

Level LevelFromEnvironment() {
  const char* env = std::getenv("FLOTILLA_LOG");
  Level level = Level::kWarn;
  if (env != nullptr && !ParseLevel(env, &level)) {
    std::fprintf(
        stderr, "flotilla: ignoring FLOTILLA_LOG='%s'; use debug, info, warn, error or off\n", env);
  }
  return level;
}

std::atomic<int>& LevelSlot() {
  static std::atomic<int> level{static_cast<int>(LevelFromEnvironment())};
  return level;
}

std::mutex& WriteMutex() {
  static std::mutex mu;
  return mu;
}

std::string& Tag() {
  static std::string tag;
  return tag;
}

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "DEBUG";
    case Level::kInfo:
      return "INFO";
    case Level::kWarn:
      return "WARN";
    case Level::kError:
      return "ERROR";
    case Level::kOff:
      return "OFF";
  }
  return "?";
}

}  // namespace

bool ParseLevel(std::string_view text, Level* out) {
  struct Entry {
    const char* name;
    Level level;
  };
  static constexpr Entry kEntries[] = {{"debug", Level::kDebug}, {"info", Level::kInfo},
                                       {"warn", Level::kWarn},   {"warning", Level::kWarn},
                                       {"error", Level::kError}, {"off", Level::kOff}};
  for (const auto& e : kEntries) {
    if (text.size() == std::char_traits<char>::length(e.name) &&
        strncasecmp(text.data(), e.name, text.size()) == 0) {
      *out = e.level;
      return true;
    }
  }
  return false;
}

Level CurrentLevel() {
  return static_cast<Level>(LevelSlot().load(std::memory_order_relaxed));
}

void SetLevel(Level level) {
  LevelSlot().store(static_cast<int>(level));
}

void SetTag(std::string tag) {
  std::lock_guard<std::mutex> lock(WriteMutex());
  Tag() = std::move(tag);
}

void Write(Level level, std::string_view message) {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
  std::lock_guard<std::mutex> lock(WriteMutex());
  if (Tag().empty()) {
    std::fprintf(stderr, "[%s.%03d %s] %.*s\n", stamp, static_cast<int>(millis), LevelName(level),
                 static_cast<int>(message.size()), message.data());
  } else {
    std::fprintf(stderr, "[%s.%03d %s %s] %.*s\n", stamp, static_cast<int>(millis),
                 LevelName(level), Tag().c_str(), static_cast<int>(message.size()), message.data());
  }
}

}  // namespace flotilla::log
