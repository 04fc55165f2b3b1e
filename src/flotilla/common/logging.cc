#include "flotilla/common/logging.h"

#include <strings.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <unordered_map>

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

thread_local Context current_context;

struct Capture {
  size_t max_lines = 0;
  std::vector<std::string> lines;
};

// Guarded by WriteMutex.
std::unordered_map<std::string, Capture>& Captures() {
  static std::unordered_map<std::string, Capture> captures;
  return captures;
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

Context CurrentContext() {
  return current_context;
}

ScopedContext::ScopedContext(Context context) : previous_(std::move(current_context)) {
  current_context = std::move(context);
}

ScopedContext::~ScopedContext() {
  current_context = std::move(previous_);
}

void StartCapture(const std::string& context, size_t max_lines) {
  std::lock_guard<std::mutex> lock(WriteMutex());
  Captures()[context].max_lines = max_lines;
}

std::vector<std::string> TakeCapture(const std::string& context) {
  std::lock_guard<std::mutex> lock(WriteMutex());
  auto it = Captures().find(context);
  if (it == Captures().end()) return {};
  std::vector<std::string> lines = std::move(it->second.lines);
  Captures().erase(it);
  return lines;
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
  std::string line =
      fmt::format("[{}.{:03d} {}", stamp, static_cast<int>(millis), LevelName(level));
  if (!Tag().empty()) line += " " + Tag();
  if (current_context != nullptr) line += " " + *current_context;
  line += "] ";
  line += message;
  std::fprintf(stderr, "%s\n", line.c_str());
  if (current_context != nullptr && !Captures().empty()) {
    auto it = Captures().find(*current_context);
    if (it != Captures().end() && it->second.lines.size() < it->second.max_lines) {
      it->second.lines.push_back(std::move(line));
    }
  }
}

}  // namespace flotilla::log
