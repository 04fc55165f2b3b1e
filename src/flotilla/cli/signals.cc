#include "flotilla/cli/signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "flotilla/exec/memory/spill_file.h"

namespace flotilla::cli {
namespace {

sigset_t Handled() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void CleanUpOnSignals() {
  const sigset_t set = Handled();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    exec::RemoveActiveSpillDirectories();
    // Then die of the signal, as without this thread (the shell sees 128 + sig).
    ::signal(sig, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    ::raise(sig);
    ::_exit(128 + sig);
  }).detach();
}

void RestoreSignals() {
  const sigset_t set = Handled();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace flotilla::cli
