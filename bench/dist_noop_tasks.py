"""No-op tasks per second through the Dask backend: the per-task overhead of the distributed
runner (driver, actor call, Flight fetch of the result). Run by bench/dist.sh."""
import time, flotilla
def main():
    flotilla.set_runner_dask(n_workers=2)
    make = lambda: flotilla.from_pydict({"v": list(range(200))}).into_partitions(200)
    make().to_pydict()
    t = time.perf_counter(); make().to_pydict(); s = time.perf_counter() - t
    print(f"no-op tasks: 400 tasks (200 source + 200 into_partitions) in {s:.2f} s = {400/s:.0f} tasks/s")
    flotilla.set_runner_local()
if __name__ == "__main__":
    main()
