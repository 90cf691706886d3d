"""Replay the hardening probe's checks against a running server and print a table.

    python -m benchmarks.probe --base http://127.0.0.1:8000 --token KEY_A [--other-token KEY_B]

Rows (each names what was sent, what a hardened server answers and what this one did):

- outage and input edges: a NUL in a URL path (404), the health check, each of team A's
  scenarios evaluated (200: a broken cache is a miss);
- cross-team: team B's scenarios read, evaluated and exported with team A's token (404, the
  same answer as a missing id);
- injection: each scenario's FOCUS CSV holds no cell a spreadsheet runs as a formula, its
  SkyPilot YAML has the one top-level key ``kubernetes``;
- SSRF: every spelling of loopback and the metadata service a probe got past the webhook
  allowlist, through the outbound client the server uses (core/outbound.py) with the default
  settings (no network opened), against a canary socket on 127.0.0.1 that counts connections.

The exit status is the number of rows that failed.
"""
from __future__ import annotations

import argparse
import csv
import io
import socket
import sys
from dataclasses import dataclass

import requests
import yaml

FORMULA_STARTS = ("=", "+", "-", "@")
SSRF_HOSTS = ("2130706433", "0x7f000001", "0177.0.0.1", "127.1", "localhost.", "[::ffff:127.0.0.1]")


@dataclass
class Row:
    check: str
    expected: str
    got: str
    ok: bool


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


class Probe:
    def __init__(self, base: str, token: str, other_token: str | None) -> None:
        self.base = base.rstrip("/")
        self.session = self._session(token)
        self.other = self._session(other_token) if other_token else None
        self.rows: list[Row] = []

    @staticmethod
    def _session(token: str) -> requests.Session:
        session = requests.Session()
        session.trust_env = False
        session.headers["Authorization"] = f"Token {token}"
        return session

    def record(self, check: str, expected: str, got: str, ok: bool) -> None:
        self.rows.append(Row(check, expected, got, ok))

    def status(self, check: str, method: str, path: str, expected: tuple[int, ...],
               session: requests.Session | None = None) -> requests.Response | None:
        try:
            answer = (session or self.session).request(method, self.base + path, timeout=60)
        except requests.RequestException as exc:
            self.record(check, "/".join(map(str, expected)), f"no answer ({type(exc).__name__})", False)
            return None
        self.record(check, "/".join(map(str, expected)), str(answer.status_code),
                    answer.status_code in expected)
        return answer

    def scenario_ids(self, session: requests.Session) -> list[int]:
        answer = session.get(f"{self.base}/api/v1/scenarios/?page_size=20", timeout=60)
        return [row["id"] for row in answer.json().get("results", [])] if answer.ok else []

    def run(self) -> None:
        self.status("NUL in a URL path", "GET", "/api/v1/throughput-measurements/ab%00c/", (404,))
        self.status("health check", "GET", "/healthz", (200, 503))
        mine = self.scenario_ids(self.session)
        for pk in mine[:3]:
            self.status(f"evaluate scenario {pk}", "POST", f"/api/v1/scenarios/{pk}/evaluate/", (200, 400))
            self.injection(pk)
        if self.other is not None:
            for pk in [pk for pk in self.scenario_ids(self.other) if pk not in mine][:3]:
                for method, path in (("GET", f"/api/v1/scenarios/{pk}/"),
                                     ("POST", f"/api/v1/scenarios/{pk}/evaluate/"),
                                     ("GET", f"/api/v1/scenarios/{pk}/focus/")):
                    self.status(f"other team's {path}", method, path, (404,))
        self.ssrf()

    def injection(self, pk: int) -> None:
        focus = self.session.get(f"{self.base}/api/v1/scenarios/{pk}/focus/", timeout=120)
        if focus.ok:
            cells = [cell for row in csv.reader(io.StringIO(focus.text)) for cell in row]
            live = [cell for cell in cells if cell.startswith(FORMULA_STARTS) and not _number(cell)]
            self.record(f"FOCUS CSV of scenario {pk}", "0 formula cells", f"{len(live)} formula cells",
                        not live)
        sky = self.session.get(f"{self.base}/api/v1/scenarios/{pk}/price-sheets/skypilot-config.yaml",
                               timeout=120)
        if sky.ok:
            keys = list(yaml.safe_load(sky.text) or {})
            self.record(f"SkyPilot YAML of scenario {pk}", "keys: kubernetes", f"keys: {', '.join(keys)}",
                        keys == ["kubernetes"])

    def ssrf(self) -> None:
        from django.conf import settings

        if not settings.configured:
            settings.configure(OUTBOUND_ALLOWED_NETWORKS=[])
        from core.outbound import OutboundRefused
        from core.outbound import OutboundSession

        canary = socket.socket()
        canary.bind(("127.0.0.1", 0))
        canary.listen()
        canary.setblocking(False)
        port = canary.getsockname()[1]
        for host in SSRF_HOSTS:
            try:
                OutboundSession(timeout=(2, 2)).get(f"http://{host}:{port}/")
                got = "sent"
            except OutboundRefused:
                got = "refused"
            except requests.RequestException as exc:
                got = f"failed ({type(exc).__name__})"
            self.record(f"outbound to {host}", "refused", got, got == "refused")
        try:
            canary.accept()
            reached = True
        except BlockingIOError:
            reached = False
        canary.close()
        self.record("canary on 127.0.0.1 reached", "no", "yes" if reached else "no", not reached)

    def table(self) -> str:
        widths = [max(len(getattr(row, name)) for row in self.rows + [Row(name, name, name, True)])
                  for name in ("check", "expected", "got")]
        lines = [f"{'check':<{widths[0]}}  {'expected':<{widths[1]}}  {'got':<{widths[2]}}  ok"]
        for row in self.rows:
            lines.append(f"{row.check:<{widths[0]}}  {row.expected:<{widths[1]}}  {row.got:<{widths[2]}}  "
                         f"{'yes' if row.ok else 'NO'}")
        failed = sum(not row.ok for row in self.rows)
        lines.append(f"{len(self.rows)} checks, {failed} failed")
        return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="an API token of a member of team A")
    parser.add_argument("--other-token", help="an API token of a member of team B (cross-team rows)")
    args = parser.parse_args(argv)
    probe = Probe(args.base, args.token, args.other_token)
    probe.run()
    print(probe.table())
    return sum(not row.ok for row in probe.rows)


if __name__ == "__main__":
    sys.exit(main())
