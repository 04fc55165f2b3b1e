"""Column types: ``DataType.int64()``, ``DataType.list(DataType.string())``...

A DataType is the engine's name for the type ("int64", "list<string>") with Daft's
constructors and predicates: it is a str, so it compares equal to another DataType or to that
name, and code reading schemas as strings keeps working. Wherever the API takes a type (cast, return_dtype, from_pydict(schema=),
read_csv(schema=)) it takes a DataType, a SQL type name ("bigint", "decimal(15, 2)") or a
Python type (int, float, str, bool, bytes).
"""

from __future__ import annotations

import collections.abc
import datetime as _datetime
import decimal as _decimal
import typing

from . import _flotilla as _ext

__all__ = ["DataType", "Field", "TimeUnit"]

_UNITS = {"s": "s", "ms": "ms", "us": "us", "ns": "ns", "seconds": "s", "milliseconds": "ms",
          "microseconds": "us", "nanoseconds": "ns"}

# Types Daft has and the engine does not: asking for one says so instead of guessing.
_MISSING = ("python", "tensor", "fixed_shape_tensor", "image", "embedding", "map", "time",
            "interval", "file", "sparse_tensor")

_PRIMITIVES = ("null", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float32", "float64", "string", "binary", "date32")

# The names Daft prints for the primitive types.
_DAFT_NAMES = {"null": "Null", "bool": "Boolean", "int8": "Int8", "int16": "Int16",
               "int32": "Int32", "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16",
               "uint32": "UInt32", "uint64": "UInt64", "float32": "Float32", "float64": "Float64",
               "string": "Utf8", "binary": "Binary", "date32": "Date"}


class TimeUnit:
    """A timestamp or duration's unit: TimeUnit.us() or the strings "s", "ms", "us", "ns"."""

    def __init__(self, unit: str):
        if unit not in _UNITS:
            raise ValueError(f"unknown time unit {unit!r}; use one of 's', 'ms', 'us', 'ns'")
        self.unit = _UNITS[unit]

    @staticmethod
    def s(): return TimeUnit("s")
    @staticmethod
    def ms(): return TimeUnit("ms")
    @staticmethod
    def us(): return TimeUnit("us")
    @staticmethod
    def ns(): return TimeUnit("ns")

    def __str__(self) -> str:
        return self.unit


def _unit(unit) -> str:
    return unit.unit if isinstance(unit, TimeUnit) else TimeUnit(str(unit)).unit


class DataType(str):
    """A column type. Build with the static constructors; as a str it is the engine's name."""

    def __new__(cls, kind: str, params: tuple = ()):
        self = super().__new__(cls, _render(kind, params))
        self._kind = kind
        self._params = params
        return self

    def __getnewargs__(self):
        return (self._kind, self._params)

    # --- constructors ---------------------------------------------------------------------------
    @staticmethod
    def null(): return DataType("null")
    @staticmethod
    def bool(): return DataType("bool")
    @staticmethod
    def int8(): return DataType("int8")
    @staticmethod
    def int16(): return DataType("int16")
    @staticmethod
    def int32(): return DataType("int32")
    @staticmethod
    def int64(): return DataType("int64")
    @staticmethod
    def uint8(): return DataType("uint8")
    @staticmethod
    def uint16(): return DataType("uint16")
    @staticmethod
    def uint32(): return DataType("uint32")
    @staticmethod
    def uint64(): return DataType("uint64")
    @staticmethod
    def float32(): return DataType("float32")
    @staticmethod
    def float64(): return DataType("float64")
    @staticmethod
    def string(): return DataType("string")
    @staticmethod
    def binary(): return DataType("binary")
    @staticmethod
    def date(): return DataType("date32")

    @staticmethod
    def timestamp(timeunit="us", timezone: str | None = None):
        return DataType("timestamp", (_unit(timeunit), timezone or ""))

    @staticmethod
    def duration(timeunit="us"):
        return DataType("duration", (_unit(timeunit),))

    @staticmethod
    def decimal128(precision: int, scale: int):
        if not (1 <= int(precision) <= 38 and 0 <= int(scale) <= int(precision)):
            raise ValueError(f"decimal128 needs 1 <= precision <= 38 and 0 <= scale <= precision, "
                             f"got ({precision}, {scale})")
        return DataType("decimal128", (int(precision), int(scale)))

    @staticmethod
    def list(dtype):
        return DataType("list", (to_datatype(dtype),))

    @staticmethod
    def fixed_size_list(dtype, size: int):
        if int(size) < 1:
            raise ValueError(f"fixed_size_list needs a positive size, got {size}")
        return DataType("fixed_size_list", (to_datatype(dtype), int(size)))

    @staticmethod
    def struct(fields: dict):
        if not isinstance(fields, dict) or not fields:
            raise TypeError("DataType.struct takes a non-empty dict {name: DataType}")
        return DataType("struct", tuple((str(n), to_datatype(t)) for n, t in fields.items()))

    @classmethod
    def _missing(cls, name):
        def refuse(*args, **kwargs):
            raise NotImplementedError(
                f"DataType.{name}(): Flotilla has no {name} type; store such values as binary "
                "(serialized) or as lists of numbers")
        return refuse

    @staticmethod
    def from_sql(name: str) -> "DataType":
        """The type a SQL type name stands for ("bigint", "decimal(15,2)", "varchar[]")."""
        return _parse(_ext.parse_sql_type(name))

    # --- inspection -----------------------------------------------------------------------------
    def is_integer(self) -> bool: return self._kind in ("int8", "int16", "int32", "int64", "uint8",
                                                         "uint16", "uint32", "uint64")
    def is_numeric(self) -> bool:
        return self.is_integer() or self._kind in ("float32", "float64", "decimal128")
    def is_floating(self) -> bool: return self._kind in ("float32", "float64")
    def is_string(self) -> bool: return self._kind == "string"
    def is_boolean(self) -> bool: return self._kind == "bool"
    def is_list(self) -> bool: return self._kind == "list"
    def is_fixed_size_list(self) -> bool: return self._kind == "fixed_size_list"
    def is_struct(self) -> bool: return self._kind == "struct"
    def is_temporal(self) -> bool: return self._kind in ("date32", "timestamp", "duration")
    def is_null(self) -> bool: return self._kind == "null"

    @property
    def dtype(self) -> "DataType":
        """A list's element type."""
        if self._kind not in ("list", "fixed_size_list"):
            raise TypeError(f"{self!r} has no element type")
        return self._params[0]

    @property
    def size(self) -> int:
        if self._kind != "fixed_size_list":
            raise TypeError(f"{self!r} has no fixed size")
        return self._params[1]

    @property
    def fields(self) -> dict:
        if self._kind != "struct":
            raise TypeError(f"{self!r} is not a struct")
        return dict(self._params)

    @property
    def precision(self) -> int: return self._params[0]

    @property
    def scale(self) -> int: return self._params[1]

    @property
    def timeunit(self) -> str: return self._params[0]

    @property
    def timezone(self) -> str | None: return self._params[1] or None

    # --- names ----------------------------------------------------------------------------------
    def __repr__(self) -> str:
        k, p = self._kind, self._params
        if k in _DAFT_NAMES:
            return _DAFT_NAMES[k]
        if k == "timestamp":
            return f"Timestamp[{p[0]}{', ' + p[1] if p[1] else ''}]"
        if k == "duration":
            return f"Duration[{p[0]}]"
        if k == "decimal128":
            return f"Decimal128(precision={p[0]}, scale={p[1]})"
        if k == "list":
            return f"List[{p[0]!r}]"
        if k == "fixed_size_list":
            return f"FixedSizeList[{p[0]!r}; {p[1]}]"
        if k == "struct":
            return "Struct[" + ", ".join(f"{n}: {t!r}" for n, t in p) + "]"
        return k

    def _spec(self):
        """The type as the engine reads it: a nested tuple."""
        k, p = self._kind, self._params
        if k in ("list",):
            return (k, p[0]._spec())
        if k == "fixed_size_list":
            return (k, p[0]._spec(), p[1])
        if k == "struct":
            return (k, [(n, t._spec()) for n, t in p])
        if k in _PRIMITIVES or k in ("timestamp", "duration", "decimal128"):
            return (k, *p)
        raise ValueError(f"the engine cannot build a column of type {self}")


def _render(k: str, p: tuple) -> str:
    """The engine's name for a type (as its schemas print it)."""
    if k in _PRIMITIVES:
        return k
    if k == "timestamp":
        return f"timestamp[{p[0]}, tz={p[1]}]" if p[1] else f"timestamp[{p[0]}]"
    if k == "duration":
        return f"duration[{p[0]}]"
    if k == "decimal128":
        return f"decimal128({p[0]}, {p[1]})"
    if k == "list":
        return f"list<{p[0]}>"
    if k == "fixed_size_list":
        return f"fixed_size_list<{p[0]}>[{p[1]}]"
    if k == "struct":
        return "struct<" + ", ".join(f"{n}: {t}" for n, t in p) + ">"
    return k  # a type only the engine knows (time64, large_binary...): its own name


for _name in _MISSING:
    setattr(DataType, _name, DataType._missing(_name))

_PY_TYPES = {int: "int64", float: "float64", str: "string", bool: "bool", bytes: "binary",
             _datetime.date: "date32", type(None): "null"}


def to_datatype(dtype) -> DataType:
    """A DataType from a DataType, Python type, or type name (SQL or engine spelling)."""
    if isinstance(dtype, DataType):
        return dtype
    if isinstance(dtype, type):
        if dtype is _datetime.datetime:
            return DataType.timestamp("us")
        if dtype is _decimal.Decimal:
            return DataType.decimal128(38, 18)
        if dtype in _PY_TYPES:
            return DataType(_PY_TYPES[dtype])
        raise TypeError(f"no column type for Python type {dtype.__name__}")
    if isinstance(dtype, str):
        return _parse_name(dtype)
    origin = typing.get_origin(dtype)
    if origin in (list, tuple, collections.abc.Sequence):
        args = typing.get_args(dtype)
        if args:
            return DataType.list(to_datatype(args[0]))
    if origin is typing.Union:
        args = [a for a in typing.get_args(dtype) if a is not type(None)]
        if len(args) == 1:
            return to_datatype(args[0])
    raise TypeError(f"expected a DataType, a type name or a Python type, got {dtype!r}")


def _parse_name(name: str) -> DataType:
    """A DataType from a name: the engine's own spelling first, then SQL's."""
    try:
        return _parse(name)
    except ValueError:
        pass
    return _parse(_ext.parse_sql_type(_SQL_ALIASES.get(name, name)))


# Names where Daft and SQL disagree: Daft's meaning wins ("int8" is 8 bits, as Daft).
_SQL_ALIASES = {"utf8": "varchar", "float": "double", "int": "bigint"}


def _parse(text: str) -> DataType:
    """The engine's type name (as schemas print it) as a DataType; ValueError if it is not one."""
    out, rest = _parse_at(text.strip())
    if rest.strip():
        raise ValueError(f"not a type name: {text!r}")
    return out


def _parse_at(s: str):
    for prim in sorted(_PRIMITIVES, key=len, reverse=True):
        if s.startswith(prim) and not s[len(prim):len(prim) + 1].isalnum():
            return DataType(prim), s[len(prim):]
    if s.startswith("large_string"):
        return DataType("string"), s[len("large_string"):]
    if s.startswith("timestamp["):
        inner, rest = s[len("timestamp["):].split("]", 1)
        unit, _, tz = inner.partition(",")
        tz = tz.strip()
        return DataType.timestamp(unit.strip(), tz[3:] if tz.startswith("tz=") else None), rest
    if s.startswith("duration["):
        inner, rest = s[len("duration["):].split("]", 1)
        return DataType.duration(inner.strip()), rest
    if s.startswith("decimal128("):
        inner, rest = s[len("decimal128("):].split(")", 1)
        p, sc = inner.split(",")
        return DataType.decimal128(int(p), int(sc)), rest
    if s.startswith("list<"):
        child, rest = _parse_at(s[len("list<"):])
        return DataType.list(child), _expect(rest, ">")
    if s.startswith("fixed_size_list<"):
        child, rest = _parse_at(s[len("fixed_size_list<"):])
        rest = _expect(_expect(rest, ">"), "[")
        n, rest = rest.split("]", 1)
        return DataType.fixed_size_list(child, int(n)), rest
    if s.startswith("struct<"):
        rest = s[len("struct<"):]
        fields = {}
        while True:
            name, rest = rest.split(":", 1)
            child, rest = _parse_at(rest.strip())
            rest = rest.strip()
            if rest.startswith("not null"):
                rest = rest[len("not null"):].strip()
            fields[name.strip()] = child
            if rest.startswith(","):
                rest = rest[1:].strip()
                continue
            return DataType.struct(fields), _expect(rest, ">")
    for other in ("time64[", "fixed_size_binary[", "large_binary", "dictionary<"):
        if s.startswith(other):
            return DataType(s), ""  # kept by name: readable, comparable, not constructible
    raise ValueError(f"not a type name: {s!r}")


def _expect(rest: str, token: str) -> str:
    rest = rest.strip()
    if not rest.startswith(token):
        raise ValueError(f"expected {token!r} in a type name at {rest!r}")
    return rest[len(token):]


def engine_type(dtype):
    """What the engine's bindings take for a type: a spec tuple."""
    return to_datatype(dtype)._spec()


class Field(tuple):
    """One column of a Schema: `.name` and `.dtype`; unpacks as (name, dtype)."""

    def __new__(cls, name: str, dtype: DataType):
        return super().__new__(cls, (name, dtype))

    @property
    def name(self) -> str:
        return self[0]

    @property
    def dtype(self) -> DataType:
        return self[1]

    def __repr__(self) -> str:
        return f"Field(name={self[0]!r}, dtype={self[1]!r})"
