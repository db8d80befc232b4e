"""Document reads: ``GET /documents`` and ``GET /documents/{document_id}`` (with its ETag)."""

from __future__ import annotations

from fastapi import APIRouter, Response
from app.rest.deps import SetFilter, StoreDep, in_snapshot
from app.rest.schemas import DocumentOut, DocumentsOut
from queries.catalog import DocumentSummary, documents_of
from queries.shapes import plain
from queries.names import unknown_document
from graph.model import Label

router = APIRouter(prefix="/documents", tags=["documents"])


@router.get("", operation_id="listDocuments", response_model=DocumentsOut)
async def list_documents(store: StoreDep, set_id: SetFilter = None) -> DocumentsOut:
    """Every ingested member (optionally of one set, 404 naming the closest sets when that set is
    absent), sorted by id (``citegraph documents --json``)."""
    found = await in_snapshot(store, lambda view: documents_of(view, set_id=set_id))
    return DocumentsOut(data=[plain(d) for d in found], count=len(found))


@router.get("/{document_id:path}", operation_id="getDocument", response_model=DocumentOut,
            responses={200: {"headers": {"ETag": {"description": "The member's SHA-256.", "schema": {"type": "string"}}}}})
async def get_document(document_id: str, store: StoreDep, response: Response) -> dict:
    """One member's metadata; the ``ETag`` header is its SHA-256 (use it in ``If-Match``)."""
    node = (await in_snapshot(store, lambda view: view.get_nodes([document_id]))).get(document_id)
    if node is None or node.label != Label.DOCUMENT:
        raise await in_snapshot(store, unknown_document, document_id)
    summary = DocumentSummary.of(node)
    response.headers["ETag"] = f'"{summary.member.sha256}"'
    return plain(summary)
