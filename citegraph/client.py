"""The notebook client: citegraph over HTTP, with answers as networkx graphs and pandas DataFrames.

::

    from citegraph import Client

    cg = Client("http://127.0.0.1:8000", token=os.environ.get("CITEGRAPH_WRITE_TOKEN"))
    cg.ingest("corpus/seeds")                       # POST /sets (needs the write token)
    graph = cg.rests_on("RT-RTE-mcp-write")         # networkx.DiGraph along the explanation paths
    frame = cg.rests_on_frame("RT-RTE-mcp-write")   # one row per statement (pandas)
    cg.query("{ restsOn(record: \\"RT-RTE-mcp-write\\") { count } }")

It needs only httpx and networkx (both citegraph dependencies); the DataFrame helpers need pandas,
the ``notebook`` extra (``pip install -e '.[notebook]'`` in a clone), imported when first used. Every
failure raises a :class:`ClientError` carrying the server's stable error code.

It imports no other citegraph package when loaded (import-linter checks that it never imports
``app``), so a user's own ``app.py`` beside the notebook cannot shadow it; :meth:`Client.ingest`
alone reads ``ingest.files`` (the CLI's selection of member files), and says so when a module of
that name in the current folder stands in its way.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import networkx as nx

__all__ = ["Client", "ClientError", "GraphQLRequestError"]


class ClientError(Exception):
    """A request failed: ``status`` (HTTP status, or None when no answer came), ``code`` (the
    server's stable error code, e.g. ``NOT_FOUND``, ``UNAUTHENTICATED``, ``INVALID_INPUT``),
    ``message``, and ``body`` (the decoded error body, when there was one)."""

    def __init__(self, message: str, *, status: int | None = None, code: str | None = None, body: Any = None):
        super().__init__(f"{code}: {message}" if code else message)
        self.message = message
        self.status = status
        self.code = code
        self.body = body


class GraphQLRequestError(ClientError):
    """A GraphQL answer with ``errors``: ``codes`` lists each error's ``extensions.code`` (None when an
    error has none), ``errors`` the errors as sent, ``data`` whatever partial data came with them."""

    def __init__(self, errors: list[dict], data: Any = None):
        self.errors = errors
        self.codes = [(e.get("extensions") or {}).get("code") for e in errors]
        self.data = data
        messages = "; ".join(f"{c or 'ERROR'}: {e.get('message', '')}" for c, e in zip(self.codes, errors))
        super().__init__(messages, status=200, code=next((c for c in self.codes if c), None), body={"errors": errors})
        self.args = (f"GraphQL errors: {messages}",)


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError("DataFrames need pandas: pip install -e '.[notebook]' in the citegraph clone (or pip install pandas)") from None
    return pandas


class Client:
    """citegraph over HTTP.

    Parameters
    ----------
    url : str
        The server, e.g. ``http://127.0.0.1:8000`` (``citegraph serve``).
    token : str, optional
        Bearer token sent with every request: ``CITEGRAPH_WRITE_TOKEN`` for :meth:`ingest`, the read
        or write token when the server requires one for reads.
    timeout : float, default 30
        Seconds per request.
    transport : httpx.BaseTransport, optional
        For tests (e.g. ``httpx.ASGITransport``); the default talks to ``url`` over the network.

    Examples
    --------
    >>> Client("http://127.0.0.1:8000/").url
    'http://127.0.0.1:8000'
    """

    def __init__(self, url: str, token: str | None = None, *, timeout: float = 30.0,
                 transport: httpx.BaseTransport | None = None):
        self.url = url.rstrip("/")
        headers = {"Accept": "application/json", "User-Agent": "citegraph-client"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout, transport=transport)

    def __repr__(self) -> str:
        return f"Client({self.url!r})"

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    # -- HTTP ----------------------------------------------------------------------------------------

    def _request(self, method: str, path: str, **kwargs) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ClientError(f"{method} {self.url}{path} failed: {exc}", code="UNAVAILABLE") from exc
        if response.is_error:
            try:
                body = response.json()
            except ValueError:
                body = None
            found = body.get("error") if isinstance(body, dict) else None
            error: dict[str, Any] = found if isinstance(found, dict) else {}  # the JSON error body's "error"
            message = error.get("message") or (body.get("detail") if isinstance(body, dict) else None) or response.text
            hint = error.get("hint")
            source = error.get("source") or {}
            where = f"{source['path']}:{source['line']}: " if source.get("path") else ""
            raise ClientError(f"{where}{message}" + (f" (hint: {hint})" if hint else ""), status=response.status_code,
                              code=error.get("code") or f"HTTP_{response.status_code}", body=body)
        return response

    def _get(self, path: str, **params) -> Any:
        params = {k: _param(v) for k, v in params.items() if v is not None}
        return self._request("GET", path, params=params).json()

    # -- API -----------------------------------------------------------------------------------------

    def health(self) -> dict:
        """``GET /health``: ``{"status": "ok", "store", "nodes", "edges"}`` (``{"status": "ok"}`` alone
        from a server with ``CITEGRAPH_READ_TOKEN`` set when the client has no token)."""
        return self._get("/health")

    def query(self, graphql: str, variables: dict | None = None) -> dict:
        """Run a GraphQL query and return its ``data``.

        Raises
        ------
        GraphQLRequestError
            The answer has ``errors``; ``codes`` holds their stable codes (``NOT_FOUND``,
            ``LIMIT_EXCEEDED`` …).
        ClientError
            The request itself failed (no answer, 4xx/5xx).
        """
        body: dict[str, object] = {"query": graphql}
        if variables:
            body["variables"] = variables
        response = self._request("POST", "/graphql", json=body)
        try:
            answer = response.json()
        except ValueError as exc:
            raise ClientError(f"/graphql did not answer with JSON: {response.text[:200]!r}",
                              status=response.status_code) from exc
        if answer.get("errors"):
            raise GraphQLRequestError(answer["errors"], answer.get("data"))
        return answer.get("data") or {}

    def rests_on_graph(self, record_id: str, set: str | None = None, direct: bool = False,
                       max_depth: int | None = None) -> dict:
        """The graph of ``record_id`` and what rests on it, as the server sends it
        (``GET /embed/rests-on/{record_id}/graph``): ``{"record", "set", "records", "count",
        "nodes", "edges"}``."""
        return self._get(f"/embed/rests-on/{quote(record_id, safe='')}/graph", set=set, direct=direct,
                         max_depth=max_depth)

    def rests_on(self, record_id: str, set: str | None = None, direct: bool = False,
                 max_depth: int | None = None) -> nx.DiGraph:
        """What rests on ``record_id``, as a directed graph along the explanation paths.

        Parameters
        ----------
        record_id : str
            E.g. ``"RT-RTE-mcp-write"``; looked up in every set unless ``set``.
        set : str, optional
            Only this analysis set.
        direct : bool, default False
            Only statements citing or annotating the record themselves.
        max_depth : int, optional
            Evidence-step limit (1..16).

        Returns
        -------
        networkx.DiGraph
            Nodes keyed by node id, with attributes ``kind`` (``record``, ``statement``,
            ``section``, ``named_reference``, ``document`` …), ``label``, ``name``, ``set``,
            ``document`` and ``hops``; statements add ``text``, ``section`` (section id),
            ``section_heading``, ``statement_kind``, ``line``, ``direct``, ``depth`` and ``path``;
            records add ``record_id`` and ``start`` (asked about). An edge ``u → v`` means u rests
            on v, with ``kinds`` (edge kinds such as ``CITES``). ``graph.graph`` holds ``record``,
            ``set``, ``records`` and ``count``.
        """
        data = self.rests_on_graph(record_id, set=set, direct=direct, max_depth=max_depth)
        graph: nx.DiGraph[str] = nx.DiGraph(record=data["record"], set=data["set"], records=data["records"], count=data["count"])
        for node in data["nodes"]:
            attrs = {k: v for k, v in node.items() if k != "id"}
            graph.add_node(node["id"], **attrs)
        for edge in data["edges"]:
            graph.add_edge(edge["source"], edge["target"], kinds=edge["kinds"])
        return graph

    def rests_on_frame(self, record_id: str, set: str | None = None, direct: bool = False,
                       max_depth: int | None = None):
        """What rests on ``record_id`` as a pandas DataFrame, one row per statement
        (``GET /records/{record_id}/rests-on``): columns ``set``, ``document``, ``section``,
        ``section_heading``, ``statement``, ``kind``, ``text``, ``line``, ``direct``, ``depth``,
        ``path``. Needs pandas."""
        pandas = _pandas()
        body = self._get(f"/records/{quote(record_id, safe='')}/rests-on", set=set, direct=direct,
                         max_depth=max_depth)
        columns = ["set", "document", "section", "section_heading", "statement", "kind", "text", "line", "direct",
                   "depth", "path"]
        return pandas.DataFrame(body["results"], columns=columns)

    def documents_frame(self, set: str | None = None):
        """The ingested members as a pandas DataFrame (``GET /documents``): ``id``, ``set``,
        ``role``, ``title``, ``member_type``, ``format``, ``path``, ``sha256``, ``size``. Needs pandas."""
        pandas = _pandas()
        body = self._get("/documents", set=set)
        rows = body.get("data", body) if isinstance(body, dict) else body
        columns = ["id", "set", "role", "title", "member_type", "format", "path", "sha256", "size"]
        return pandas.DataFrame(rows, columns=columns)

    def ingest(self, *paths: str | Path, skip_invalid: bool = False, partial: bool = False,
               strict: bool = False) -> dict:
        """Upload member files to ``POST /sets``: each file as given (a member, an ``ARTIFACT.yaml``
        manifest or a ``.zip``), and every member file and manifest under each folder (recursively,
        hidden entries skipped), as the CLI's ``citegraph ingest`` reads them (the other files of a
        folder are not sent, so the answer does not name them), each named by its path below its
        folder's parent (``seeds/000_….txt``); ``skip_invalid``, ``partial`` and ``strict`` as its
        ``--skip-invalid``, ``--partial`` and ``--strict``.

        Returns
        -------
        dict
            The server's report: ``{"sets": [...], "documents": [{"path", "document", "status",
            "statements", "sections", "records", "citations", "error", "reason", "note"}, ...]}``.

        Raises
        ------
        ClientError
            No token or a wrong one (``UNAUTHENTICATED`` 401 / ``FORBIDDEN`` 403), a refused set
            (``INVALID_INPUT`` 422 …), a missing path (raised before anything is sent).
        """
        files = _upload_files([Path(p) for p in paths])
        if not files:
            raise ClientError(f"no member files under {', '.join(map(str, paths)) or '(nothing)'}",
                              code="INVALID_INPUT")
        fields = [("files", (name, path.read_bytes(), _media_type(name))) for name, path in files]
        params = {k: "true" for k, on in (("skip_invalid", skip_invalid), ("partial", partial), ("strict", strict))
                  if on} or None
        return self._request("POST", "/sets", files=fields, params=params).json()


def _param(value: Any) -> Any:
    return ("true" if value else "false") if isinstance(value, bool) else value


def _media_type(name: str) -> str:
    lower = name.lower()
    if lower.endswith(".zip"):
        return "application/zip"
    if lower.endswith(".md"):
        return "text/markdown"
    if lower.endswith((".yaml", ".yml")):
        return "application/yaml"
    return "text/plain"


_INTERNAL = ("app", "domain", "graph", "ingest", "queries", "render")
"""citegraph's own top-level packages, installed beside this one."""


def _internal(name: str):
    """citegraph's own module ``name`` (``ingest.files``), installed beside this package.

    Raises
    ------
    ImportError
        ``name`` or a module it imports resolves to something else, e.g. an ``ingest.py`` or a
        ``graph/`` folder in the current folder (which comes first on ``sys.path`` in a notebook);
        the message names what stands in the way.
    """
    import importlib
    import sys

    root = Path(__file__).resolve().parent.parent
    problem: str | None
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        problem = str(exc)
    else:
        if root in Path(getattr(module, "__file__", None) or "/").resolve().parents:
            return module  # its own, whatever else the notebook imported under those names (its app.py)
        problem = None
    strangers = sorted(str(Path(file).resolve()) for top in _INTERNAL  # those the failure names
                       if (problem is None or f"'{top}" in problem)
                       and (m := sys.modules.get(top)) is not None and (file := getattr(m, "__file__", None))
                       and root not in Path(file).resolve().parents)
    raise ImportError(f"citegraph could not import its own {name} from {root}"
                      + (f" ({problem})" if problem else "")
                      + (f": {', '.join(strangers)} stands in its way" if strangers else "")
                      + f"; a module or folder named {'/'.join(_INTERNAL)} in the current folder shadows "
                        "citegraph's packages of that name: rename it")


def _upload_files(paths: list[Path]) -> list[tuple[str, Path]]:
    """(upload name, file) for every file to send, named by its path below its folder's parent: a
    file found under a folder given (``seeds/000_….txt``), and a file given by path alike
    (``AGS-2026-08-20-SWAMP-01/result.md``), so members and manifests of different folders stay
    apart and a G0 prototype keeps the folder that names its run (GRAMMAR §0), as the CLI reads it."""
    member_files = _internal("ingest.files").member_files  # the CLI's own walk of a folder
    member_file = _internal("ingest.sets").member_file  # what it reads: member files and manifests
    out: list[tuple[str, Path]] = []
    for path in paths:
        if not path.exists():
            raise ClientError(f"no such file or folder: {path}", code="INVALID_INPUT")
        if path.is_dir():
            out.extend((p.relative_to(path.parent).as_posix(), p) for p in member_files([path])
                       if member_file(p.name))
        else:
            folder = Path(os.path.abspath(path)).parent.name  # `..` and `.` resolved, links not
            out.append((f"{folder}/{path.name}" if folder else path.name, path))
    return out
