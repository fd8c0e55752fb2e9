"""Which loopspec judged, against which spec: what the reports of ``loopspec check`` cite.

Its own module so the plain-text report (:mod:`loopspec.check.report_text`) can name it without
importing the JSON and JUnit reports, and they can use it without importing each other in a cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:  # the spec is read only when a report needs it (start-up time)
    from loopspec.rules.catalogue import Rule


@attrs.frozen
class ToolInfo:
    """Which loopspec judged, against which spec: the rules a report cites are looked up here."""

    version: str
    spec_digest: str
    rules: tuple[Rule, ...] = ()
    installed_spec: str = ""
    """The folder of the spec pages an installed package ships ("" in a source checkout)."""

    @classmethod
    def current(cls) -> ToolInfo:
        from loopspec.rules.catalogue import SpecFormatError, load_spec
        from loopspec.rules.shipped import SpecMissing, installed_spec_dir, package_version, spec_digest

        shipped = installed_spec_dir()
        try:
            return cls(package_version(), spec_digest(), load_spec().rules, str(shipped or ""))
        except (SpecMissing, SpecFormatError) as err:  # a report is still worth having without the spec
            return cls(package_version(), f"unavailable ({err})")

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def where_stated(self, rule: Rule) -> str:
        """The rule's section as a reader can open it: ``spec/NAME.md#anchor`` in a source checkout
        (a path in the repository), the shipped page's full path in an installed package, where no
        ``spec/`` folder is at hand."""
        if not self.installed_spec:
            return rule.section
        return f"{self.installed_spec}/{rule.section.removeprefix('spec/')}"

    def as_json(self) -> dict[str, str]:
        return {"name": "loopspec", "version": self.version, "spec_digest": self.spec_digest}
