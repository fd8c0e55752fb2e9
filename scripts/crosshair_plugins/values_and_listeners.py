"""CrossHair plugin: symbolic messages, single events and pre-step listeners (scripts/symbolic).

CrossHair ``exec``s a plugin file; ``scripts/crosshair.sh`` puts ``scripts/`` on ``PYTHONPATH`` so
that the creators live in ordinary modules.
"""

from crosshair import register_type

from loopspec.data.messages import UserMessage
from loopspec.log.events import SessionEvent
from loopspec.loop.pre_step import Throw, Veto, Wrap
from symbolic import crosshair_internals, listeners, values

crosshair_internals.never_short_circuit_hash()
register_type(UserMessage, values.message)
register_type(SessionEvent, values.event)
register_type(Wrap, listeners.wrap)
register_type(Veto, listeners.veto)
register_type(Throw, listeners.throw)
