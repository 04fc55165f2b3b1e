#pragma once
// The terminal progress display of a running query: one line per operator that has started
// (rows in and out, elapsed time), redrawn in place on stderr a few times a second. Only on a
// terminal; FLOTILLA_PROGRESS=0 turns it off. Lines are cut to the terminal's width.
#include <memory>

#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

class ProgressDisplay {
 public:
  virtual ~ProgressDisplay() = default;
  /// Erases the display and stops redrawing it.
  virtual void Stop() = 0;
};

/// Starts a display of `stats` when `mode` asks for one (1 on, 0 off, -1 when stderr is a
/// terminal and FLOTILLA_PROGRESS is not 0); null otherwise.
std::unique_ptr<ProgressDisplay> StartProgress(const QueryStats* stats, int mode);

/// The display's lines for `stats` at `width` columns (exposed for tests).
std::vector<std::string> RenderProgressLines(const QueryStats& stats, int width,
                                             double elapsed_seconds);

}  // namespace flotilla::exec
