"""The functions of one kind of value, as ``col("s").str.lower()``, ``col("d").dt.year()``,
``col("xs").list.count()``, ``col("s").struct.get("f")``, ``col("x").float.is_nan()``.

Semantics follow Daft: positions count from 0, ``day_of_week`` is 0 for Monday, patterns are
literal unless ``regex=True``.
"""

from __future__ import annotations

import re

from .expressions import Expression, _call, _to_expr, coalesce


class _Namespace:
    __slots__ = ("_x",)

    def __init__(self, x: Expression):
        self._x = x


class StringNamespace(_Namespace):
    """String functions: ``col("s").str.lower()``."""

    def lower(self): return _call("lower", self._x)
    def upper(self): return _call("upper", self._x)
    def length(self): return _call("length", self._x)
    def length_bytes(self): return _call("octet_length", self._x)
    def strip(self): return _call("trim", self._x)
    def lstrip(self): return _call("ltrim", self._x)
    def rstrip(self): return _call("rtrim", self._x)
    def reverse(self): return _call("reverse", self._x)
    def contains(self, pattern): return _call("contains", self._x, pattern)
    def startswith(self, prefix): return _call("starts_with", self._x, prefix)
    def endswith(self, suffix): return _call("ends_with", self._x, suffix)
    def concat(self, *others): return _call("concat", self._x, *others)

    def substr(self, start: int, length: int | None = None):
        # 0-based start, as Python slicing
        if length is None:
            return _call("substr", self._x, _to_expr(start) + 1)
        return _call("substr", self._x, _to_expr(start) + 1, length)

    def left(self, n): return _call("left", self._x, n)
    def right(self, n): return _call("right", self._x, n)

    def replace(self, pattern, replacement, regex: bool = False):
        """Every match of `pattern` replaced; a regular expression when regex=True."""
        if regex:
            return _call("regexp_replace", self._x, pattern, replacement, "g")
        return _call("replace", self._x, pattern, replacement)

    def split(self, pattern, regex: bool = False):
        """A list of the parts between matches of `pattern` (a regular expression if regex=True)."""
        return _call("regexp_split" if regex else "split", self._x, pattern)

    def html_to_text(self):
        """The readable text of HTML (strings or bytes): one line per block element."""
        return _call("html_to_text", self._x)

    # Quality signals of web text (flotilla.text.quality_filter combines them).
    def word_count(self): return _call("text_word_count", self._x)
    def mean_word_length(self): return _call("text_mean_word_length", self._x)
    def alpha_word_ratio(self): return _call("text_alpha_word_ratio", self._x)
    def symbol_ratio(self): return _call("text_symbol_ratio", self._x)
    def duplicate_line_fraction(self): return _call("text_duplicate_line_fraction", self._x)

    def like(self, pattern): return _call("like", self._x, pattern)
    def ilike(self, pattern): return _call("ilike", self._x, pattern)
    def match(self, pattern): return _call("regexp_matches", self._x, pattern)
    def extract(self, pattern, index: int = 0): return _call("regexp_extract", self._x, pattern, index)

    def extract_all(self, pattern, index: int = 0):
        return _call("regexp_extract_all", self._x, pattern, index)

    def regexp_replace(self, pattern, replacement):
        return _call("regexp_replace", self._x, pattern, replacement, "g")

    def count_matches(self, patterns, whole_words: bool = False, case_sensitive: bool = True):
        """How many times any of `patterns` (a string or a list of them, matched literally)
        occurs in each string; whole_words=True counts only matches between word boundaries."""
        if isinstance(patterns, str):
            patterns = [patterns]
        if not isinstance(patterns, (list, tuple)) or not patterns or \
                not all(isinstance(p, str) and p for p in patterns):
            raise TypeError("count_matches takes a non-empty string or a list of non-empty strings")
        # Longest first: at one position the longer pattern wins, as a leftmost-longest match.
        alternatives = "|".join(re.escape(p) for p in sorted(patterns, key=len, reverse=True))
        regex = f"(?:{alternatives})"
        if whole_words:
            regex = rf"\b{regex}\b"
        if not case_sensitive:
            regex = "(?i)" + regex
        matches = _call("regexp_extract_all", self._x, regex, 0)
        return _call("list_length", matches, name=self._x._name).cast("uint64")

    def capitalize(self):
        """The first character upper case, the rest lower case."""
        first = _call("upper", _call("left", self._x, 1))
        return _call("concat", first, _call("lower", _call("substr", self._x, 2)), name=self._x._name)

    def lpad(self, length, pad=" "): return _call("lpad", self._x, length, pad)
    def rpad(self, length, pad=" "): return _call("rpad", self._x, length, pad)
    def repeat(self, n): return _call("repeat", self._x, n)
    def find(self, substring): return (_call("strpos", self._x, substring) - 1)

    def normalize(self, **options):
        return _call("normalize_text", self._x) if not options else _call("normalize", self._x)

    def to_date(self, fmt: str): return _call("to_date", self._x, fmt)
    def to_datetime(self, fmt: str, timezone: str | None = None):
        return _call("strptime", self._x, fmt)


# Units date_trunc knows, by the names and plurals Daft's intervals use.
_TRUNC_UNITS = {
    "microsecond": "microsecond", "microseconds": "microsecond",
    "millisecond": "millisecond", "milliseconds": "millisecond",
    "second": "second", "seconds": "second", "minute": "minute", "minutes": "minute",
    "hour": "hour", "hours": "hour", "day": "day", "days": "day", "week": "week", "weeks": "week",
    "month": "month", "months": "month", "quarter": "quarter", "quarters": "quarter",
    "year": "year", "years": "year",
}


class ImageNamespace(_Namespace):
    """Images: ``col("bytes").image.decode()``, then ``.image.resize(w, h)``,
    ``.image.to_tensor(h, w)``, ``.image.encode("png")``. An image is a struct of width, height,
    channels and the pixels (8-bit, row-major, channels interleaved)."""

    def decode(self, mode: str | None = None, on_error: str = "raise"):
        """JPEG, PNG or WebP bytes to an image; mode "L", "LA", "RGB" or "RGBA" converts (None:
        as stored); on_error="null" gives null for bytes that are not an image."""
        if on_error not in ("raise", "null"):
            raise ValueError(f"on_error must be 'raise' or 'null', got {on_error!r}")
        return _call("image_decode", self._x, mode or "", on_error)

    def encode(self, image_format: str = "png", quality: int = 90):
        return _call("image_encode", self._x, image_format.lower(), quality)

    def resize(self, width: int, height: int):
        return _call("image_resize", self._x, width, height)

    def to_tensor(self, height: int, width: int, channels: int = 3):
        """The pixels as fixed_size_list<uint8>[height * width * channels] (a 2-D numpy array
        of a batch); every image must be height x width (resize first)."""
        return _call("image_to_tensor", self._x, height, width, channels)


def _read_urls(urls, max_connections, null_on_error):
    from ._flotilla import read_urls
    return read_urls(urls.to_pylist(), max_connections, null_on_error)


class UrlNamespace(_Namespace):
    """URLs and paths: ``col("url").url.download()``."""

    def download(self, max_connections: int = 32, on_error: str = "raise"):
        """Each URL's content as bytes: local paths, file:// and http(s):// URLs, at most
        max_connections at a time per batch; on_error="null" gives null where a read fails."""
        if on_error not in ("raise", "null"):
            raise ValueError(f"on_error must be 'raise' or 'null', got {on_error!r}")
        from .udf import func
        download = func(_read_urls, return_dtype="binary", batch=True, name="url_download")
        return download(self._x, max_connections, on_error == "null").alias(self._x._name)


class DatetimeNamespace(_Namespace):
    """Date and time fields and arithmetic: ``col("d").dt.year()``."""

    def year(self): return _call("year", self._x)
    def month(self): return _call("month", self._x)
    def day(self): return _call("day", self._x)
    def day_of_month(self): return _call("day", self._x)
    def hour(self): return _call("hour", self._x)
    def minute(self): return _call("minute", self._x)
    def second(self): return _call("second", self._x)
    def millisecond(self): return _call("millisecond", self._x)
    def microsecond(self): return _call("microsecond", self._x)

    def day_of_week(self):
        """0 for Monday .. 6 for Sunday."""
        return _call("day_of_week", self._x)

    def day_of_year(self): return _call("day_of_year", self._x)
    def quarter(self): return _call("quarter", self._x)
    def week(self): return _call("week", self._x)

    def week_of_year(self):
        """The ISO 8601 week number (1..53)."""
        return _call("week", self._x)

    def date(self): return self._x.cast("date")

    def truncate(self, interval: str, relative_to=None):
        """Each value rounded down to the start of its `interval`: "1 day", "1 week", "month"."""
        if relative_to is not None:
            raise NotImplementedError("truncate(relative_to=...) is not supported yet")
        text = str(interval).strip().lower()
        count, _, unit = text.partition(" ")
        if not unit:
            count, unit = "1", count
        if unit not in _TRUNC_UNITS or not count.isdigit():
            raise ValueError(f"truncate takes an interval such as '1 day' or '1 hour', got {interval!r}")
        if int(count) != 1:
            raise NotImplementedError(f"truncate to {interval!r}: only intervals of 1 unit are "
                                      "supported yet")
        return _call("date_trunc", _TRUNC_UNITS[unit], self._x, name=self._x._name)

    def strftime(self, fmt: str | None = None):
        return _call("strftime", self._x, fmt or "%Y-%m-%d")

    def add(self, count, unit: str): return _call("date_add", self._x, count, unit)
    def sub(self, count, unit: str): return _call("date_sub", self._x, count, unit)
    def to_unix_epoch(self, timeunit: str = "s"):
        fn = {"s": "epoch", "ms": "epoch_ms", "us": "epoch_us"}.get(str(timeunit))
        if fn is None:
            raise ValueError(f"to_unix_epoch takes 's', 'ms' or 'us', got {timeunit!r}")
        return _call(fn, self._x)


class ListNamespace(_Namespace):
    """List functions: ``col("xs").list.length()``."""

    def length(self): return _call("list_length", self._x)
    def lengths(self): return _call("list_length", self._x)

    def count(self, mode: str = "valid"):
        """Elements per list: "valid" (non-null, the default), "null" or "all"."""
        if mode not in ("valid", "null", "all"):
            raise ValueError(f"list.count mode is 'valid', 'null' or 'all', got {mode!r}")
        length = _call("list_length", self._x)
        valid = _call("list_count", self._x)
        counted = {"all": length, "valid": valid, "null": length - valid}[mode]
        return counted.cast("uint64")

    def get(self, index: int, default=None):
        # 0-based, negative from the end, as Python
        got = _call("list_get", self._x, index)
        return got if default is None else coalesce(got, default)

    def slice(self, start: int, end: int | None = None):
        return _call("list_slice", self._x, start) if end is None else _call("list_slice", self._x, start, end)

    def sum(self): return _call("list_sum", self._x)
    def mean(self): return _call("list_mean", self._x)
    def min(self): return _call("list_min", self._x)
    def max(self): return _call("list_max", self._x)
    def sort(self, desc: bool = False, nulls_first=None): return _call("list_sort", self._x, desc)
    def distinct(self): return _call("list_distinct", self._x)
    unique = distinct
    def contains(self, value): return _call("list_contains", self._x, value)
    def join(self, separator: str): return _call("list_join", self._x, separator)

    def value_counts(self):
        raise NotImplementedError("list.value_counts() needs a map type, which Flotilla does not "
                                  "have; explode the list and group by its values instead")


class StructNamespace(_Namespace):
    """Struct fields: ``col("s").struct.get("f")``."""

    def get(self, name: str):
        return _call("struct_get", self._x, name, name=name)


class FloatNamespace(_Namespace):
    """Float predicates: ``col("x").float.is_nan()``."""

    def is_nan(self): return _call("isnan", self._x)
    def is_inf(self): return _call("isinf", self._x)
    def not_nan(self): return ~_call("isnan", self._x)
    def fill_nan(self, value):
        return _call("isnan", self._x).if_else(value, self._x).alias(self._x._name)
