"""User-defined functions.

``@flotilla.func`` turns a Python function into one that builds expressions:

    @flotilla.func(return_dtype="bigint")
    def double(x):            # row-wise: called once per row, None in, None out by default
        return x * 2

    @flotilla.func(batch=True, return_dtype="double")
    def scale(xs: flotilla.Series):   # batch: called once per batch with Series
        return xs.to_numpy() * 0.5

    df.with_column("y", double(col("x")))

``@flotilla.cls(concurrency=N)`` makes a stateful class whose instances are created once each
(e.g. to load a model) and shared by a pool of N that the engine hands batches to (the
ActorPoolProject operator); the instances start when the query starts:

    @flotilla.cls(concurrency=2, return_dtype="double")
    class Model:
        def __init__(self, path): self.weights = load(path)
        def __call__(self, x): return float(x) * self.weights

    df.with_column("score", Model("w.npy")(col("x")))

An exception inside a UDF fails the query with an error naming the UDF and the input row.
"""

from __future__ import annotations

import inspect
import itertools
import queue
import threading
import typing
from typing import Any, Callable

from . import _flotilla as _ext
from .expressions import Expression, _to_expr

__all__ = ["func", "cls", "Series", "UDFError"]


class UDFError(Exception):
    """A UDF raised: the message names the UDF and the input."""


class Series:
    """One column of a batch handed to a batch UDF."""

    __slots__ = ("_column",)

    def __init__(self, column):
        self._column = column

    def __len__(self) -> int:
        return len(self._column)

    def to_pylist(self) -> list:
        return self._column.to_pylist()

    def to_numpy(self):
        return self._column.to_numpy()

    def __iter__(self):
        return iter(self.to_pylist())

    @property
    def dtype(self) -> str:
        return self._column.dtype


_PY_TYPES = {int: "bigint", float: "double", str: "varchar", bool: "boolean", bytes: "blob"}


def _return_dtype(fn: Callable, given) -> str:
    if given is not None:
        from .expressions import _type_name

        return _type_name(given)
    try:
        hint = typing.get_type_hints(fn).get("return")
    except Exception:  # noqa: BLE001 - unresolvable annotations: ask for return_dtype
        hint = None
    if hint in _PY_TYPES:
        return _PY_TYPES[hint]
    raise TypeError(f"UDF '{getattr(fn, '__name__', fn)}' needs return_dtype= (or an int/float/str/"
                    "bool return annotation)")


_ids = itertools.count()


class _UdfCall:
    def __init__(self, udf, arguments: list):
        self.udf = udf
        self.arguments = arguments
        self.output = f"__udf_{next(_ids)}"


def _describe(values) -> str:
    text = ", ".join(repr(v) for v in values)
    return text if len(text) <= 200 else text[:197] + "..."


class _Udf:
    """A function applied to batches; calling it on expressions gives an Expression."""

    def __init__(self, fn: Callable, name: str, batch: bool, return_dtype: str, concurrency: int = 0,
                 pool=None):
        self.fn = fn
        self.name = name
        self.batch = batch
        self.return_dtype = return_dtype
        self.concurrency = concurrency
        self.pool = pool

    def __call__(self, *args) -> Expression:
        call = _UdfCall(self, [_to_expr(a) for a in args])
        return Expression(_ext.col(call.output), calls={call.output: call})

    def batch_function(self) -> Callable:
        """The function the engine calls with one Column per argument."""
        run = self.pool.run if self.pool is not None else self.fn
        name, batch = self.name, self.batch

        def apply(*columns):
            series = [Series(c) for c in columns]
            if batch:
                try:
                    out = run(*series)
                except Exception as e:  # noqa: BLE001 - re-raised with the UDF and input named
                    first = _describe(s.to_pylist()[0] for s in series) if columns and len(columns[0]) else ""
                    raise UDFError(f"UDF '{name}' failed on a batch of {len(columns[0]) if columns else 0} "
                                   f"rows (first row: {first}): {type(e).__name__}: {e}") from e
                return out.to_pylist() if isinstance(out, Series) else out
            rows = [s.to_pylist() for s in series]
            out = []
            for i, values in enumerate(zip(*rows)):
                if any(v is None for v in values):
                    out.append(None)
                    continue
                try:
                    out.append(run(*values))
                except Exception as e:  # noqa: BLE001
                    raise UDFError(f"UDF '{name}' failed on input ({_describe(values)}): "
                                   f"{type(e).__name__}: {e}") from e
            return out

        return apply


def func(fn: Callable | None = None, *, return_dtype=None, batch: bool = False, name: str | None = None):
    """Decorator: a row-wise (default) or batch (batch=True) UDF."""

    def wrap(f):
        return _Udf(f, name or f.__name__, batch, _return_dtype(f, return_dtype))

    return wrap(fn) if fn is not None else wrap


class _ActorPool:
    """N instances of a class, each handling one batch at a time."""

    def __init__(self, cls_, args, kwargs, concurrency: int, method: str):
        self.cls = cls_
        self.args, self.kwargs = args, kwargs
        self.concurrency = concurrency
        self.method = method
        self.instances: queue.Queue = queue.Queue()
        self.started = 0
        self.lock = threading.Lock()

    def start(self):
        """Creates the instances (once): when the query starts."""
        with self.lock:
            while self.started < self.concurrency:
                self.instances.put(self.cls(*self.args, **self.kwargs))
                self.started += 1

    def run(self, *values):
        if self.started == 0:
            self.start()
        instance = self.instances.get()
        try:
            return getattr(instance, self.method)(*values)
        finally:
            self.instances.put(instance)


def cls(c=None, *, concurrency: int = 1, return_dtype=None, batch: bool = False, method: str = "__call__",
        num_cpus: float | None = None, num_gpus: float | None = None, memory_bytes: int | None = None):
    """Decorator: a stateful class UDF run by a pool of `concurrency` instances.

    num_cpus / num_gpus / memory_bytes are each instance's resource request: the local runner
    records them (`Handle.resources`), the distributed runner places instances by them."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    resources = {"num_cpus": num_cpus, "num_gpus": num_gpus, "memory_bytes": memory_bytes}
    for name, value in resources.items():
        if value is not None and value < 0:
            raise ValueError(f"{name} must not be negative")

    def wrap(klass):
        target = getattr(klass, method)
        dtype = _return_dtype(target, return_dtype)

        class Handle:
            """A lazily created pool of instances; call it on expressions."""

            def __init__(self, *args, **kwargs):
                self._pool = _ActorPool(klass, args, kwargs, concurrency, method)
                self._pool.resources = Handle.resources  # the distributed runner places by them
                self._udf = _Udf(None, klass.__name__, batch, dtype, concurrency, self._pool)

            def __call__(self, *args) -> Expression:
                return self._udf(*args)

        Handle.__name__ = klass.__name__
        Handle.__doc__ = klass.__doc__
        Handle.resources = {k: v for k, v in resources.items() if v is not None}
        return Handle

    return wrap(c) if c is not None else wrap
