"""The one ingest pipeline every face calls: input files → assembled sets → accepted members → store.

Three entry points, one composition of :func:`ingest.sets.assemble`, :func:`ingest.files.accept`
and :func:`ingest.loader.ingest_parsed`:

- :func:`ingest_files`: member files held as bytes (``POST /sets``, ``PUT /documents/…``, the
  GraphQL ``ingest`` mutation);
- :func:`ingest_paths`: member files and folders on disk, one set at a time
  (``citegraph ingest``; see :mod:`ingest.stream`);
- :func:`stage_paths`: every member under paths written to a throw-away store whatever its
  problems, for checking files without ingesting them (``citegraph check PATHS``).
"""

from __future__ import annotations

from pathlib import Path
from collections.abc import Callable, Iterable, Mapping

from graph.store import GraphStore
from ingest.files import accept, no_members, read_sets
from ingest.loader import IngestReport, ingest_parsed
from ingest.parsers.parsed import ParsedDocument
from ingest.sets import SKIPPED, Assembly, InputFile, assemble
from ingest.stream import ingest_paths

__all__ = ["ingest_files", "ingest_paths", "stage_paths"]


def ingest_files(
    store: GraphStore,
    files: Iterable[InputFile],
    *,
    skip_invalid: bool = False,
    partial: bool = False,
    strict: bool = False,
    expect: Mapping[str, str | None] | None = None,
    vet: Callable[[list[ParsedDocument]], None] | None = None,
) -> IngestReport:
    """Ingest member files given as bytes; each analysis set is written all or nothing.

    Parameters
    ----------
    store : GraphStore
        Where to write.
    files : iterable of InputFile
        Members and manifests (an unpacked zip, multipart fields, a ``PUT`` body).
    skip_invalid, partial, strict : bool, default False
        As :func:`ingest.files.accept`.
    expect : mapping, optional
        Document id → SHA-256 it must have when written (None: must not exist), checked by the
        store atomically with the write (:func:`ingest.loader.ingest_parsed`).
    vet : callable, optional
        Called with every accepted member before anything is written; may raise to refuse the
        whole input (a ``PUT`` of another document than its path names).

    Returns
    -------
    IngestReport
        The outcome of every file, in input order, and the sets written.

    Raises
    ------
    CitegraphError
        As :func:`ingest.files.accept` and :func:`ingest.loader.ingest_parsed`, or what ``vet``
        raises; nothing is written then.
    """
    read = accept(assemble(files), skip_invalid=skip_invalid, partial=partial, strict=strict)
    if vet is not None:
        vet(read.parsed)
    return ingest_parsed(store, read.parsed, errors=read.errors, gaps=read.gaps, expect=expect,
                         manifests=read.manifests, skipped=read.skipped)


def stage_paths(store: GraphStore, paths: list[Path], *, workers: int | None = None) -> Assembly:
    """Write every member under ``paths`` into ``store`` (a throw-away one), problems or not.

    For checking files without ingesting them: the checker then reports the returned assembly's
    ``problems`` beside the findings of the stored sets.

    Raises
    ------
    IngestError
        ``paths`` hold no analysis-set member and no problem but skipped files
        (:func:`ingest.files.no_members`).
    """
    assembly = read_sets(paths, workers=workers)
    if not assembly.documents and all(p.severity == SKIPPED for p in assembly.problems):
        raise no_members(paths)
    ingest_parsed(store, list(assembly.documents))
    return assembly
