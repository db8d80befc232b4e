"""GraphQL mutations: ingesting members through the same loader as the CLI and ``POST /sets``."""

from __future__ import annotations

import base64
import binascii

import strawberry
from strawberry.types import Info

from app.graphql.context import Context, call
from app.graphql.shapes import object_type
from app.rest.security import check_write
from graph.errors import IngestError, SourceSpan
from ingest.loader import DocumentOutcome, IngestReport
from ingest.pipeline import ingest_files
from ingest.archive import upload_path
from ingest.sets import InputFile

__all__ = ["Mutation", "MemberFileInput", "IngestResult", "IngestedDocument"]


@strawberry.input(description="One member file: its name, a relative path such as "
                              "`trials/AGS-2026-08-20-SWAMP-01/result.md` (its folders place it in its set, its "
                              "suffix picks the format), and its text, or its bytes in base64 when `base64` is true.")
class MemberFileInput:
    name: str
    content: str
    base64: bool = False


IngestedDocument = object_type(DocumentOutcome, name="IngestedDocument", description="What ingest did with one file.")
IngestResult = object_type(IngestReport, name="IngestResult", description="The sets written and every file's outcome.")


def _inputs(files: list[MemberFileInput]) -> list[InputFile]:
    """The files of an ``ingest`` mutation, each named by its relative path as sent.

    Raises ``IngestError`` for an unsafe name (:func:`ingest.archive.upload_path`) or bad base64."""
    out = []
    for f in files:
        name = upload_path(f.name, "request")
        if f.base64:
            try:
                data = base64.b64decode(f.content, validate=True)
            except (binascii.Error, ValueError):
                raise IngestError("content is not valid base64", source=SourceSpan(name, 1)) from None
        else:
            data = f.content.encode("utf-8")
        out.append(InputFile(name, data, explicit=True))
    return out


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Ingest members (needs the write token); each set is written all or nothing.")
    async def ingest(self, info: Info[Context, None], files: list[MemberFileInput],
                     skip_invalid: bool = False, partial: bool = False, strict: bool = False) -> IngestResult:
        ctx = info.context

        def run() -> IngestReport:
            check_write(ctx.authorization, ctx.settings)
            return ingest_files(ctx.store, _inputs(files), skip_invalid=skip_invalid, partial=partial, strict=strict)

        request = getattr(ctx, "request", None)
        liveness = getattr(request.app.state, "liveness", None) if request is not None else None
        if liveness is None:
            return await call(run)
        liveness.writing()  # /health keeps no totals while the write runs
        try:
            return await call(run)
        finally:
            liveness.written()
