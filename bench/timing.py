"""What the distributed benchmarks share: the median time of a repeated call."""

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
