"""Deliberately wrong implementations: proof that the conformance oracle catches real bugs.

Each mutant is the reference model with exactly one behaviour changed, served over the adapter
protocol (``spec/adapter-protocol.md``): a bug a porting implementer could make, at least one per
rule the protocol can show broken, over every area of the spec (``catalogue.py`` lists them; the
modules ``*_bugs.py`` hold the bugs and their hallmarks).  Launch one as an adapter by file path::

    python tests/vectors/mutants/run.py NAME            # e.g. clear-next-turn-first
    loopspec vectors run SUITE -- python tests/vectors/mutants/run.py NAME
    loopspec drive -- python tests/vectors/mutants/run.py NAME

``python tests/vectors/mutants/run.py --list`` prints every name with the rule its bug breaks.  In tests,
:func:`mutants.catalogue.handler` gives the same mutant as an in-process handler.
"""
