"""What frozen config dataclasses need: a read-only ``dict``, and "is this field at its default?"."""

from __future__ import annotations

from dataclasses import MISSING, Field
from typing import Any, NoReturn, TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")


class FrozenDict(dict[_K, _V]):
    """A read-only ``dict``: keeps a frozen config frozen while ``==``, ``json.dumps`` and ``asdict`` work."""

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(f"{type(self).__name__} is read-only; use ServerConfig.replace(...)")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (dict(self),))

    def __copy__(self) -> FrozenDict[_K, _V]:
        return self

    def __deepcopy__(self, memo: Any) -> FrozenDict[_K, _V]:
        return self


def is_default(f: Field[Any], value: Any) -> bool:
    """Whether ``value`` is field ``f``'s default (``0`` is not the default ``False``, nor vice versa)."""
    if f.default_factory is not MISSING:
        return bool(value == f.default_factory())
    if f.default is None or isinstance(f.default, bool):
        return value is f.default
    return not isinstance(value, bool) and bool(value == f.default)
