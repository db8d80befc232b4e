"""Safe zip extraction for uploaded sets: traversal, links, bombs."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from graph.errors import IngestError
from ingest.archive import ArchiveLimits, read_zip


def make_zip(entries: dict[str, bytes], *, link: str | None = None, method=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        for name, data in entries.items():
            z.writestr(name, data)
        if link:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, "/etc/passwd")
    return buf.getvalue()


def test_regular_files_sorted_dirs_and_macos_forks_skipped():
    data = make_zip({"b/runtime.md": b"r", "a/overview.md": b"o", "__MACOSX/a/._overview.md": b"x"})
    assert read_zip(data) == [("a/overview.md", b"o"), ("b/runtime.md", b"r")]


@pytest.mark.parametrize("name", ["../evil.md", "a/../../evil.md", "/etc/passwd", "C:/evil.md"])
def test_traversal_is_refused(name):
    with pytest.raises(IngestError, match="unsafe path"):
        read_zip(make_zip({name: b"x"}))


def test_symlink_is_refused():
    with pytest.raises(IngestError, match="symbolic link"):
        read_zip(make_zip({"a.md": b"x"}, link="link.md"))


def test_zip_bomb_is_refused_by_ratio():
    with pytest.raises(IngestError, match="expands too much"):
        read_zip(make_zip({"bomb.md": b"\0" * (4 * 1024 * 1024)}))


def test_total_size_and_count_limits():
    limits = ArchiveLimits(max_files=2, max_total_bytes=10, max_ratio=1e9)
    with pytest.raises(IngestError, match="3 files, over the limit of 2"):
        read_zip(make_zip({"a": b"1", "b": b"2", "c": b"3"}), limits=limits)
    with pytest.raises(IngestError, match="expands past 10 bytes"):
        read_zip(make_zip({"a": b"123456", "b": b"789012"}, method=zipfile.ZIP_STORED), limits=limits)


def test_not_a_zip():
    with pytest.raises(IngestError, match="not a zip archive"):
        read_zip(b"plain text", name="set.zip")


def test_an_entry_cut_short_is_damaged_naming_the_error_that_has_no_text():
    """An entry whose headers claim more bytes than the archive holds ends in zipfile's bare
    ``EOFError()``: the message names its type, not an empty reason."""
    data = bytearray(make_zip({"set/overview.md": b"hello"}, method=zipfile.ZIP_STORED))
    central = data.rfind(b"PK\x01\x02")
    for at in (18, 22, central + 20, central + 24):  # compressed and file size, local and central headers
        data[at:at + 4] = (5000).to_bytes(4, "little")
    with pytest.raises(IngestError) as caught:
        read_zip(bytes(data), name="set.zip")
    assert caught.value.message == "entry 'set/overview.md' of the archive is damaged: EOFError"
    source = caught.value.source
    assert source is not None and (source.path, source.line) == ("set.zip", 1)
