"""Progress bars: drawn on a terminal by default (as Daft's), off when asked or when stderr is
not a terminal."""
import os
import subprocess
import sys

import flotilla

# A query that runs long enough (about 1.2 s) for the display's first frame (after 0.3 s).
SCRIPT = """
import time, flotilla
{setup}
@flotilla.func(return_dtype="int64")
def slow(x):
    time.sleep(0.3)
    return x
df = flotilla.from_pydict({{"x": [1, 2, 3, 4]}}).into_partitions(1)
print(df.select(slow(flotilla.col("x"))).to_pydict())
"""


def _run(setup: str = "", env_extra: dict | None = None, terminal: bool = True) -> tuple[str, str]:
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(flotilla.__file__)))
    env.pop("FLOTILLA_PROGRESS", None)
    env.update(env_extra or {})
    master, slave = os.openpty() if terminal else (None, None)
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT.format(setup=setup)], env=env,
                            stdout=subprocess.PIPE,
                            stderr=slave if terminal else subprocess.PIPE)
    err = b""
    if terminal:
        os.close(slave)
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            err += chunk
        os.close(master)
    out, piped_err = proc.communicate(timeout=120)
    assert proc.returncode == 0, (out, err, piped_err)
    return out.decode(), (err if terminal else piped_err).decode(errors="replace")


def test_progress_is_drawn_on_a_terminal_by_default():
    out, err = _run()
    assert "{'x': [1, 2, 3, 4]}" in out
    assert "elapsed" in err


def test_progress_can_be_turned_off():
    _, err = _run(setup="flotilla.set_execution_config(progress=False)")
    assert "elapsed" not in err
    _, err = _run(env_extra={"FLOTILLA_PROGRESS": "0"})
    assert "elapsed" not in err


def test_no_progress_when_stderr_is_not_a_terminal():
    _, err = _run(terminal=False)
    assert "elapsed" not in err
