"""Write routes: ingest sets (``POST /sets``), put and delete members, delete sets.

Every write needs ``Authorization: Bearer <CITEGRAPH_WRITE_TOKEN>``. Document responses carry an
``ETag`` (the member's SHA-256); ``PUT``/``DELETE`` honour ``If-Match`` (and ``PUT`` honours
``If-None-Match: *``) as a compare-and-swap the store checks atomically with the write.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated, Optional

from fastapi import APIRouter, Header, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from app.rest.deps import StoreDep
from app.rest.openapi import errors
from app.rest.schemas import IngestOut
from app.rest.security import WriteAccess
from graph.errors import DocumentNotFound, IngestError, PreconditionFailed, SourceSpan
from queries.names import unknown_document, unknown_set
from graph.model import Label
from ingest.archive import read_zip, upload_path
from ingest.loader import document_id_of
from ingest.pipeline import ingest_files
from ingest.sets import InputFile
from queries.shapes import plain

router = APIRouter(tags=["writes"])

SkipInvalid = Annotated[bool, Query(description="Ingest the valid sets and list the refused files.")]
Partial = Annotated[bool, Query(description="Ingest a set copied in part: the members its manifest pins that are "
                                            "absent are listed as missing and stay manifest-missing-member findings.")]
Strict = Annotated[bool, Query(description="A file that is no analysis document (a type definition, an instruction, a "
                                           "note) is an error, instead of being listed as skipped with its reason.")]


_ETAG = {"ETag": {"description": "The member's SHA-256, quoted (use it in `If-Match`).", "schema": {"type": "string"}}}
_SETS_BODY = {"required": True, "content": {
    "multipart/form-data": {"schema": {
        "type": "object", "required": ["files"],
        "properties": {"files": {"type": "array", "items": {"type": "string", "format": "binary"},
                                 "description": "Members, ARTIFACT.yaml manifests or .zip archives of them, each "
                                                "named by its relative path (the `filename`, folders "
                                                "kept: `trials/AGS-2026-08-20-SWAMP-01/result.md`)."}}}},
    "application/zip": {"schema": {"type": "string", "format": "binary", "description": "A .zip of members."}},
}}
_MEMBER_BODY = {"required": True, "description": "The member's bytes (UTF-8). The format comes from `name`, else from "
                                                 "the content type: text/markdown is Markdown, anything else plain text.",
                "content": {media: {"schema": {"type": "string", "format": "binary"}}
                            for media in ("text/markdown", "text/plain", "application/octet-stream")}}


def _etag(sha: str) -> str:
    return f'"{sha}"'


def _expected(if_match: str | None, if_none_match: str | None, document_id: str) -> dict[str, str | None]:
    """The compare-and-swap precondition of a request, from its ``If-Match``/``If-None-Match``."""
    if if_none_match is not None:
        if if_none_match.strip() != "*":
            raise PreconditionFailed("only If-None-Match: * is supported (create only)")
        return {document_id: None}
    if if_match is None or if_match.strip() == "*":
        return {}
    tag = if_match.strip()
    if tag.startswith("W/"):
        raise PreconditionFailed("weak ETags cannot be used for If-Match")
    return {document_id: tag.strip('"')}


@router.post("/sets", operation_id="ingestSets", status_code=201, response_model=IngestOut,
             responses={200: {"model": IngestOut, "description": "Every member was already stored unchanged."},
                        **errors(401, 403, 409, 413, 422)}, openapi_extra={"requestBody": _SETS_BODY})
async def post_sets(request: Request, response: Response, store: StoreDep, _: WriteAccess,
                    skip_invalid: SkipInvalid = False, partial: Partial = False, strict: Strict = False) -> dict:
    """Ingest analysis-set members: a multipart form with one or more ``files`` (a member, an
    ``ARTIFACT.yaml`` manifest, or a ``.zip`` of them), each named by its relative path as sent
    (:func:`ingest.archive.upload_path`: its folders place a G0 prototype in its run, GRAMMAR §0; an
    absolute or ``..`` name is refused), or an ``application/zip`` body. Each set is
    written all or nothing; with ``skip_invalid`` refused files are listed instead; with ``partial``
    a set whose manifest pins absent members is written and each absent one listed as ``missing``.
    Every file sent is named in the answer: a manifest as ``manifest``, a file that is no analysis
    document as ``skipped`` with its ``reason`` (an error with ``strict``). 201 when a set was
    written, 200 when every member was already stored unchanged."""
    content_type = request.headers.get("content-type", "")
    inputs: list[InputFile] = []
    if content_type.startswith("multipart/form-data"):
        form = await request.form()
        uploads = form.getlist("files")
        if not uploads:
            raise IngestError("the form has no `files` field", source=SourceSpan("request", 1),
                              hint="send members as multipart fields named `files`")
        for upload in uploads:
            if isinstance(upload, str):
                raise IngestError("`files` must be file fields, not text", source=SourceSpan("request", 1))
            data = await upload.read()
            name = upload_path(upload.filename or "upload", "request")  # as sent, folders kept
            if name.lower().endswith(".zip"):
                inputs.extend(InputFile(f"{name}/{path}", content) for path, content in read_zip(data, name=name))
            else:
                inputs.append(InputFile(name, data, explicit=True))
    elif content_type.startswith(("application/zip", "application/x-zip-compressed")):
        data = await request.body()
        inputs.extend(InputFile(f"upload.zip/{path}", content) for path, content in read_zip(data))
    else:
        raise IngestError(f"unsupported content type {content_type or '(none)'!r}", source=SourceSpan("request", 1),
                          hint="POST multipart/form-data with `files`, or an application/zip body")
    report = await run_in_threadpool(lambda: ingest_files(store, inputs, skip_invalid=skip_invalid, partial=partial,
                                                                  strict=strict))
    response.status_code = 201 if report.sets else 200
    return plain(report)


@router.put("/documents/{document_id:path}", operation_id="putDocument", response_model=IngestOut,
            responses={200: {"description": "Replaced, or found unchanged.", "headers": _ETAG},
                       201: {"model": IngestOut, "description": "Created.", "headers": _ETAG},
                       **errors(401, 403, 409, 412, 413, 422)}, openapi_extra={"requestBody": _MEMBER_BODY})
async def put_document(
    document_id: str, request: Request, response: Response, store: StoreDep, _: WriteAccess,
    name: Annotated[Optional[str], Query(description="File name of the member (its suffix picks the format).")] = None,
    if_match: Annotated[Optional[str], Header()] = None,
    if_none_match: Annotated[Optional[str], Header()] = None,
) -> dict:
    """Create or replace one member. The body is the member's bytes; its format comes from ``name``
    or the content type (``text/markdown`` → ``.md``, else ``.txt``). The parsed member must be
    ``document_id``. 201 when created, 200 when replaced or unchanged; 412 when ``If-Match`` or
    ``If-None-Match`` fails."""
    data = await request.body()
    if name is not None:
        name = PurePosixPath(name.replace("\\", "/")).name  # a file name, never a path on the server
    if not name:
        suffix = ".md" if "markdown" in request.headers.get("content-type", "") else ".txt"
        name = document_id.rsplit("/", 1)[-1] + suffix
    expect = _expected(if_match, if_none_match, document_id)
    existed = bool(await run_in_threadpool(store.get_nodes, [document_id]))

    written: list[str] = []

    def vet(parsed) -> None:
        ids = [document_id_of(d) for d in parsed]
        if ids != [document_id]:
            raise IngestError(f"the body is document {', '.join(ids) or 'nothing'}, not {document_id}",
                              source=SourceSpan(name, 1), hint="PUT a member to its own <set>/<role> path")
        written.append(parsed[0].sha256)

    def work():
        report = ingest_files(store, [InputFile(name, data, explicit=True)], expect=expect, vet=vet)
        return written[0], report

    # The ETag is the SHA-256 of the member written (or found unchanged), known without reading the
    # store again: a concurrent DELETE or PUT after this write cannot make the answer wrong or fail.
    sha, report = await run_in_threadpool(work)
    response.headers["ETag"] = _etag(sha)
    response.status_code = 200 if existed else 201
    return plain(report)


@router.delete("/documents/{document_id:path}", operation_id="deleteDocument", status_code=204,
               responses=errors(401, 403, 404, 412))
async def delete_document(
    document_id: str, store: StoreDep, _: WriteAccess, if_match: Annotated[Optional[str], Header()] = None,
) -> Response:
    """Delete one member and all it owns; 404 when there is no such document (an id naming another
    node, such as a set, a record or a statement, deletes nothing), 412 when ``If-Match`` fails."""
    expect = _expected(if_match, None, document_id)
    summary = await run_in_threadpool(lambda: store.delete_documents([document_id], expect=expect))
    if not summary.deleted:
        other = (await run_in_threadpool(store.get_nodes, [document_id])).get(document_id)
        if other is None:
            raise await run_in_threadpool(unknown_document, store, document_id)
        hint = (f"delete the set with DELETE /sets/{document_id}" if other.label == Label.ANALYSIS_SET
                else "document ids are <set>/<role>")
        raise DocumentNotFound(f"no document {document_id!r} in the store: that id is a {other.label}", hint=hint)
    return Response(status_code=204)


@router.delete("/sets/{set_id}", operation_id="deleteSet", status_code=204, responses=errors(401, 403, 404))
async def delete_set(set_id: str, store: StoreDep, _: WriteAccess) -> Response:
    """Delete every member of a set (and so the set), in one write that finds them; 404 naming the
    closest sets when the set has no member (of two concurrent deletes of a set, one answers 204
    and the other 404)."""
    summary = await run_in_threadpool(lambda: store.delete_documents((), sets=[set_id]))
    if not summary.deleted:
        raise await run_in_threadpool(unknown_set, store, set_id)
    return Response(status_code=204)
