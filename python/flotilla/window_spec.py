"""The window a window function runs over, and one call of such a function, as the DataFrame
plans them.

Window (window.py) adds to _WindowSpec the methods that take column names. Those build
Expressions, so window.py imports expressions.py; expressions.py, for ``expr.over(window)``
and the window functions, imports only this module.
"""

from __future__ import annotations

import itertools

# Frame bound kinds, as the engine numbers them.
_UNBOUNDED_PRECEDING, _PRECEDING, _CURRENT_ROW, _FOLLOWING, _UNBOUNDED_FOLLOWING = range(5)


class _Bound:
    __slots__ = ("kind",)

    def __init__(self, kind):
        self.kind = kind


class _WindowSpec:
    """PARTITION BY and ORDER BY keys (Expressions), the order's directions, and the frame."""

    unbounded_preceding = _Bound(_UNBOUNDED_PRECEDING)
    unbounded_following = _Bound(_UNBOUNDED_FOLLOWING)
    current_row = 0

    def __init__(self):
        self._partition: list = []
        self._order: list = []
        self._desc: list = []
        self._nulls_first: list = []
        self._frame = None

    def _copy(self):
        w = type(self)()
        w._partition, w._order = list(self._partition), list(self._order)
        w._desc, w._nulls_first, w._frame = list(self._desc), list(self._nulls_first), self._frame
        return w

    def _between(self, rows: bool, start, end):
        w = self._copy()
        w._frame = (rows, *_bound(start), *_bound(end))
        return w

    def rows_between(self, start, end):
        """Rows relative to the current one: negative = preceding, 0 = current, positive =
        following, or Window.unbounded_preceding / unbounded_following."""
        return self._between(True, start, end)

    def range_between(self, start, end):
        return self._between(False, start, end)

    def _key(self) -> str:
        return repr(([repr(e._e) for e in self._partition], [repr(e._e) for e in self._order],
                     self._desc, self._nulls_first))


def _bound(b):
    if isinstance(b, _Bound):
        return b.kind, 0
    if not isinstance(b, int):
        raise TypeError("a frame bound is an int or Window.unbounded_preceding/following")
    if b == 0:
        return _CURRENT_ROW, 0
    return (_PRECEDING, -b) if b < 0 else (_FOLLOWING, b)


_ids = itertools.count()


class _WindowCall:
    """One window function call; its value is the column `output` once planned."""

    def __init__(self, function: str, arguments: list, window, alias):
        self.function = function
        self.arguments = arguments
        self.window = window
        self.alias = alias
        self.output = f"__window_{next(_ids)}"

    def with_window(self, window) -> "_WindowCall":
        return _WindowCall(self.function, self.arguments, window, self.alias)

    def spec(self):
        """(function, [argument exprs], output, frame) for the engine."""
        return (self.function, [a._e for a in self.arguments], self.output,
                self.window._frame if self.window is not None else None)
