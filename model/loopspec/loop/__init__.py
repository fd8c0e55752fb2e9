"""The turn/step lifecycle (spec areas INPUT, TURN, STEP, DECIDE, RESULT, CHAIN, CANCEL, REPAIR, WORK).

The transition table, its named guards and effects, the agent's step function, the pre-step
waterfall (listener chain), crash repair and consumed-work accounting.  Imports
:mod:`loopspec.inbox` and below.
"""
