"""``NamedTuple`` and ``Generic`` for the modules every ``loopspec check`` imports, without ``typing``.

Importing :mod:`typing` costs about 4 ms, a third of a bare interpreter's start-up, and the checker
imported it only to declare its result values and one generic list (``benchmarks/startup.py``;
docs/performance.md, "Start-up").  The type checker sees the real :mod:`typing` names (the
``TYPE_CHECKING`` branch); at run time the stand-ins below build the very same classes:

* :data:`NamedTuple`: a class statement listing annotated fields (with defaults) and methods
  becomes a :func:`collections.namedtuple` with those fields, defaults, methods, docstring, module
  and qualified name, as :class:`typing.NamedTuple` makes it (so it pickles, compares and
  ``_replace``\\ s alike; tests/data/test_lean_typing.py compares the two builds field by field).
* :data:`Generic`: ``Generic[T]`` as a base class contributes nothing at run time; subscripting a
  subclass (``Lane[int]``) returns the class itself, as annotations never need more.

Only modules on the check path use this; the rest of the package imports :mod:`typing` directly.
"""

from __future__ import annotations

import collections

# Spelled out rather than imported from typing (the point of this module); mypy treats any name
# TYPE_CHECKING as true.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Generic, NamedTuple
else:
    # The names typing.NamedTuple refuses in a class body, and those it does not copy over.
    _REFUSED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
                          "_field_defaults", "_make", "_replace", "_asdict", "_source"})
    _NOT_COPIED = frozenset({"__module__", "__name__", "__annotations__", "__qualname__"})

    class _NamedTupleMeta(type):
        def __new__(mcls, name, bases, namespace):
            if not bases:  # the NamedTuple base itself
                return super().__new__(mcls, name, bases, namespace)
            annotations = dict(namespace.get("__annotations__", {}))
            fields = tuple(annotations)
            defaults = [namespace[f] for f in fields if f in namespace]
            if defaults and any(f not in namespace for f in fields[len(fields) - len(defaults):]):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            made = collections.namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            made.__qualname__ = namespace.get("__qualname__", name)
            made.__annotations__ = made.__new__.__annotations__ = annotations
            for key, value in namespace.items():
                if key in _REFUSED:
                    raise AttributeError(f"{name}: cannot overwrite NamedTuple attribute {key}")
                if key not in _NOT_COPIED and key not in fields:
                    setattr(made, key, value)
            return made

    class NamedTuple(metaclass=_NamedTupleMeta):
        pass

    class Generic:
        __slots__ = ()

        def __class_getitem__(cls, parameters):
            return cls

__all__ = ["Generic", "NamedTuple"]
