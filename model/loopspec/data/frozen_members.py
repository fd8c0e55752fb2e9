"""How code that must not import the frozen JSON classes recognises a frozen JSON object.

:mod:`loopspec.data.message_shape` tests a message's shape whichever way a log was read, and a
plain check must not load :mod:`loopspec.data.json_value` (it brings attrs; decisions.md P2).  A
module of its own, imported by both, so neither imports the other at load time.
"""

from __future__ import annotations


class FrozenMembers:
    """A frozen JSON object as the shape tests see it: its members, in written order.

    :class:`loopspec.data.json_value.JsonObject` is the one subclass.  The shape tests recognise a
    frozen object by this plain base class; they used to import the class inside each call, and
    that import cost 0.7 us a call while the model's replay reads every splice of its log on every
    explored transition.
    """

    __slots__ = ()
    items_: tuple[tuple[str, object], ...]
