"""Price refreshes people start: now, from the provider's feed or from a price list they upload.

Both the admin ("Refresh now") and ``POST /api/v1/price-refresh-jobs/refresh/`` queue the same
task as the daily schedule; the job row it writes carries the task id they answer with, so
the caller finds its job (running, then succeeded or failed) by that id.

An uploaded price list is for sites without internet: it is the provider's own format, saved
under ``MEDIA_ROOT/price-lists/`` (workers share the media volume) and read as a local copy of
the feed: Azure and GCP page files (one or more), a Lambda or RunPod answer, or a zip of any of
them or of an AWS mirror (the folder holding ``offers/v1.0/aws/index.json``).
"""

from __future__ import annotations

import uuid
import zipfile
from collections.abc import Sequence
from pathlib import Path
from pathlib import PurePosixPath

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from catalog.refresh.feeds import FEED_PROVIDERS
from catalog.refresh.feeds import UPLOADED_PRICE_LISTS
from core import jobs
from core.queues import Queue

# An unpacked zip may hold an AWS mirror of a few regions; more than this is not a price list.
MAX_UNPACKED_BYTES = 2 * 1024**3
MAX_FILES = 1000


class PriceListRefused(ValueError):
    """An uploaded price list that cannot be read as the provider's feed; says why."""


class RefreshNotQueued(RuntimeError):
    """The task queue could not be reached: nothing will run, the caller should try again."""


def refresh_request(*, provider: str, location: str | None = None) -> str:
    """Queue a refresh of ``provider`` (from ``location``, else its live feed); the task id."""
    if provider not in FEED_PROVIDERS:
        raise ValueError(f"no price feed for provider {provider!r}; one of {', '.join(FEED_PROVIDERS)}")
    from catalog.tasks import refresh_prices_task  # the tasks module imports the refresh

    task_id = str(uuid.uuid4())
    if not jobs.send(refresh_prices_task, kwargs={"provider": provider, "location": location},
                     queue=Queue.REFRESH, task_id=task_id):
        raise RefreshNotQueued("the task queue cannot be reached; nothing was started, try again shortly")
    return task_id


def price_list_save(*, provider: str, files: Sequence[UploadedFile]) -> str:
    """Save an uploaded price list in a folder of its own; the location to refresh from.

    A zip is unpacked (no path may leave the folder); JSON and CSV files are kept by name.
    """
    if not files:
        raise PriceListRefused("choose the provider's price-list file(s)")
    folder = Path(settings.MEDIA_ROOT) / UPLOADED_PRICE_LISTS / f"{provider}-{uuid.uuid4().hex[:12]}"
    folder.mkdir(parents=True)
    for upload in files:
        name = PurePosixPath(upload.name or "").name
        if name.lower().endswith(".zip"):
            _unpack(upload, folder)
        elif name.lower().endswith((".json", ".csv")):
            with open(folder / name, "wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
        else:
            raise PriceListRefused(f"{name}: a price list is a .json or .csv file, or a .zip of them")
    if provider == "aws" and not (folder / "offers").is_dir():
        raise PriceListRefused("an AWS price list is a zip of a mirror: the folder holding "
                               "offers/v1.0/aws/index.json")
    files_saved = [path for path in folder.rglob("*") if path.is_file()]
    if provider in ("lambda", "runpod") and len(files_saved) != 1:
        raise PriceListRefused(f"a {provider} price list is one JSON answer, not {len(files_saved)} files")
    return str(folder)


def _unpack(upload: UploadedFile, folder: Path) -> None:
    try:
        archive = zipfile.ZipFile(upload)
    except zipfile.BadZipFile as exc:
        raise PriceListRefused(f"{upload.name}: not a zip file") from exc
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) > MAX_FILES:
            raise PriceListRefused(f"{upload.name}: holds {len(members):,} files; at most {MAX_FILES:,}")
        if sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
            raise PriceListRefused(f"{upload.name}: unpacks to more than {MAX_UNPACKED_BYTES // 1024**3} GB")
        for member in members:
            path = PurePosixPath(member.filename)
            if path.is_absolute() or ".." in path.parts:
                raise PriceListRefused(f"{upload.name}: {member.filename} points outside the archive")
            target = folder.joinpath(*path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, open(target, "wb") as out:
                out.write(source.read())
