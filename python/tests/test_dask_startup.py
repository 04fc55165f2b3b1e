"""Starting the Dask runner as people do: a script calling set_runner_dask() at its top level
(no `if __name__ == "__main__":` guard), `python -c` and a notebook-style exec all run once and
give the answer; a cluster that cannot be reached, or an interpreter without Dask, fails within
seconds with a message that says what to do."""
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import flotilla

pytest.importorskip("distributed")

PYTHON_PATH = str(Path(flotilla.__file__).resolve().parents[1])

JOB = """
import flotilla
from flotilla import col

flotilla.set_runner_dask(n_workers=2)
df = flotilla.from_pydict({"k": [i % 3 for i in range(300)], "v": list(range(300))})
print(df.groupby("k").agg(col("v").sum().alias("s")).sort("k").to_pydict()["s"])
"""
EXPECTED = str([sum(v for v in range(300) if v % 3 == k) for k in range(3)])


def _python(*args, timeout=180):
    env = dict(os.environ, PYTHONPATH=PYTHON_PATH, FLOTILLA_PROGRESS="0")
    env.pop("FLOTILLA_RUNNER", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


@pytest.mark.parametrize("how", ["script", "python -c", "exec of a cell"])
def test_set_runner_dask_at_the_top_level(tmp_path, how):
    if how == "script":
        (tmp_path / "job.py").write_text(JOB)
        out = _python(str(tmp_path / "job.py"))
    elif how == "python -c":
        out = _python("-c", JOB)
    else:
        out = _python("-c", f"exec(compile({JOB!r}, '<cell>', 'exec'))")
    assert out.returncode == 0, out.stderr[-3000:]
    # The job ran once: one answer, not one per worker process.
    assert out.stdout.strip().splitlines() == [EXPECTED], out.stdout


def test_a_closed_address_fails_within_seconds():
    from flotilla.dask_runner import DaskRunner

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}"):
        DaskRunner(address=f"tcp://127.0.0.1:{port}")
    assert time.monotonic() - start < 10


def test_an_interpreter_without_dask_is_told_what_to_install():
    out = _python("-c", "import sys\nsys.modules['distributed'] = None  # cannot be imported\n"
                        "import flotilla\nflotilla.set_runner_dask()", timeout=60)
    assert out.returncode != 0
    assert sys.executable in out.stderr and "apt-get install python3-distributed" in out.stderr, \
        out.stderr[-2000:]


def _listening_sockets():
    """{inode: (address, port)} of the TCP sockets listening on this machine (/proc/net)."""
    out = {}
    for name, width in (("tcp", 8), ("tcp6", 32)):
        with open(f"/proc/net/{name}") as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                address, port = fields[1].split(":")
                if fields[3] == "0A":  # LISTEN
                    out[int(fields[9])] = (name, address, int(port, 16))
    return out


def _tree(pid):
    """`pid` and every process descending from it."""
    children = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(p))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def test_a_local_cluster_listens_on_loopback_only():
    """Every server of a local cluster (scheduler, nannies, workers, Dask's HTTP servers, the
    workers' Flight servers once a query ran) is bound to 127.0.0.1, never to all interfaces."""
    from flotilla.dask_runner import DaskRunner
    runner = DaskRunner(n_workers=2)
    try:
        df = flotilla.from_pydict({"k": [1, 2, 3, 1]})
        rows = runner.collect(df.groupby("k").agg(flotilla.col("k").count().alias("n"))._df)
        assert sorted(rows.to_pydict()["n"]) == [1, 1, 2]  # a shuffle ran: Flight servers up
        listening = _listening_sockets()
        seen = []
        for root in [p.popen.pid for p in runner.cluster._procs]:
            for pid in _tree(root):
                try:
                    fds = os.listdir(f"/proc/{pid}/fd")
                except OSError:
                    continue
                for fd in fds:
                    try:
                        target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    except OSError:
                        continue
                    if target.startswith("socket:["):
                        inode = int(target[8:-1])
                        if inode in listening:
                            seen.append((pid, listening[inode]))
        assert len(seen) >= 6, seen  # scheduler, nannies and workers at least
        # 127.0.0.1, as IPv4 and as IPv4-mapped IPv6 (gRPC's servers), and ::1.
        loopback = {("tcp", "0100007F"), ("tcp6", "0000000000000000FFFF00000100007F"),
                    ("tcp6", "00000000000000000000000001000000")}
        wide = [s for s in seen if (s[1][0], s[1][1]) not in loopback]
        assert not wide, f"servers listening beyond loopback: {wide}"
    finally:
        runner.close()
