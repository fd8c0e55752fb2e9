"""The spec's rule catalogue as data: rule IDs, sentences, areas and checkability.

Reads the shipped ``spec/*.md`` rule files (:mod:`.shipped` finds them, in a wheel or a checkout,
and digests them); every tool that names a rule (the checker's reports, the vectors' coverage,
the generated docs) reads it through here.  Imports nothing of loopspec outside this package.
"""
