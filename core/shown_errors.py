"""Error text a user is shown, without the server's file system: a path in an exception
("[Errno 2] No such file or directory: '/srv/mirror/aws/offer.json'") says where the service
keeps its files. The full text goes to the log; the user reads the file's name only.
"""
from __future__ import annotations

import re

# An absolute, home or relative path, or a file: URL, that does not continue a word or a URL
# (https://host/a/b keeps its path; "USD/h" is no path). Group "name" is its last component.
_PATH = re.compile(
    r"(?:file://|(?<![\w/.:~-]))(?:~|\.{1,2})?/(?:[^\s'\"`,;:()\[\]/]+/)*(?P<name>[^\s'\"`,;:()\[\]/]+)"
)


def without_paths(text: str) -> str:
    """``text`` with every file system path cut to its last component: '…/offer.json'."""
    return _PATH.sub(lambda match: f"…/{match['name']}", text)
