#pragma once
// Ctrl-C, SIGTERM and SIGHUP end the program as they would, but first remove the spill files of
// the queries still running (they would otherwise stay in the temporary directory: hundreds of
// MB per query). The signals are taken by a thread of their own (sigwait), so the clean-up runs
// outside a signal handler.

namespace flotilla::cli {

/// Call first in main, before any thread starts: every later thread inherits the blocked mask.
void CleanUpOnSignals();

/// Unblocks the signals again, for a program this one execs (which inherits the mask).
void RestoreSignals();

}  // namespace flotilla::cli
