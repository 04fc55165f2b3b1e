"""What the distributed benchmarks share: the median time of a repeated call, a process's peak
resident memory."""

import time


def median_seconds(fn, repeat):
    """Calls `fn` `repeat` times; returns the median seconds and the last call's result."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2], out


def timed_collect(make, repeat):
    """The median seconds of collecting the DataFrame `make()` builds, and its number of rows."""
    seconds, result = median_seconds(lambda: make().collect(), repeat)
    return seconds, len(result)


def peak_rss_mib(pid):
    """The peak resident memory of process `pid` in MiB (NaN when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")
