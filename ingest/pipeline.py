"""The one ingest pipeline every face calls: input files → analysis sets parsed, checked and written
one set at a time (:mod:`ingest.stream`, the one engine; memory holds one set, not the run).

- :func:`ingest_files`: member files held as bytes (``POST /sets``, ``PUT /documents/…``, the
  GraphQL ``ingest`` mutation);
- :func:`ingest_paths`: member files and folders on disk (``citegraph ingest``, the benchmarks);
- :func:`stage_paths`: every member under paths written to a throw-away store whatever its
  problems, for checking files without ingesting them (``citegraph check PATHS``).
"""

from __future__ import annotations

from pathlib import Path
from collections.abc import Iterable, Mapping

from graph.store import GraphStore
from ingest.loader import IngestReport
from ingest.sets import InputFile, SetProblem
from ingest.stream import Vet, ingest_inputs, ingest_paths, stage_inputs

__all__ = ["ingest_files", "ingest_paths", "stage_paths"]


def ingest_files(
    store: GraphStore,
    files: Iterable[InputFile],
    *,
    skip_invalid: bool = False,
    partial: bool = False,
    strict: bool = False,
    expect: Mapping[str, str | None] | None = None,
    vet: Vet | None = None,
) -> IngestReport:
    """Ingest member files given as bytes; each analysis set is written all or nothing.

    Parameters
    ----------
    store : GraphStore
        Where to write.
    files : iterable of InputFile
        Members and manifests (an unpacked zip, multipart fields, a ``PUT`` body).
    skip_invalid, partial, strict : bool, default False
        As :func:`ingest_paths`.
    expect : mapping, optional
        Document id → SHA-256 it must have when written (None: must not exist), checked by the
        store atomically with the write.
    vet : callable, optional
        Called with each accepted set's members before anything of it is written; may raise to
        refuse the whole input (a ``PUT`` of another document than its path names).

    Returns
    -------
    IngestReport
        The outcome of every file, in input order, and the sets written.

    Raises
    ------
    CitegraphError
        As :func:`ingest_paths`, or what ``vet`` raises; nothing is written then.
    """
    return ingest_inputs(store, files, skip_invalid=skip_invalid, partial=partial, strict=strict, expect=expect,
                         vet=vet)


def stage_paths(store: GraphStore, paths: list[Path], *, workers: int | None = None) -> tuple[SetProblem, ...]:
    """Write every member under ``paths`` into ``store`` (a throw-away one), problems or not; every
    problem of the input in input order, for the checker to report beside the findings of the
    stored sets.

    Raises
    ------
    IngestError
        ``paths`` hold no analysis-set member and no problem but skipped files, worded as
        ingest words it (:func:`ingest.stream.stage_inputs`).
    """
    return stage_inputs(store, paths, workers=workers)
