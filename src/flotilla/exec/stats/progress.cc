#include "flotilla/exec/stats/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

namespace flotilla::exec {

std::vector<std::string> RenderProgressLines(const QueryStats& stats, int width,
                                             double elapsed_seconds) {
  std::vector<std::string> lines;
  for (const OperatorStats* s : stats.InPlanOrder()) {
    if (!s->started.load()) continue;
    char numbers[96];
    std::snprintf(numbers, sizeof numbers, " %s rows in, %s out%s",
                  FormatCount(s->rows_in.load()).c_str(), FormatCount(s->rows_out.load()).c_str(),
                  s->finished.load() ? " (done)" : "");
    std::string name = std::string(static_cast<size_t>(s->depth) * 2, ' ') + s->name;
    std::string line = name + numbers;
    if (width > 0 && static_cast<int>(line.size()) > width) {
      // Cut the name, not the numbers: they are what the user watches.
      const int room = width - static_cast<int>(std::strlen(numbers));
      line = room > 1 ? name.substr(0, static_cast<size_t>(room - 1)) + "~" + numbers
                      : line.substr(0, static_cast<size_t>(width));
    }
    lines.push_back(std::move(line));
  }
  char footer[64];
  std::snprintf(footer, sizeof footer, "elapsed %.1f s", elapsed_seconds);
  lines.push_back(width > 0 ? std::string(footer).substr(0, static_cast<size_t>(width)) : footer);
  return lines;
}

namespace {

int TerminalWidth() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

class TerminalProgress final : public ProgressDisplay {
 public:
  explicit TerminalProgress(const QueryStats* stats)
      : stats_(stats), start_(std::chrono::steady_clock::now()) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~TerminalProgress() override { Stop(); }

  void Stop() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
    Erase();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    // Short queries finish before the first frame and never draw.
    while (!wake_.wait_for(lock, std::chrono::milliseconds(300), [&] { return stopping_; })) {
      Draw();
    }
  }

  void Draw() {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const auto lines = RenderProgressLines(*stats_, TerminalWidth() - 1, elapsed);
    std::string out;
    if (drawn_ > 0) out += "\x1b[" + std::to_string(drawn_) + "F";
    for (const std::string& line : lines)
      out += "\x1b[2K" + line + "\n";
    std::fputs(out.c_str(), stderr);
    std::fflush(stderr);
    drawn_ = static_cast<int>(lines.size());
  }

  void Erase() {
    if (drawn_ == 0) return;
    std::string out = "\x1b[" + std::to_string(drawn_) + "F";
    for (int i = 0; i < drawn_; ++i)
      out += "\x1b[2K\n";
    out += "\x1b[" + std::to_string(drawn_) + "F";
    std::fputs(out.c_str(), stderr);
    std::fflush(stderr);
    drawn_ = 0;
  }

  const QueryStats* stats_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  int drawn_ = 0;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<ProgressDisplay> StartProgress(const QueryStats* stats, int mode) {
  if (mode == 0) return nullptr;
  if (mode < 0) {
    const char* env = std::getenv("FLOTILLA_PROGRESS");
    if (env != nullptr && std::strcmp(env, "0") == 0) return nullptr;
    if (!isatty(STDERR_FILENO)) return nullptr;
  }
  return std::make_unique<TerminalProgress>(stats);
}

}  // namespace flotilla::exec
