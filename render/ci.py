"""The formats CI reads: SARIF 2.1.0, JUnit XML and GitHub workflow annotations, of an impact
report (:class:`queries.impact.ImpactReport`) or a check report (:class:`queries.validation.CheckReport`).

One result per suspect **statement** of an impact report (suspect sections, documents and records
are summed up in the run's properties: each contains or declares a suspect statement) and one per
**finding** of a check report.

- **SARIF** (OASIS SARIF 2.1.0, the shape GitHub code scanning loads): a ``result`` has its
  ``ruleId`` (a rule of ``tool.driver.rules`` with its help), ``level`` (a suspect conclusion and a
  check error are ``error``, another suspect statement and a check warning ``warning``, a skipped
  file ``note``), one ``physicalLocation`` (``artifactLocation.uri`` relative to the uriBaseId
  ``%SRCROOT%``, declared in ``originalUriBaseIds``, and ``region.startLine``: 1 for a finding about
  a whole file) and, for a suspect, the explanation path as a ``codeFlow`` (a thread-flow location
  per node of the path from the suspect to the changed file or quotation that has a file and line,
  each message naming it and the nodes without one after it, e.g. a named reference or the changed
  source file) and the statements on it as ``relatedLocations``. A file outside ``base`` keeps its
  absolute ``file://`` URI. Code scanning refuses results without a file, so a finding about a
  whole set (or a suspect whose member has no path) is listed in the run's ``properties.unlocated``.
- **JUnit XML**: one ``testsuite`` per set; a ``testcase`` per suspect statement (a ``failure``),
  per statement a review cleared and per quotation checked (a ``failure`` unless intact); for a
  check, per finding (errors a ``failure``, skipped files ``skipped``, warnings pass with the
  message as ``system-out``).
- **GitHub annotations**: ``::error file=F,line=L,title=T::message`` (``warning`` for suspect
  statements that are no conclusion and for check warnings, ``notice`` for skipped files), escaped as
  the workflow-commands documentation says: ``%`` ``\\r`` ``\\n`` in the message, and also ``:``
  ``,`` in property values.

Paths are written relative to ``base`` (the analysed knowledge base's checkout: the folder the CI
job runs in), POSIX-style.
"""

from __future__ import annotations

import json
from pathlib import Path
from collections.abc import Iterable
from xml.etree import ElementTree as ET

from queries.impact import ImpactReport, RepositoryImpact, Suspect
from queries.validation import CODES, CheckReport, Finding

__all__ = ["SRCROOT", "IMPACT_RULES", "impact_sarif", "check_sarif", "impact_junit", "check_junit",
           "impact_annotations", "check_annotations", "annotation"]

SRCROOT = "%SRCROOT%"
"""The uriBaseId every relative ``artifactLocation`` names (the knowledge base's checkout)."""

_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

IMPACT_RULES: dict[str, tuple[str, str, str]] = {
    "suspect-conclusion": (
        "error", "A conclusion rests on evidence the source change touched",
        "A statement of a synthesis member, or a row of a `Limitations` table, rests (by citation, "
        "quotation or containment) on a cited source file that changed or a quotation that no longer "
        "occurs intact. Re-read the evidence on the explanation path; when the statement still holds, "
        "record it with `citegraph review NODE --at REV`, and later runs at or after REV stop flagging "
        "it until its evidence changes again."),
    "suspect-statement": (
        "warning", "A statement rests on evidence the source change touched",
        "A statement rests (by citation, quotation or containment) on a cited source file that "
        "changed or a quotation that no longer occurs intact. Re-read the evidence on the explanation "
        "path; when it still holds, record it with `citegraph review NODE --at REV`."),
}
"""Impact's rules: id → (level, short description, help)."""

_LEVELS = {"error": "error", "warning": "warning", "skipped": "note"}
_COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def _relative(path: str, base: Path) -> tuple[str, str | None]:
    """(uri, uriBaseId) of a file: relative to ``base`` under it, else an absolute ``file://`` URI."""
    target = Path(path)
    if not target.is_absolute():
        return target.as_posix(), SRCROOT
    try:
        return target.resolve().relative_to(base.resolve()).as_posix(), SRCROOT
    except ValueError:
        return target.as_uri(), None


def _display_path(path: str, base: Path) -> str:
    uri, base_id = _relative(path, base)
    return uri if base_id else path


def _physical(path: str, line: int | None, base: Path) -> dict:
    """A ``physicalLocation``; a finding about a whole file (no line) points at its line 1, as code
    scanning shows only results with a ``region.startLine``."""
    uri, base_id = _relative(path, base)
    artifact = {"uri": uri, **({"uriBaseId": base_id} if base_id else {})}
    return {"artifactLocation": artifact, "region": {"startLine": line or 1}}


def _rule_of(suspect: Suspect) -> str:
    return "suspect-conclusion" if suspect.conclusion else "suspect-statement"


def _reports(report: ImpactReport | RepositoryImpact) -> tuple[ImpactReport, ...]:
    return report.sets if isinstance(report, RepositoryImpact) else (report,)


def _statements(report: ImpactReport | RepositoryImpact) -> list[Suspect]:
    return [s for r in _reports(report) for s in r.suspects if s.kind == "statement"]


def _suspect_message(s: Suspect) -> str:
    what = "Conclusion" if s.conclusion else "Statement"
    return f"{what} {s.node} rests on {s.change} ({s.depth} step{'s' * (s.depth != 1)}): {s.text}"


def _sarif_log(rules: dict[str, tuple[str, str, str]], results: list[dict], base: Path, properties: dict,
               tool_version: str) -> str:
    log = {
        "$schema": _SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "citegraph", "version": tool_version,
                "rules": [{"id": rule, "name": rule.title().replace("-", ""),
                           "shortDescription": {"text": short}, "fullDescription": {"text": help_},
                           "help": {"text": help_, "markdown": help_},
                           "defaultConfiguration": {"level": level}}
                          for rule, (level, short, help_) in rules.items()]}},
            "originalUriBaseIds": {SRCROOT: {"uri": base.resolve().as_uri() + "/"}},
            "results": results,
            "properties": properties,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def impact_sarif(report: ImpactReport | RepositoryImpact, *, base: Path, tool_version: str = "0") -> str:
    """A SARIF 2.1.0 log (JSON text) of ``report`` (one set's, or every set's pinned to a repository):
    one result per suspect statement, rules :data:`IMPACT_RULES`, the explanation path as a code
    flow. Raises nothing."""
    located = {s.node: s for r in _reports(report) for s in (*r.suspects, *r.reviewed) if s.file and s.line}
    rule_ids = list(IMPACT_RULES)
    results: list[dict] = []
    unlocated: list[dict] = []
    for s in _statements(report):
        steps: list[tuple[Suspect, list[str]]] = []  # each located node of the path, and the unlocated ones after it
        for node in s.path:
            if node in located or not steps:
                steps.append((located.get(node, s), [node]))
            else:
                steps[-1][1].append(node)
        flow = [{"location": {"physicalLocation": _physical(at.file, at.line, base),
                              "message": {"text": " → ".join(nodes)}}} for at, nodes in steps if at.file]
        related = [{"id": n, "physicalLocation": _physical(located[node].file, located[node].line, base),
                    "message": {"text": f"{node} (on the explanation path)"}}
                   for n, node in enumerate(s.path[1:], start=1) if node in located]
        if not s.file:  # no member file to point at (code scanning needs one): in the run's properties
            unlocated.append({"node": s.node, "set": s.set, "message": _suspect_message(s)})
            continue
        location = {"physicalLocation": _physical(s.file, s.line, base)}
        results.append({
            "ruleId": _rule_of(s), "ruleIndex": rule_ids.index(_rule_of(s)),
            "level": IMPACT_RULES[_rule_of(s)][0],
            "message": {"text": _suspect_message(s)},
            "locations": [location],
            "relatedLocations": related,
            "codeFlows": [{"message": {"text": " → ".join(s.path)},
                           "threadFlows": [{"locations": flow}]}],
            "partialFingerprints": {"citegraphNode/v1": f"{s.node}|{s.trigger}"},
            "properties": {"node": s.node, "set": s.set, "depth": s.depth, "trigger": s.trigger,
                           "change": s.change, "edges": list(s.edges)},
        })
    summary = report.summary
    properties = {"to": report.to_revision,
                  "suspects": {"statements": summary.statements, "conclusions": summary.conclusions,
                               "records": summary.records, "sections": summary.sections,
                               "documents": summary.documents},
                  "reviewed": summary.reviewed, "unlocated": unlocated}
    if isinstance(report, RepositoryImpact):
        properties.update(repository=list(report.names),
                          sets=[{"set": r.set, "source": r.source, "from": r.from_revision} for r in report.sets],
                          unanalysed=[{"set": p.set, "source": p.source, "state": p.state, "reason": p.reason}
                                      for p in report.unanalysed])
    else:
        properties.update({"set": report.set, "source": report.source, "from": report.from_revision})
    return _sarif_log(IMPACT_RULES, results, base, properties, tool_version)


def _check_rules(findings: Iterable[Finding]) -> dict[str, tuple[str, str, str]]:
    rules = {}
    for f in findings:
        if f.code not in rules:
            severity, source = CODES.get(f.code, (f.severity, f"set assembly: {f.code}"))
            level = _LEVELS.get(severity, "warning")
            rules[f.code] = (level, source.split(": ", 1)[-1], f"{source}. Run `citegraph check` to see every finding.")
    return rules


def check_sarif(report: CheckReport, *, base: Path, tool_version: str = "0") -> str:
    """A SARIF 2.1.0 log (JSON text) of ``report``: one result per finding, a rule per code found
    (its help is the rule's source, :data:`queries.validation.CODES`). Raises nothing."""
    rules = _check_rules(report.findings)
    rule_ids = list(rules)
    results, unlocated = [], []
    for f in report.findings:
        if not f.file:  # a finding about a whole set: no file to point at (code scanning needs one)
            unlocated.append({"code": f.code, "severity": f.severity, "set": f.set, "node": f.node,
                              "message": f.message})
            continue
        logical = {"logicalLocations": [{"fullyQualifiedName": f.node}]} if f.node else {}
        results.append({
            "ruleId": f.code, "ruleIndex": rule_ids.index(f.code), "level": _LEVELS.get(f.severity, "warning"),
            "message": {"text": f.message},
            "locations": [{"physicalLocation": _physical(f.file, f.line, base), **logical}],
            "properties": {"set": f.set, "node": f.node, "severity": f.severity, "line": f.line},
        })
    properties = {"errors": report.errors, "warnings": report.warnings, "skipped": report.skipped,
                  "unlocated": unlocated}
    return _sarif_log(rules, results, base, properties, tool_version)


def _junit(suites: dict[str, list[ET.Element]]) -> str:
    root = ET.Element("testsuites", name="citegraph")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for name, cases in suites.items():
        counts = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases),
                  "skipped": sum(c.find("skipped") is not None for c in cases)}
        suite = ET.SubElement(root, "testsuite", name=name, errors="0", **{k: str(v) for k, v in counts.items()})
        suite.extend(cases)
        for k in totals:
            totals[k] += counts[k]
    root.attrib.update({k: str(v) for k, v in totals.items()}, errors="0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _case(classname: str, name: str, file: str | None, line: int | None, base: Path) -> ET.Element:
    attrs = {"classname": classname, "name": name}
    if file:
        attrs["file"] = _display_path(file, base)
    if line:
        attrs["line"] = str(line)
    return ET.Element("testcase", attrs)


def impact_junit(report: ImpactReport | RepositoryImpact, *, base: Path) -> str:
    """JUnit XML of ``report``: a suite ``impact <set>`` per set; a failing testcase per suspect
    statement, a passing one per statement a review cleared, one per quotation (failing unless
    intact); for a repository, a skipped testcase per pinned source not analysed (suite ``impact``)."""
    suites = {f"impact {r.set}": _junit_cases(r, base) for r in _reports(report)}
    if isinstance(report, RepositoryImpact):
        for p in report.unanalysed:
            case = _case(f"{p.set}.sources", p.source, None, None, base)
            ET.SubElement(case, "skipped", message=f"{p.state}: {p.reason}")
            suites.setdefault(f"impact {p.set}", []).append(case)
    return _junit(suites or {"impact": []})


def _junit_cases(report: ImpactReport, base: Path) -> list[ET.Element]:
    cases = []
    for s in _statements(report):
        case = _case(f"{report.set}.statements", s.node, s.file, s.line, base)
        failure = ET.SubElement(case, "failure", message=_suspect_message(s), type=_rule_of(s))
        failure.text = "via " + " → ".join(s.path)
        cases.append(case)
    for s in (r for r in report.reviewed if r.kind == "statement"):
        case = _case(f"{report.set}.statements", s.node, s.file, s.line, base)
        ET.SubElement(case, "system-out").text = (f"cleared: reviewed by {s.review.reviewer} at "
                                                  f"{s.review.revision}" if s.review else "cleared")
        cases.append(case)
    for q in report.quotations:
        case = _case(f"{report.set}.quotations", q.quotation, None, None, base)
        if q.state != "intact":
            ET.SubElement(case, "failure", message=q.describe(), type=f"quotation-{q.state}").text = q.reason
        cases.append(case)
    return cases


def check_junit(report: CheckReport, *, base: Path) -> str:
    """JUnit XML of ``report``: a suite per set (``check <set>``), a testcase per finding, errors failing."""
    suites: dict[str, list[ET.Element]] = {}
    for f in report.findings:
        case = _case(f"{f.set or 'check'}.{f.code}", f"{f.node or f.set or f.code}: {f.message}", f.file, f.line, base)
        if f.severity == "error":
            ET.SubElement(case, "failure", message=f.message, type=f.code)
        elif f.severity == "skipped":
            ET.SubElement(case, "skipped", message=f.message)
        else:
            ET.SubElement(case, "system-out").text = f"{f.severity}: {f.message}"
        suites.setdefault(f"check {f.set}" if f.set else "check", []).append(case)
    return _junit(suites or {"check": []})


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(command: str, message: str, *, file: str | None = None, line: int | None = None,
               title: str | None = None) -> str:
    """One workflow command line, ``::error file=F,line=L,title=T::message``, escaped per GitHub's
    workflow-commands documentation (data: ``%`` ``\\r`` ``\\n``; properties also ``:`` ``,``).

    >>> annotation("error", "50% done\\nnext", file="a,b.md", line=3, title="x: y")
    '::error file=a%2Cb.md,line=3,title=x%3A y::50%25 done%0Anext'
    """
    props = [(k, v) for k, v in (("file", file), ("line", str(line) if line else None), ("title", title)) if v]
    head = ",".join(f"{k}={_escape_property(v)}" for k, v in props)
    return f"::{command}{' ' + head if head else ''}::{_escape_data(message)}"


def impact_annotations(report: ImpactReport | RepositoryImpact, *, base: Path) -> str:
    """GitHub annotations of ``report``: ``::error`` per suspect conclusion, ``::warning`` per other
    suspect statement, one line each ("" when nothing is suspect); for a repository also a
    ``::warning`` per pinned source not analysed."""
    lines = [annotation(_COMMANDS[IMPACT_RULES[_rule_of(s)][0]],
                        _suspect_message(s) + "\nvia " + " → ".join(s.path),
                        file=_display_path(s.file, base) if s.file else None, line=s.line,
                        title=f"citegraph {_rule_of(s)}: {s.node}")
             for s in _statements(report)]
    if isinstance(report, RepositoryImpact):
        lines += [annotation("warning", f"{p.set} ({p.source}) not analysed: {p.reason}",
                             title=f"citegraph {p.state}: {p.set}") for p in report.unanalysed]
    return "".join(line + "\n" for line in lines)


def check_annotations(report: CheckReport, *, base: Path) -> str:
    """GitHub annotations of ``report``: one line per finding (``error``, ``warning``, ``notice``)."""
    lines = [annotation(_COMMANDS[_LEVELS.get(f.severity, "warning")], f.message,
                        file=_display_path(f.file, base) if f.file else None, line=f.line or None,
                        title=f"citegraph {f.code}")
             for f in report.findings]
    return "".join(line + "\n" for line in lines)
