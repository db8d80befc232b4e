"""The kept versions of an analysis set (:func:`history`), apart from reading or comparing them
(:mod:`queries.history`, which names these too): ``citegraph history`` imports no diff, view or
traversal query."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph.model import SetBatch
from graph.store import GraphStore
from graph.versions import SetVersion, digest_of, summary_of
from queries.names import require_set
from queries.shapes import wire

__all__ = ["SetHistory", "history", "read_set"]


@dataclass(frozen=True, slots=True)
class SetHistory:
    """The kept versions of an analysis set, oldest first, and the number of the ``latest`` (the
    live graph); ``set_id`` is ``set`` on the wire."""

    set_id: str = field(metadata=wire("set"))
    latest: int = field(init=False)
    versions: tuple[SetVersion, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "latest", self.versions[-1].number)


def read_set(store: GraphStore, set_id: str) -> SetBatch:
    """The live graph of ``set_id`` as the batch that rebuilds it (:func:`graph.transfer.set_batch_of`,
    about a dozen contract calls); it encodes as the store's latest version does.

    Raises
    ------
    AnalysisSetNotFound
        No such set.
    """
    from graph.transfer import set_batch_of

    require_set(store, set_id)
    return set_batch_of(store, set_id)


def history(store: GraphStore, set_id: str) -> SetHistory:
    """The versions of ``set_id`` the store keeps, oldest first.

    A set written before versions were kept has none stored; its live graph is then shown as
    version 1, untimed, and becomes stored version 1 on the set's next changed write.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> h = history(demo_store(), "demo")
    >>> h.latest, [m.document for m in h.versions[0].members]
    (1, ['demo/synthesis'])
    """
    require_set(store, set_id)
    kept = tuple(store.set_versions(set_id)) if hasattr(store, "set_versions") else ()
    if not kept:
        batch = read_set(store, set_id)
        kept = (summary_of(batch, number=1, created=None, digest=digest_of(batch)),)
    return SetHistory(set_id, kept)
