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

Daft's spellings work too: ``@flotilla.func.batch(...)``, ``@flotilla.method`` /
``@flotilla.method.batch`` on a ``@flotilla.cls`` class's methods (``model.predict(col("x"))``),
and the legacy ``@flotilla.udf(return_dtype=..., batch_size=..., concurrency=...)`` for batch
functions and classes (``Model.with_init_args(...)``, ``.with_concurrency(n)``,
``.override_options(batch_size=...)``). Arguments that are not Expressions are passed to the
function as they are, in every call. num_gpus / gpus are resource requests: the distributed
runner places instances on workers offering GPUs (and refuses a query none can run); the local
runner records them and runs on the CPU.

An exception inside a UDF fails the query with an error naming the UDF and the input row.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import queue
import secrets
import threading
import typing
from dataclasses import dataclass
from typing import Any, Callable

from . import _flotilla as _ext
from .datatype import DataType, _parse, engine_type, to_datatype
from .expressions import Expression

__all__ = ["func", "cls", "method", "Series", "UDFError"]


class UDFError(Exception):
    """A UDF raised: the message names the UDF and the input."""


class Series:
    """One column of a batch handed to a batch UDF (or built with Series.from_pylist)."""

    __slots__ = ("_column", "_values", "_name")

    def __init__(self, column=None, values=None, name: str = ""):
        self._column = column  # an engine column, or None when the values are a Python list
        self._values = values
        self._name = name

    @staticmethod
    def from_pylist(values: list, name: str = "list_series", dtype=None) -> "Series":
        return Series(values=list(values), name=name)

    @staticmethod
    def from_numpy(values, name: str = "numpy_series", dtype=None) -> "Series":
        return Series(values=list(values.tolist()), name=name)

    def name(self) -> str:
        return self._name

    def rename(self, name: str) -> "Series":
        return Series(self._column, self._values, name)

    def __len__(self) -> int:
        return len(self._column) if self._column is not None else len(self._values)

    def to_pylist(self) -> list:
        return self._column.to_pylist() if self._column is not None else list(self._values)

    def to_numpy(self):
        if self._column is not None:
            return self._column.to_numpy()
        import numpy as np

        return np.array(self._values)

    def to_arrow(self):
        import pyarrow as pa  # only when installed: the engine does not need it

        return pa.array(self.to_pylist())

    def _slice(self, start: int, end: int) -> "Series":
        return Series(values=self.to_pylist()[start:end], name=self._name)

    def __iter__(self):
        return iter(self.to_pylist())

    def __getitem__(self, i):
        return self.to_pylist()[i]

    @property
    def dtype(self) -> str:
        return self._column.dtype if self._column is not None else "object"

    def datatype(self) -> DataType:
        return _parse(self.dtype)

    def __repr__(self) -> str:
        return f"Series({self._name!r}, {self.to_pylist()!r})"


def _return_dtype(fn: Callable, given):
    """The engine's spec of the UDF's return type: `given`, else the return annotation."""
    if given is not None:
        return engine_type(given)
    try:
        hint = typing.get_type_hints(fn).get("return")
    except Exception:  # noqa: BLE001 - unresolvable annotations: ask for return_dtype
        hint = None
    if hint is not None:
        try:
            return engine_type(to_datatype(hint))
        except TypeError:
            pass
    raise TypeError(f"UDF '{getattr(fn, '__name__', fn)}' needs return_dtype= (or a return "
                    "annotation such as int, float, str, bool, bytes or list[int])")


_ids = itertools.count()


# Set apart this process's UDF names from another's sharing the same workers (session_server).
_process_tag = secrets.token_hex(2)


def _unique(label: str) -> str:
    """The name a UDF is registered by on the workers: its label made unique, so two functions of
    one name (two lambdas, two instances of one class) never take each other's place, in one
    query or in queries running at once, from this process or another."""
    return f"{label}#{_process_tag}{next(_ids)}"


class _UdfCall:
    def __init__(self, udf, arguments: list):
        self.udf = udf
        self.arguments = arguments
        self.output = f"__udf_{next(_ids)}"


def _describe(values) -> str:
    text = ", ".join(repr(v) for v in values)
    return text if len(text) <= 200 else text[:197] + "..."


class _Template:
    """Where a call's Expression arguments go among its constant ones."""

    def __init__(self, args: tuple, kwargs: dict):
        self.args = [None if isinstance(a, Expression) else a for a in args]
        self.kwargs = {k: None if isinstance(v, Expression) else v for k, v in kwargs.items()}
        # The Expressions' places, in the order their values come: positions, then names.
        self.positions = [i for i, a in enumerate(args) if isinstance(a, Expression)]
        self.keywords = [k for k, v in kwargs.items() if isinstance(v, Expression)]
        self.has_constants = len(self.positions) + len(self.keywords) != len(args) + len(kwargs)

    def fill(self, values):
        args, kwargs = list(self.args), dict(self.kwargs)
        values = list(values)
        for i, v in zip(self.positions, values):
            args[i] = v
        for k, v in zip(self.keywords, values[len(self.positions):]):
            kwargs[k] = v
        return args, kwargs


class _Udf:
    """A function applied to batches; calling it on expressions gives an Expression."""

    def __init__(self, fn: Callable, name: str, batch: bool, return_dtype, concurrency: int = 0,
                 pool=None, batch_size: int | None = None, template: _Template | None = None,
                 label: str | None = None):
        self.fn = fn
        self.name = name  # unique (_unique; per call with constants): workers find it by it
        self.label = label or name  # what errors call it
        self.batch = batch
        self.return_dtype = return_dtype
        self.concurrency = concurrency
        self.pool = pool
        self.batch_size = batch_size
        self.template = template

    def __call__(self, *args, **kwargs) -> Expression:
        template = _Template(args, kwargs)
        exprs = [a for a in args if isinstance(a, Expression)] + \
            [v for v in kwargs.values() if isinstance(v, Expression)]
        if not exprs:
            if self.fn is None:
                raise TypeError(f"UDF '{self.label}' needs at least one Expression argument (a column)")
            return self.fn(*args, **kwargs)  # on plain values: run now, as Daft
        name = self.name
        if template.has_constants or template.keywords:
            name = _unique(self.label)
        bound = _Udf(self.fn, name, self.batch, self.return_dtype, self.concurrency, self.pool,
                     self.batch_size, template, self.label)
        call = _UdfCall(bound, exprs)
        calls = {call.output: call}
        for e in exprs:
            calls.update(e._calls)
        return Expression(_ext.col(call.output), calls=calls, name=exprs[0]._name)

    def options(self) -> dict:
        """What a worker needs besides the function to rebuild this UDF's batch function."""
        return {"batch_size": self.batch_size, "template": self.template, "label": self.label}

    def batch_function(self) -> Callable:
        """The function the engine calls with one Column per Expression argument."""
        run = self.pool.run if self.pool is not None else self.fn
        name, batch, template, size = self.label, self.batch, self.template, self.batch_size

        def invoke(values):
            if template is None:
                return run(*values)
            args, kwargs = template.fill(values)
            return run(*args, **kwargs)

        def run_batch(series):
            try:
                out = invoke(series)
            except Exception as e:  # noqa: BLE001 - re-raised with the UDF and input named
                first = _describe(s.to_pylist()[0] for s in series) if series and len(series[0]) else ""
                raise UDFError(f"UDF '{name}' failed on a batch of {len(series[0]) if series else 0} "
                               f"rows (first row: {first}): {type(e).__name__}: {e}") from e
            if isinstance(out, Series):
                return out.to_pylist()
            if hasattr(out, "to_pylist") and not hasattr(out, "tolist"):
                return out.to_pylist()  # a pyarrow array
            return out

        def apply(*columns):
            series = [Series(c) for c in columns]
            if batch:
                rows = len(series[0]) if series else 0
                if size is None or rows <= size:
                    return run_batch(series)
                out = []
                for start in range(0, rows, size):
                    part = run_batch([s._slice(start, start + size) for s in series])
                    out += part.tolist() if hasattr(part, "tolist") else list(part)
                return out
            rows = [s.to_pylist() for s in series]
            if inspect.iscoroutinefunction(run) or inspect.iscoroutinefunction(getattr(run, "__call__", None)):
                return _run_async_rows(invoke, rows, name)
            out = []
            for values in zip(*rows):
                if any(v is None for v in values):
                    out.append(None)
                    continue
                try:
                    out.append(invoke(values))
                except Exception as e:  # noqa: BLE001
                    raise UDFError(f"UDF '{name}' failed on input ({_describe(values)}): "
                                   f"{type(e).__name__}: {e}") from e
            return out

        return apply


def _run_async_rows(invoke, rows, name) -> list:
    """A row-wise async UDF: every row's coroutine awaited concurrently, results in row order."""

    async def one(values):
        if any(v is None for v in values):
            return None
        try:
            return await invoke(values)
        except Exception as e:  # noqa: BLE001
            raise UDFError(f"UDF '{name}' failed on input ({_describe(values)}): "
                           f"{type(e).__name__}: {e}") from e

    async def every():
        return await asyncio.gather(*(one(v) for v in zip(*rows)))

    return list(asyncio.run(every()))


def _refuse_generator(fn: Callable):
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise NotImplementedError(f"UDF '{fn.__name__}' is a generator: generator UDFs (several "
                                  "rows per input row) are not supported yet; return a list and "
                                  "explode it instead")


def _check_batch_size(batch_size):
    if batch_size is not None and (not isinstance(batch_size, int) or batch_size < 1):
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")


class _Func:
    """``@func`` (row-wise) and ``@func.batch`` (Series in, Series/list/array out)."""

    def __call__(self, fn: Callable | None = None, *, return_dtype=None, batch: bool = False,
                 name: str | None = None, batch_size: int | None = None, unnest: bool = False,
                 **_resources):
        _check_batch_size(batch_size)
        if unnest:
            raise NotImplementedError("unnest=True is not supported yet; use .struct.get(field)")

        def wrap(f):
            _refuse_generator(f)
            label = name or f.__name__
            return _Udf(f, _unique(label), batch, _return_dtype(f, return_dtype),
                        batch_size=batch_size, label=label)

        return wrap(fn) if fn is not None else wrap

    def batch(self, fn: Callable | None = None, *, return_dtype=None, batch_size: int | None = None,
              name: str | None = None, **resources):
        return self(fn, return_dtype=return_dtype, batch=True, name=name, batch_size=batch_size,
                    **resources)


func = _Func()
func.__doc__ = "Decorator: a row-wise (default) or batch (batch=True, or func.batch) UDF."


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

    def run(self, *values, **kwargs):
        if self.started == 0:
            self.start()
        instance = self.instances.get()
        try:
            return getattr(instance, self.method)(*values, **kwargs)
        finally:
            self.instances.put(instance)


@dataclass(frozen=True)
class _PoolMember:
    """One instance of an actor pool's class as another process (a Dask actor) hosts it: how to
    create the instance, and the UDF that calls its method."""

    cls: type
    args: tuple
    kwargs: dict
    method: str
    udf_name: str
    batch: bool
    return_dtype: Any
    options: dict

    @staticmethod
    def of(udf: _Udf) -> "_PoolMember":
        pool = udf.pool
        return _PoolMember(pool.cls, pool.args, pool.kwargs, pool.method, udf.name, udf.batch,
                           udf.return_dtype, udf.options())

    def instance(self):
        return self.cls(*self.args, **self.kwargs)

    def batch_function(self, instance) -> Callable:
        """The instance's method, as the engine calls the UDF."""
        return _Udf(getattr(instance, self.method), self.udf_name, self.batch, self.return_dtype,
                    **self.options).batch_function()


class _MethodOptions:
    """What @method says of one method of a @cls class."""

    def __init__(self, return_dtype, batch: bool, batch_size):
        self.return_dtype = return_dtype
        self.batch = batch
        self.batch_size = batch_size


class _Method:
    """``@method`` / ``@method.batch`` on a method of a ``@cls`` class."""

    def __call__(self, fn: Callable | None = None, *, return_dtype=None, unnest: bool = False,
                 batch_size: int | None = None, **_options):
        return self._mark(fn, return_dtype, False, batch_size, unnest)

    def batch(self, fn: Callable | None = None, *, return_dtype=None, batch_size: int | None = None,
              **_options):
        return self._mark(fn, return_dtype, True, batch_size, False)

    @staticmethod
    def _mark(fn, return_dtype, batch, batch_size, unnest):
        _check_batch_size(batch_size)
        if unnest:
            raise NotImplementedError("unnest=True is not supported yet; use .struct.get(field)")

        def wrap(f):
            _refuse_generator(f)
            f._flotilla_method = _MethodOptions(return_dtype, batch, batch_size)
            return f

        return wrap(fn) if fn is not None else wrap


method = _Method()


def _auto_concurrency(resources: dict) -> int:
    """Instances for a class UDF given no concurrency: what the current runner (the local
    process, or the Dask cluster's workers) holds at once at the UDF's resource request."""
    from . import runner

    return runner.current().instances_for(resources)


def cls(c=None, *, concurrency: int | None = None, return_dtype=None, batch: bool = False,
        method: str = "__call__", num_cpus: float | None = None, num_gpus: float | None = None,
        memory_bytes: int | None = None, max_concurrency: int | None = None,
        cpus: float | None = None, gpus: float | None = None, use_process: bool | None = None,
        max_retries: int | None = None, on_error: str | None = None,
        name_override: str | None = None, batch_size: int | None = None):
    """Decorator: a stateful class UDF run by a pool of `concurrency` (Daft: max_concurrency)
    instances, created when the query starts (not given: as many as the current runner's
    resources hold at the request below, chosen when the UDF is applied); ``instance(col)`` calls __call__ and
    ``instance.other(col)`` any other method (@method sets a method's return type or makes it
    a batch method). Called on plain values instead of Expressions, a method runs at once.

    num_cpus / num_gpus / memory_bytes (Daft: cpus / gpus) are each instance's resource request:
    the local runner records them (`Handle.resources`), the distributed runner places instances
    by them."""
    size = concurrency if concurrency is not None else max_concurrency
    if size is not None and size < 1:
        raise ValueError("concurrency must be at least 1")
    if on_error not in (None, "raise"):
        raise NotImplementedError(f"on_error={on_error!r} is not supported yet; errors fail the query")
    _check_batch_size(batch_size)
    resources = {"num_cpus": num_cpus if num_cpus is not None else cpus,
                 "num_gpus": num_gpus if num_gpus is not None else gpus, "memory_bytes": memory_bytes}
    for name, value in resources.items():
        if value is not None and value < 0:
            raise ValueError(f"{name} must not be negative")
    default_method = method

    def wrap(klass):
        label = name_override or klass.__name__

        def udf_for(handle, method_name):
            target = getattr(klass, method_name, None)
            if target is None or not callable(target):
                raise AttributeError(f"class '{klass.__name__}' has no method '{method_name}'")
            marked = getattr(target, "_flotilla_method", None)
            is_batch = marked.batch if marked is not None else batch
            given = marked.return_dtype if marked is not None and marked.return_dtype is not None \
                else (return_dtype if method_name == default_method else None)
            dtype = _return_dtype(target, given)
            # No concurrency given: as many instances as the current runner holds at once.
            n = size if size is not None else _auto_concurrency(Handle.resources)
            pool = _ActorPool(klass, handle._args, handle._kwargs, n, method_name)
            pool.resources = Handle.resources  # the distributed runner places by them
            name = label if method_name == default_method else f"{label}.{method_name}"
            return _Udf(None, _unique(name), is_batch, dtype, n, pool,
                        marked.batch_size if marked is not None and marked.batch_size else batch_size,
                        label=name)

        class Handle:
            """A lazily created pool of instances; call it (or its methods) on expressions."""

            def __init__(self, *args, **kwargs):
                self._args, self._kwargs = args, kwargs
                self._udfs = {}
                self._local = None  # an instance for calls on plain values

            def _udf(self, method_name):
                if method_name not in self._udfs:
                    self._udfs[method_name] = udf_for(self, method_name)
                return self._udfs[method_name]

            def _call(self, method_name, args, kwargs):
                if any(isinstance(a, Expression) for a in list(args) + list(kwargs.values())):
                    return self._udf(method_name)(*args, **kwargs)
                if self._local is None:
                    self._local = klass(*self._args, **self._kwargs)
                return getattr(self._local, method_name)(*args, **kwargs)

            def __call__(self, *args, **kwargs):
                return self._call(default_method, args, kwargs)

            def __getattr__(self, name):
                if name.startswith("_") or not callable(getattr(klass, name, None)):
                    raise AttributeError(f"'{klass.__name__}' has no method '{name}'")
                return lambda *args, **kwargs: self._call(name, args, kwargs)

            @property
            def _pool(self):
                return self._udf(default_method).pool

        Handle.__name__ = klass.__name__
        Handle.__qualname__ = klass.__qualname__
        Handle.__doc__ = klass.__doc__
        Handle.resources = {k: v for k, v in resources.items() if v is not None}
        return Handle

    return wrap(c) if c is not None else wrap
