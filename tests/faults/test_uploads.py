"""Hostile quote uploads: refused with a field error before anything is parsed or written.

Each refused file carries a price row that would import if the file were accepted (the
control test imports the same row), so "nothing written" shows the check, not a bad row, stopped
it. After every refusal the catalog counts are unchanged and no file is left in MEDIA_ROOT or
in the folder Django streams large uploads to.
"""
from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.core.management import CommandError
from django.core.management import call_command
from django.urls import reverse

from catalog.importers import QuoteFileRejected
from catalog.importers import parse_quote_file
from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import QuoteImport
from catalog.models import Source

IMPORT_URL = "admin:catalog_pricepoint_import"
HEADER = ["kind", "slug", "amount", "currency", "as_of", "source"]
ROW = ["system", "dgx-h100", "420000", "USD", "2026-10-01", "ACME quote"]
OLE2_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # how a VBA project (and an old .xls) begins
GOOD_CSV = (",".join(HEADER) + "\n" + ",".join(ROW) + "\n").encode()
# Ten levels of ten references: "lol" 10^9 times, 3 GB of text if a parser expanded it.
BILLION_LAUGHS_DTD = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol0 "lol">\n'
    + "".join(f'<!ENTITY lol{level} "{f"&lol{level - 1};" * 10}">\n' for level in range(1, 10))
    + "]>\n"
)
# Room for a one-row workbook (about 4,900 bytes), small enough to exceed by a few rows.
UPLOAD_LIMIT_BYTES = 16_384
# Zeros deflate about 1,000 to 1: a 1.6 MB part adds some 1,600 bytes to the upload.
ZIP_BOMB_BYTES = 100 * UPLOAD_LIMIT_BYTES


def workbook_bytes(*rows: list[str]) -> bytes:
    """An .xlsx holding the header and ``rows`` (openpyxl writes strings inline in the sheet)."""
    workbook = openpyxl.Workbook()
    for row in (HEADER, *rows):
        workbook.active.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def rezipped(content: bytes, *, replace: dict[str, bytes] | None = None,
             add: dict[str, bytes] | None = None) -> bytes:
    """The workbook ``content`` with some parts replaced and others added, deflated."""
    replace = replace or {}
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(content)) as source:
        parts = {name: replace.get(name, source.read(name)) for name in source.namelist()}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in {**parts, **(add or {})}.items():
            target.writestr(name, data)
    return out.getvalue()


def with_xml_bomb(content: bytes, part: str) -> bytes:
    """The workbook with the billion-laughs DTD in ``part`` and its first string cell a reference."""
    with zipfile.ZipFile(io.BytesIO(content)) as source:
        xml = source.read(part).decode()
    body = xml.split("?>", 1)[1] if xml.startswith("<?xml") else xml
    body = body.replace("<t>", "<t>&lol9;", 1) if "<t>" in body else body
    return rezipped(content, replace={part: (BILLION_LAUGHS_DTD + body).encode()})


def unpacked_bytes(content: bytes) -> int:
    """What the parts of a zip archive declare they unpack to [bytes]; 0 when it is no archive."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            return sum(part.file_size for part in archive.infolist())
    except zipfile.BadZipFile:
        return 0


def catalog_counts() -> tuple[int, int, int]:
    return PricePoint.objects.count(), CloudOffering.objects.count(), Source.objects.count()


@pytest.fixture
def upload_dirs(settings, tmp_path) -> tuple[Path, Path]:
    """Empty MEDIA_ROOT and upload temp folder, and a 16,384-byte upload limit."""
    media, uploads = tmp_path / "media", tmp_path / "uploads"
    media.mkdir()
    uploads.mkdir()
    settings.MEDIA_ROOT = media
    settings.FILE_UPLOAD_TEMP_DIR = uploads
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_LIMIT_BYTES
    return media, uploads


def post_quote(client, name: str, content: bytes):
    return client.post(reverse(IMPORT_URL), {"file": SimpleUploadedFile(name, content)})


def assert_no_trace(before: tuple[int, int, int], upload_dirs: tuple[Path, Path]) -> None:
    assert catalog_counts() == before
    for folder in upload_dirs:
        assert list(folder.iterdir()) == []


def test_the_control_file_imports_its_one_price(admin_client, catalog, upload_dirs,
                                               django_capture_on_commit_callbacks):
    before = catalog_counts()

    with django_capture_on_commit_callbacks(execute=True):  # the import task runs inline here
        response = post_quote(admin_client, "quote.xlsx", workbook_bytes(ROW))

    assert response.status_code == 302
    assert catalog_counts()[0] == before[0] + 1


HOSTILE_FILES = {
    "xml-bomb-in-the-sheet": (
        "quote.xlsx", lambda: with_xml_bomb(workbook_bytes(ROW), "xl/worksheets/sheet1.xml"),
        "not a safe XLSX file: its XML declares entities, which a workbook never needs (an XML bomb?); "
        "it was not expanded"),
    "xml-bomb-in-the-workbook-part": (
        "quote.xlsx", lambda: with_xml_bomb(workbook_bytes(ROW), "xl/workbook.xml"),
        "not a safe XLSX file: its XML declares entities, which a workbook never needs (an XML bomb?); "
        "it was not expanded"),
    "macro-enabled-name": (
        "quote.xlsm", lambda: workbook_bytes(ROW), "expected a .csv or .xlsx file, got 'quote.xlsm'"),
    "vba-project-inside-an-xlsx": (
        "quote.xlsx", lambda: rezipped(workbook_bytes(ROW), add={"xl/vbaProject.bin": OLE2_SIGNATURE}),
        "contains macros (a VBA project); save it as a plain .xlsx workbook without them"),
    "zip-bomb-part": (
        "quote.xlsx", lambda: rezipped(workbook_bytes(ROW), add={"xl/padding.xml": bytes(ZIP_BOMB_BYTES)}),
        "not a safe XLSX file: it unpacks to {unpacked:,} bytes, more than the 163,840 a quote file may "
        "(a zip bomb?)"),
    "xlsx-that-is-csv-text": (
        "quote.xlsx", lambda: GOOD_CSV,
        "not a readable XLSX file: it is not a zip archive, as every .xlsx file is"),
    "csv-that-is-a-workbook": (
        "quote.csv", lambda: b"PK\x03\x04\x14\x00" + GOOD_CSV,
        r"not a CSV text file: it holds binary data ('\x03' at character 2)"),
    "csv-with-nul-bytes": (
        "quote.csv", lambda: GOOD_CSV + b"\x00" * 8,
        r"not a CSV text file: it holds binary data ('\x00' at character " + f"{len(GOOD_CSV)})"),
}


# Found only by reading the sheets, which the import job does: the upload is accepted, the job refused.
READ_BY_THE_JOB = {"xml-bomb-in-the-sheet", "xml-bomb-in-the-workbook-part"}


@pytest.mark.parametrize(("name", "make_content", "reason"), HOSTILE_FILES.values(), ids=HOSTILE_FILES)
def test_the_admin_refuses_a_hostile_file_with_the_reason_and_leaves_no_trace(
    admin_client, catalog, upload_dirs, name, make_content, reason, request,
    django_capture_on_commit_callbacks,
):
    content = make_content()
    before = catalog_counts()
    started = time.perf_counter()

    with django_capture_on_commit_callbacks(execute=True):  # the import task runs inline here
        response = post_quote(admin_client, name, content)

    elapsed_s = time.perf_counter() - started
    expected = "file: " + reason.format(unpacked=unpacked_bytes(content))
    if request.node.callspec.id in READ_BY_THE_JOB:
        assert response.status_code == 302
        job = QuoteImport.objects.get()
        assert (job.status, [f"{e['field']}: {e['reason']}" for e in job.errors]) == ("failed", [expected])
    else:
        assert response.status_code == 200
        assert response.context["form"].errors["file"] == [expected]
        assert not QuoteImport.objects.exists()
    assert_no_trace(before, upload_dirs)
    assert elapsed_s < 2  # an expanded bomb would take minutes and gigabytes


def test_the_admin_refuses_an_over_size_upload_and_deletes_its_temporary_file(
    admin_client, catalog, upload_dirs
):
    # A 44-byte header and 200 good rows of 90 bytes (with a 40-character note): 18,044 bytes.
    content = (",".join([*HEADER, "note"]) + "\n"
               + "".join(",".join([*ROW, "x" * 40]) + "\n" for _ in range(200))).encode()
    assert len(content) > UPLOAD_LIMIT_BYTES
    before = catalog_counts()

    response = post_quote(admin_client, "quote.csv", content)

    assert response.context["form"].errors["file"] == [
        "file: is 18,044 bytes; a quote file may have at most 16,384"]
    # Larger than FILE_UPLOAD_MAX_MEMORY_SIZE, so Django streamed it to disk; the file is gone.
    streamed = response.context["form"].files["file"]
    assert isinstance(streamed, TemporaryUploadedFile)
    assert Path(streamed.temporary_file_path()).parent == upload_dirs[1]
    assert_no_trace(before, upload_dirs)


def test_the_command_refuses_an_over_size_file_before_reading_it(catalog, upload_dirs, tmp_path):
    # Binary junk: were it read, the refusal would be about its content, not its size.
    path = tmp_path / "quote.csv"
    path.write_bytes(b"\x00\xff" * UPLOAD_LIMIT_BYTES)
    before = catalog_counts()
    err = io.StringIO()

    with pytest.raises(CommandError, match=r"quote.csv refused: 1 error\(s\); nothing was written"):
        call_command("load_catalog", file=path, stderr=err, stdout=io.StringIO())

    assert err.getvalue().splitlines() == ["file: is 32,768 bytes; a quote file may have at most 16,384"]
    assert_no_trace(before, upload_dirs)


def test_the_parser_itself_refuses_an_over_size_file(upload_dirs):
    with pytest.raises(QuoteFileRejected) as refused:
        parse_quote_file(file_name="quote.csv", content=GOOD_CSV * 200)

    assert [str(error) for error in refused.value.errors] == [
        f"file: is {len(GOOD_CSV) * 200:,} bytes; a quote file may have at most 16,384"]
