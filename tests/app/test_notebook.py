"""The example notebook runs top to bottom (nbclient, an ipykernel of this interpreter) against a live
test server with a write token, ingesting the seeds through the API and answering the mission question."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from tests.conftest import ROOT
from tests.live_server import live_server

NOTEBOOK = ROOT / "examples" / "rests-on.ipynb"
TOKEN = "example-notebook-token"


def outputs(cell) -> str:
    """Everything a cell printed or displayed as text."""
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(out.data.get("text/plain", ""))
        elif out.output_type == "error":
            parts.append("\n".join(out.traceback))
    return "\n".join(parts)


@pytest.fixture
def server():
    with live_server(create_app(Settings(write_token=TOKEN), store=SQLiteStore(None))) as url:
        yield url


def test_example_notebook_runs_against_a_live_server(server, monkeypatch):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    assert notebook.cells[0].cell_type == "markdown" and len(notebook.cells) <= 12
    monkeypatch.setenv("CITEGRAPH_URL", server)
    monkeypatch.setenv("CITEGRAPH_WRITE_TOKEN", TOKEN)
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()

    code = [outputs(c) for c in notebook.cells if c.cell_type == "code"]
    assert "'status': 'ok'" in code[0]
    assert code[1].splitlines() == [
        "tolaria/synthesis          written    24 statements  82 citations",
        "tolaria/workflow-report    written    30 statements  62 citations",
        "talorys/synthesis          written    24 statements  76 citations"]
    assert "14 statements rest on RT-RTE-mcp-write: 12 direct, 2 transitive" in code[2]
    assert code[2].rstrip().splitlines()[-1].startswith("13 ")  # rows 0..13 of the table
    assert "DiGraph with 18 nodes and 17 edges" in code[3]
    assert "{'record': 1, 'statement': 14, 'named_reference': 1, 'section': 2}" in code[3]
    assert ("tolaria/synthesis#L16 rests on tolaria/RT-RTE-mcp-write through: workflow account -> Workflow account"
            " -> Selection and evidence boundary -> tolaria/workflow-report#L9") in code[3]
    assert "direct, by GraphQL: 12" in code[4]
