"""A cluster spanning several hosts: two workers in network namespaces of their own (made by the
test: a bridge and veth pairs, addresses 10.231.0.0/24), the scheduler and the driver in this
one. Loopback is different in each namespace, so a worker that advertised 127.0.0.1 could not be
fetched from: the shuffle and the join below only give the local answer when every worker's
Flight server listens on, and advertises, the address the others reach it at.

Needs root and `ip` (iproute2); elsewhere it is skipped, saying why."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import flotilla
from flotilla import col

pytest.importorskip("distributed")

PYTHON_PATH = str(Path(flotilla.__file__).resolve().parents[1])
SUBNET = "10.231.0"


def _ip(*args, check=True):
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


class Hosts:
    """A bridge in this namespace (SUBNET.1) and one namespace per host (SUBNET.2, .3, ...)."""

    def __init__(self, n):
        tag = f"fl{os.getpid() % 100000}"
        self.bridge = f"{tag}br"
        self.names = [f"{tag}h{i}" for i in range(n)]
        self.links = [f"{tag}v{i}" for i in range(n)]
        self.addresses = [f"{SUBNET}.{i + 2}" for i in range(n)]
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{SUBNET}.1/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for i, ns in enumerate(self.names):
            outside, inside = self.links[i], f"{tag}p{i}"
            _ip("netns", "add", ns)
            _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
            _ip("link", "set", inside, "netns", ns)
            _ip("link", "set", outside, "master", self.bridge)
            _ip("link", "set", outside, "up")
            _ip("-n", ns, "addr", "add", f"{self.addresses[i]}/24", "dev", inside)
            _ip("-n", ns, "link", "set", inside, "up")
            _ip("-n", ns, "link", "set", "lo", "up")

    def close(self):
        # Each veth pair by its outside end (a namespace outlives its name while a process is
        # still in it, and its veth with it), then the names and the bridge.
        for link in self.links:
            _ip("link", "del", link, check=False)
        for ns in self.names:
            _ip("netns", "del", ns, check=False)
        _ip("link", "del", self.bridge, check=False)


@pytest.fixture
def hosts():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("network namespaces need root and iproute2's ip")
    probe = _ip("netns", "add", f"flprobe{os.getpid()}", check=False)
    if probe.returncode != 0:
        pytest.skip(f"cannot create network namespaces here: {probe.stderr.strip()}")
    _ip("netns", "del", f"flprobe{os.getpid()}", check=False)
    h = Hosts(2)
    try:
        yield h
    finally:
        h.close()


def _scheduler_address(scheduler_file, seconds=60):
    """The scheduler's address once its file is written whole."""
    import json
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(scheduler_file) as f:
                return json.load(f)["address"]
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    raise TimeoutError(f"the scheduler wrote no {scheduler_file} in {seconds} s")


def test_workers_on_separate_hosts_exchange_data(hosts):
    from flotilla.dask_runner import DaskRunner
    env = dict(os.environ, PYTHONPATH=PYTHON_PATH, FLOTILLA_PROGRESS="0")
    env.pop("FLOTILLA_FLIGHT_HOST", None)
    work = tempfile.mkdtemp(prefix="flotilla-multihost-")
    procs = []
    runner = None
    try:
        scheduler_file = os.path.join(work, "scheduler.json")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", f"{SUBNET}.1",
             "--port", "0", "--no-dashboard", "--dashboard-address", f"{SUBNET}.1:0",
             "--scheduler-file", scheduler_file],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True))
        address = _scheduler_address(scheduler_file)
        for ns, host in zip(hosts.names, hosts.addresses):
            procs.append(subprocess.Popen(
                ["ip", "netns", "exec", ns, sys.executable, "-m", "distributed.cli.dask_worker",
                 address, "--host", host, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                 "--dashboard-address", f"{host}:0", "--local-directory", work],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True))
        runner = DaskRunner(address=address)
        deadline = time.monotonic() + 90
        while len(runner.client.scheduler_info()["workers"]) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(runner.client.scheduler_info()["workers"]) == 2, "both hosts' workers joined"

        left = flotilla.from_pydict({"k": [i % 7 for i in range(2000)], "v": list(range(2000))})
        right = flotilla.from_pydict({"k": list(range(7)), "name": [f"n{i}" for i in range(7)]})
        query = (left.into_partitions(4).groupby("k").agg(col("v").sum().alias("s"))
                 .join(right, on="k", strategy="hash").sort("k"))
        got = runner.collect(query._df).to_pydict()
        assert got["s"] == [sum(v for v in range(2000) if v % 7 == k) for k in range(7)]
        assert got["name"] == [f"n{i}" for i in range(7)]
        # Each worker's Flight server is at its own host's address.
        flight_hosts = sorted(w.flight_address.rsplit(":", 1)[0] for w in runner.workers.values())
        assert flight_hosts == sorted(hosts.addresses), flight_hosts
    finally:
        if runner is not None:
            runner.close()
        for p in procs:  # each with its children (a worker's nanny starts the worker)
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
