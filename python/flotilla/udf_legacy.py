"""Daft's legacy ``@udf`` decorator: batch functions and classes.

    @flotilla.udf(return_dtype=DataType.float64(), batch_size=1024)
    def scale(xs, factor):          # one Series per Expression argument, constants as they are
        return xs.to_numpy() * factor

    @flotilla.udf(return_dtype=DataType.int64(), concurrency=2)
    class Model:
        def __init__(self, path="w.npy"): ...
        def __call__(self, xs): ...

    df.select(scale(col("x"), 0.5), Model.with_init_args("v2.npy")(col("x")))
"""

from __future__ import annotations

import inspect

from .datatype import engine_type
from .expressions import Expression
from .udf import _ActorPool, _check_batch_size, _refuse_generator, _Udf, _unique

__all__ = ["udf"]


class _LegacyClassUdf:
    """A class under Daft's legacy ``@udf``: calling it on Expressions runs __call__ on batches,
    with instances created (init args from with_init_args) when the query starts."""

    def __init__(self, klass, return_dtype, concurrency, batch_size, resources, init_args=None):
        self._klass = klass
        self._return_dtype = return_dtype
        self._concurrency = concurrency
        self._batch_size = batch_size
        self._resources = resources
        self._init_args = init_args  # (args, kwargs), or None: __init__ takes no arguments
        self.__name__ = klass.__name__
        self.__doc__ = klass.__doc__

    def _copy(self, **changes):
        fields = dict(klass=self._klass, return_dtype=self._return_dtype,
                      concurrency=self._concurrency, batch_size=self._batch_size,
                      resources=dict(self._resources), init_args=self._init_args)
        fields.update(changes)
        return _LegacyClassUdf(**fields)

    def with_init_args(self, *args, **kwargs) -> "_LegacyClassUdf":
        return self._copy(init_args=(args, kwargs))

    def with_concurrency(self, concurrency: int) -> "_LegacyClassUdf":
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be a positive int, got {concurrency!r}")
        return self._copy(concurrency=concurrency)

    def override_options(self, *, num_cpus=None, num_gpus=None, memory_bytes=None,
                         batch_size=None) -> "_LegacyClassUdf":
        _check_batch_size(batch_size)
        resources = dict(self._resources)
        for k, v in (("num_cpus", num_cpus), ("num_gpus", num_gpus), ("memory_bytes", memory_bytes)):
            if v is not None:
                if v < 0:
                    raise ValueError(f"{k} must not be negative")
                resources[k] = v
        return self._copy(resources=resources,
                          batch_size=batch_size if batch_size is not None else self._batch_size)

    @property
    def resources(self) -> dict:
        return dict(self._resources)

    def __call__(self, *args, **kwargs) -> Expression:
        init_args, init_kwargs = self._init_args or ((), {})
        pool = _ActorPool(self._klass, init_args, init_kwargs, self._concurrency or 1, "__call__")
        pool.resources = dict(self._resources)
        label = self._klass.__name__
        u = _Udf(None, _unique(label), True, self._return_dtype, self._concurrency or 1, pool,
                 self._batch_size, label=label)
        return u(*args, **kwargs)


def udf(fn=None, *, return_dtype, num_cpus: float | None = None, num_gpus: float | None = None,
        memory_bytes: int | None = None, batch_size: int | None = None,
        concurrency: int | None = None, use_process: bool | None = None):
    """Daft's legacy batch UDF decorator, for a function or a class.

    A function gets one Series per Expression argument (other arguments as they are) and
    returns a list, Series or numpy array of the batch's length. A class is instantiated
    `concurrency` times when the query starts (arguments from .with_init_args) and its __call__
    handles batches the same way. batch_size caps the rows per call."""
    _check_batch_size(batch_size)
    dtype = engine_type(return_dtype)
    resources = {k: v for k, v in (("num_cpus", num_cpus), ("num_gpus", num_gpus),
                                   ("memory_bytes", memory_bytes)) if v is not None}
    for k, v in resources.items():
        if v < 0:
            raise ValueError(f"{k} must not be negative")
    if concurrency is not None and (not isinstance(concurrency, int) or concurrency < 1):
        raise ValueError(f"concurrency must be a positive int, got {concurrency!r}")

    def wrap(target):
        if inspect.isclass(target):
            return _LegacyClassUdf(target, dtype, concurrency, batch_size, resources)
        if concurrency is not None:
            raise ValueError(f"udf '{target.__name__}': concurrency is for class UDFs")
        _refuse_generator(target)
        label = target.__name__
        u = _Udf(target, _unique(label), True, dtype, batch_size=batch_size, label=label)
        u.resources = resources
        u.override_options = lambda batch_size=None, **_: _Udf(
            target, _unique(label), True, dtype, batch_size=batch_size or u.batch_size, label=label)
        return u

    return wrap(fn) if fn is not None else wrap
