"""``loopspec check``: conformance checking of real session logs (and live streams) against the spec.

A log is accepted when some run of the real system could have written it: the checker folds the
inbox exactly as :mod:`loopspec.inbox.fold` does and tracks the turn/step lifecycle with the state
machine of the rule catalogue, citing a rule ID for every violation.  Entry points:
:func:`check_file` for one log, :func:`check_files` for many (optionally in parallel).
"""

from loopspec.check.parallel import check_files
from loopspec.check.runner import check_file
from loopspec.check.verdict import CheckOptions, LogResult, Violation

__all__ = ["CheckOptions", "LogResult", "Violation", "check_file", "check_files"]
