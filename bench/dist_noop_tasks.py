"""No-op tasks per second through the Dask backend: the per-task overhead of the distributed
runner (driver, scheduler, actor call, task run, result partition pulled over Flight). A query
of N one-row partitions runs as one source task and N into_partitions tasks; the tasks counted
are the completed-task events. Run by bench/dist.sh."""

import time

import flotilla


def main(partitions: int = 400):
    runner = flotilla.set_runner_dask(n_workers=2, progress=False)
    completed = []
    runner.subscribe(lambda e: completed.append(e) if e["event"] == "completed" else None)

    def query():
        return flotilla.from_pydict({"v": list(range(partitions))}).into_partitions(partitions)

    query().to_pydict()  # warm up the workers
    completed.clear()
    start = time.perf_counter()
    rows = len(query().to_pydict()["v"])
    seconds = time.perf_counter() - start
    assert rows == partitions
    print(f"no-op tasks: {len(completed)} tasks in {seconds:.2f} s = "
          f"{len(completed) / seconds:.0f} tasks/s ({1000 * seconds / len(completed):.2f} ms per task)")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
