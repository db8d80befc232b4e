"""The example notebook as shipped: stored with its outputs (so it reads on a code host), and run top
to bottom (nbclient, an ipykernel of this interpreter) exactly as a user runs it, against the server
its first cell starts (``citegraph serve`` on a free port and a fresh store, with a write token); it
ingests the seeds through the API and answers the mission question. The stored outputs are what a
run prints today: after changing the notebook, store its outputs again with
``.venv/bin/jupyter execute --inplace examples/rests-on.ipynb``."""

from __future__ import annotations

import copy

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import ROOT

NOTEBOOK = ROOT / "examples" / "rests-on.ipynb"


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


@pytest.fixture(scope="module")
def shipped():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    return notebook


@pytest.fixture(scope="module")
def executed(shipped):
    """The shipped notebook run in ``examples/`` with no server named: its first cell starts one."""
    with pytest.MonkeyPatch.context() as env:
        for name in ("CITEGRAPH_URL", "CITEGRAPH_WRITE_TOKEN", "CITEGRAPH_READ_TOKEN"):
            env.delenv(name, raising=False)
        notebook = copy.deepcopy(shipped)
        NotebookClient(notebook, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": str(ROOT / "examples")}}).execute()
    return notebook


def test_the_notebook_runs_as_shipped_against_the_server_its_first_cell_starts(shipped, executed):
    assert shipped.cells[0].cell_type == "markdown" and len(shipped.cells) <= 14
    assert "from citegraph import Client" in shipped.cells[1].source
    assert ".venv/bin/pip install --quiet -e '.[notebook]'" in shipped.cells[0].source
    code = [outputs(c) for c in executed.cells if c.cell_type == "code"]
    assert code[0] == "citegraph 0.1.0: the server answers 'ok'\n"
    # corpus/seeds: 000_… (tolaria synthesis), 001_… (tolaria workflow report), 003_… (talorys synthesis)
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
    assert code[5] == "stopped\n"  # its own server, stopped by its last cell


def test_the_notebook_is_stored_with_the_outputs_a_run_gives(shipped, executed):
    stored = [outputs(c) for c in shipped.cells if c.cell_type == "code"]
    assert all(stored) and all(c.execution_count for c in shipped.cells if c.cell_type == "code")
    assert stored == [outputs(c) for c in executed.cells if c.cell_type == "code"]
    frame = next(o for o in shipped.cells[5].outputs if o.output_type == "execute_result")
    assert "<table" in frame.data["text/html"]  # the DataFrame as a table on a code host
