"""The package as users get it: ``pip wheel .`` (after ``scripts/vendor-js``) gives a wheel that
installs into a fresh venv, where ``citegraph serve`` serves ``/docs`` with its vendored assets
(no CDN) and ``from citegraph import Client, __version__`` works beside a user's own ``app.py``.

Slow (a build and a fresh install, about a minute with pip's cache): marked ``slow``, so the fast
loop skips it with ``-m "not slow"``; ``make test`` (``scripts/test``) runs it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import zipfile

import httpx
import pytest

from tests.conftest import ROOT
from tests.live_server import free_port

VENDOR = ROOT / "app" / "embed" / "static" / "vendor"
ASSET = "swagger-ui/swagger-ui-bundle.js"

pytestmark = pytest.mark.slow


def _clean_env() -> dict[str, str]:
    """The environment without this checkout's venv, PYTHONPATH or citegraph settings."""
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not k.startswith("CITEGRAPH_")}


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh venv holding only the wheel built from this checkout (and its dependencies)."""
    assert (VENDOR / ASSET).is_file(), "the vendored assets are missing: run scripts/vendor-js (make install does)"
    where = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(ROOT), "-w",
                            str(where / "dist")], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    (wheel,) = (where / "dist").glob("citegraph-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert f"app/embed/static/vendor/{ASSET}" in names and "citegraph/__init__.py" in names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "scripts/", "corpus/"))]
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True, timeout=300)
    install = subprocess.run([str(where / "venv" / "bin" / "pip"), "install", "--quiet", str(wheel)],
                             capture_output=True, text=True, timeout=900, env=_clean_env())
    assert install.returncode == 0, install.stderr
    return where / "venv"


def test_from_citegraph_import_client_works_in_the_fresh_venv_beside_a_users_app_py(venv, tmp_path):
    (tmp_path / "app.py").write_text("MINE = True\n")
    run = subprocess.run([str(venv / "bin" / "python"), "-c",
                          "from citegraph import Client, __version__; import app, citegraph; "
                          "print(__version__, Client.__module__, app.MINE, citegraph.__file__)"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60, env=_clean_env())
    assert run.returncode == 0, run.stderr
    version, module, mine, path = run.stdout.split()
    assert (version, module, mine) == ("0.1.0", "citegraph.client", "True")
    assert path.startswith(str(venv)) and "site-packages" in path  # the installed package, not this checkout


def test_citegraph_serve_from_the_wheel_serves_docs_and_their_assets_offline(venv, tmp_path):
    port = free_port()
    server = subprocess.Popen([str(venv / "bin" / "citegraph"), "serve", "--port", str(port), "--home",
                               str(tmp_path / "home")], cwd=tmp_path, env=_clean_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "citegraph serve did not start"
            time.sleep(0.2)
        docs = httpx.get(f"{base}/docs")
        assert docs.status_code == 200
        sources = re.findall(r'(?:src|href)="([^"]+)"', docs.text)
        assert f"/embed/static/vendor/{ASSET}" in sources
        assert [s for s in sources if s.startswith(("http:", "https:", "//"))] == []  # nothing from elsewhere
        assert "default-src 'self'" in docs.headers["content-security-policy"]
        asset = httpx.get(f"{base}/embed/static/vendor/{ASSET}")
        assert asset.status_code == 200 and asset.content == (VENDOR / ASSET).read_bytes()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_the_editable_install_draws_no_setuptools_warning(tmp_path):
    """``pip install -e .`` (``make install``): with the packages named and the root as their
    directory, setuptools makes a plain path entry and warns of nothing (before: "Please be careful
    with folders in your working directory with the same name as your package")."""
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=300)
    pip = str(tmp_path / "venv" / "bin" / "pip")
    subprocess.run([pip, "install", "--quiet", "--upgrade", "pip"], check=True, timeout=300, env=_clean_env())
    # as the Makefile does: an older pip (venv's own) does not pass setuptools' warnings on
    install = subprocess.run([pip, "install", "--no-deps", "-e", str(ROOT)],
                             capture_output=True, text=True, timeout=600, env=_clean_env())
    assert install.returncode == 0, install.stderr
    said = install.stdout + install.stderr
    assert "Successfully installed citegraph-0.1.0" in said
    assert [line for line in said.splitlines() if "arning" in line or "careful" in line] == []
    (pth,) = (tmp_path / "venv").glob("lib/python*/site-packages/__editable__.citegraph-*.pth")
    assert pth.read_text().strip() == str(ROOT)
