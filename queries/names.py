"""Names the user may have meant: "did you mean" for unknown analysis sets, records, sources, source
files and documents. Every face raises these errors, so every face shows the hint.

Candidates are the names the store holds in scope; the closest come first: the same name in
another case, then names containing the asked one (or contained in it), then
:func:`difflib.get_close_matches` (ratio at least 0.6), all compared in lower case.
"""

from __future__ import annotations

from collections.abc import Iterable

from graph.errors import AnalysisSetNotFound, DocumentNotFound, RecordNotFound
from graph.model import Label
from graph.store import GraphStore

__all__ = ["closest", "did_you_mean", "set_names", "require_set", "unknown_set", "unknown_record",
           "unknown_document"]

LISTED = 10
"""How many set names an unknown-set hint lists at most."""


def closest(name: str, candidates: Iterable[str], *, n: int = 3) -> list[str]:
    """Up to ``n`` candidates closest to ``name``, best first (see the module docstring).

    >>> closest("rt-rte-mcp-write", ["RT-RTE-mcp-write", "RT-RTE-mcp-read", "MEM-OBJ-1"])
    ['RT-RTE-mcp-write', 'RT-RTE-mcp-read']
    >>> closest("tolara", ["talorys", "tolaria"])
    ['tolaria']
    >>> closest("zzz", ["tolaria"])
    []
    """
    import difflib  # a name not found is the rare case: a query that finds its names imports none

    unique = sorted(set(candidates))
    folded: dict[str, list[str]] = {}
    for c in unique:
        folded.setdefault(c.lower(), []).append(c)
    asked = name.lower()
    out: list[str] = list(folded.get(asked, []))
    if asked:
        out += sorted((c for c in unique if c.lower() != asked and (asked in c.lower() or c.lower() in asked)),
                      key=lambda c: (abs(len(c) - len(name)), c))
    for match in difflib.get_close_matches(asked, list(folded), n=n + len(out), cutoff=0.6):
        out += folded[match]
    return list(dict.fromkeys(out))[:n]


def did_you_mean(name: str, candidates: Iterable[str], *, n: int = 3) -> str | None:
    """``"did you mean X, Y?"`` for the :func:`closest` candidates, or None when none is close.

    >>> did_you_mean("RT-RTE-mcp-wrte", ["RT-RTE-mcp-write", "RT-RTE-mcp-read", "MEM-OBJ-1"])
    'did you mean RT-RTE-mcp-write, RT-RTE-mcp-read?'
    """
    found = closest(name, candidates, n=n)
    return f"did you mean {', '.join(found)}?" if found else None


def set_names(store: GraphStore) -> list[str]:
    """Ids of every analysis set in the store, sorted."""
    return [s.id for s in store.find_nodes(Label.ANALYSIS_SET)]


def _sets_sentence(names: list[str]) -> str:
    if not names:
        return "the store holds no analysis set yet"
    shown = ", ".join(names[:LISTED]) + (f", … ({len(names) - LISTED} more)" if len(names) > LISTED else "")
    return f"the store holds {len(names)} set{'s' if len(names) != 1 else ''}: {shown}"


def unknown_set(store: GraphStore, set_id: str) -> AnalysisSetNotFound:
    """The error for an analysis set ``set_id`` the store does not hold; its hint names the closest
    sets and lists the sets there are (code ``unknown-set``; ``data["sets"]``: how many there are,
    for the faces to name the command that lists or adds them).

    >>> from queries.demo import demo_store
    >>> unknown_set(demo_store(), "dmeo").hint
    'did you mean demo? the store holds 1 set: demo'
    """
    names = set_names(store)
    guess = did_you_mean(set_id, names)
    hint = f"{guess} {_sets_sentence(names)}" if guess else _sets_sentence(names)
    return AnalysisSetNotFound(f"no analysis set {set_id!r} in the store", hint=hint, code="unknown-set",
                               data={"sets": len(names)})


def require_set(store: GraphStore, set_id: str | None) -> None:
    """Nothing when ``set_id`` is None or an analysis set of the store.

    Raises
    ------
    AnalysisSetNotFound
        :func:`unknown_set`, when the store holds no such set.
    """
    if set_id is None:
        return
    node = store.get_nodes([set_id]).get(set_id)
    if node is None or node.label != Label.ANALYSIS_SET:
        raise unknown_set(store, set_id)


def unknown_record(store: GraphStore, record_id: str, set_id: str | None = None, *,
                   also: Iterable[Label] = ()) -> RecordNotFound:
    """The error for a record ID no set in scope holds; its hint names the closest record IDs (and
    source IDs and file paths when ``also`` names :attr:`Label.SOURCE` / :attr:`Label.SOURCE_FILE`)
    of ``set_id`` (every set when None); code ``unknown-record`` (the faces add how to find records).

    >>> from queries.demo import demo_store
    >>> unknown_record(demo_store(), "rt-rte-x").hint
    'did you mean RT-RTE-x? IDs are case-sensitive'
    """
    # here: the codec's domain model costs a rests-on process 20 ms to import
    from graph.codec import record_id_of, source_file_path, source_of

    also = set(also)
    names = [record_id_of(n) for n in store.find_nodes(Label.RECORD, set_id=set_id)]
    others = []
    for label, name_of, word in ((Label.SOURCE, lambda n: source_of(n).source_id, "source ID"),
                                 (Label.SOURCE_FILE, source_file_path, "cited file")):
        if label in also:
            names += [name_of(n) for n in store.find_nodes(label, set_id=set_id)]
            others.append(word)
    scope = f" in set {set_id!r}" if set_id else ""
    message = f"record {record_id} is not cited or declared{scope}"
    if others:
        message += f", and it is no {' or '.join(others)} either"
    guess = did_you_mean(record_id, names)
    if not guess and record_id.upper().startswith("SRC-") and Label.SOURCE not in also:
        return RecordNotFound(message, hint="SRC-n is a source ID; this asks for records such as RT-RTE-mcp-write")
    return RecordNotFound(message, hint=f"{guess + ' ' if guess else ''}IDs are case-sensitive", code="unknown-record")


def unknown_document(store: GraphStore, reference: str) -> DocumentNotFound:
    """The error for a document id or path no stored document has; its hint names the closest
    documents of the set the reference names (``<set>/<role>``; a set close to it when that set
    is unknown), else the closest sets; code ``unknown-document`` (the faces add how to list them).

    >>> from queries.demo import demo_store
    >>> unknown_document(demo_store(), "demo/synthesys").hint
    'did you mean demo/synthesis? document ids are <set>/<role>'
    """
    set_part = reference.partition("/")[0]
    names = set_names(store)
    sets = [set_part] if set_part in names else closest(set_part, names, n=2)
    candidates = [d.id for s in sets for d in store.find_nodes(Label.DOCUMENT, set_id=s)]
    guess = did_you_mean(reference, candidates) or did_you_mean(reference, [f"{s}/" for s in sets])
    tail = "document ids are <set>/<role>"
    return DocumentNotFound(f"no document {reference!r} in the store", hint=f"{guess} {tail}" if guess else tail,
                            code="unknown-document")
