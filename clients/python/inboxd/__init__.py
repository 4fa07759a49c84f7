"""inboxd client for Python tests: create an inbox, wait for mail, get the code or link, simulate mail, send, search,
delete. Standard library only (urllib, json, dataclasses); Python 3.9 or newer.

    from inboxd import Client
    client = Client()                      # INBOXD_URL and INBOXD_KEY, or Client(url=..., key=...)
    inbox = client.create_inbox(label="ci-4711")
    code = inbox.verify(timeout_seconds=60).code

Every failure is an InboxdError with the HTTP status, the problem code and detail of inboxd's answer, and a hint.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

__version__ = "0.3.0"
__all__ = [
    "Address",
    "Client",
    "Inbox",
    "InboxdError",
    "InboxInfo",
    "Message",
    "SearchHit",
    "SearchResult",
    "SendResult",
    "SimulateResult",
    "Verification",
]

_HINTS = {
    400: "fix the request as the errors say",
    401: "pass a valid API key: Client(key=...) or INBOXD_KEY (at first start inboxd saves its admin key in inboxd-data/admin.key)",
    403: "this key may not do it: it is read-only, scoped to another label prefix, or not an admin key",
    404: "the inbox or message does not exist: deleted, expired (ttl_minutes), or outside the key's label scope",
    408: "no matching mail arrived in time: check that the application sent it to this address, or raise timeout_seconds",
    409: "the address is taken by another inbox: choose another local_part or address",
    413: "the request or message is larger than the server accepts",
    429: "too many requests or open waits for this key: slow down or retry after the time the server named",
    501: "this server is not configured for it: the detail names the flag to set",
    503: "the server is shutting down or its queue is full: retry in a moment",
}


class InboxdError(Exception):
    """A failed call: status (0 when no answer came), code (the problem code, or client_timeout, network,
    verify_timeout), detail, hint, the problem+json answer and the request ("POST /v1/inboxes")."""

    def __init__(self, request: str, status: int, code: str, detail: str, hint: str, problem: Optional[dict] = None):
        self.request = request
        self.status = status
        self.code = code
        self.detail = detail
        self.hint = hint
        self.problem = problem
        status_text = f"{status} " if status else ""
        super().__init__(f"{request} → {status_text}{code}: {detail}" + (f" ({hint})" if hint else ""))


@dataclass(frozen=True)
class Address:
    name: str
    address: str

    @staticmethod
    def of(d: Optional[dict]) -> Optional["Address"]:
        return Address(d.get("name", ""), d["address"]) if d else None


@dataclass(frozen=True)
class InboxInfo:
    inbox_id: str
    address: str
    label: Optional[str]
    ttl_minutes: int
    created_at: str
    expires_at: str
    messages_received: int
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def of(d: dict) -> "InboxInfo":
        return InboxInfo(d["inboxId"], d["address"], d.get("label"), d["ttlMinutes"], d["createdAt"], d["expiresAt"], d["messagesReceived"], d)


@dataclass(frozen=True)
class Message:
    message_id: str
    inbox_id: str
    sender: Optional[Address]
    to: List[Address]
    subject: str
    received_at: str
    text: Optional[str]
    html: Optional[str]
    otp: Optional[str]
    primary_link: Optional[str]
    direction: str
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def of(d: dict) -> "Message":
        v = d.get("verification") or {}
        return Message(
            d["messageId"],
            d["inboxId"],
            Address.of(d.get("from")),
            [Address.of(a) for a in d.get("to", [])],  # type: ignore[misc]
            d.get("subject", ""),
            d["receivedAt"],
            d.get("text"),
            d.get("html"),
            v.get("otp"),
            v.get("primaryLink"),
            d.get("direction", "inbound"),
            d,
        )


@dataclass(frozen=True)
class Verification:
    """status: verified, received (mail without a code or link) or awaiting_message. code and link are None when the
    mail had none; action is {"type", "value", "instruction"}: type the code, open the link, or read the mail."""

    status: str
    code: Optional[str]
    link: Optional[str]
    action: Dict[str, str]
    inbox_id: str
    address: str
    message_id: Optional[str]
    subject: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def of(d: dict) -> "Verification":
        v = d["verification"]
        m = d.get("message") or {}
        return Verification(
            d["status"],
            v.get("otp"),
            v.get("primaryLinkUnwrapped") or v.get("primaryLink"),
            d["agent"]["primaryAction"],
            d["email"]["inboxId"],
            d["email"]["address"],
            m.get("messageId"),
            m.get("subject"),
            d,
        )


@dataclass(frozen=True)
class SimulateResult:
    message_id: str
    inbox_id: str
    scenario: str
    subject: str
    expected_otp: Optional[str]
    expected_link: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def of(d: dict) -> "SimulateResult":
        e = d.get("expected") or {}
        return SimulateResult(d["messageId"], d["inboxId"], d["scenario"], d["subject"], e.get("otp"), e.get("primaryLink"), d)


@dataclass(frozen=True)
class SendResult:
    """recipients: one dict per recipient with address, kind, route (local/relay) and state (queued/sent/failed)."""

    message_id: str
    inbox_id: str
    subject: str
    rfc_message_id: str
    recipients: List[Dict[str, Any]]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def of(d: dict) -> "SendResult":
        return SendResult(d["messageId"], d["inboxId"], d["subject"], d["rfcMessageId"], d["recipients"], d)


@dataclass(frozen=True)
class SearchHit:
    message_id: str
    inbox_id: str
    inbox_address: Optional[str]
    subject: str
    snippet: Optional[str]
    score: float
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def of(d: dict) -> "SearchHit":
        return SearchHit(d["messageId"], d["inboxId"], d.get("inboxAddress"), d.get("subject", ""), d.get("snippet"), d["score"], d)


@dataclass(frozen=True)
class SearchResult:
    items: List[SearchHit]
    next_cursor: Optional[str]
    partial: Optional[Dict[str, Any]]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def of(d: dict) -> "SearchResult":
        return SearchResult([SearchHit.of(i) for i in d["items"]], d.get("nextCursor"), d.get("partial"), d)


def _body(**fields: Any) -> Dict[str, Any]:
    """snake_case keyword arguments → the API's camelCase JSON fields, leaving out None."""
    out = {}
    for k, v in fields.items():
        if v is None:
            continue
        head, *rest = k.split("_")
        out[head + "".join(w.capitalize() for w in rest)] = v
    return out


class Client:
    """The server at url (default INBOXD_URL) with key (default INBOXD_KEY). timeout: seconds a call may take
    (waits add their own timeout_seconds)."""

    def __init__(self, url: Optional[str] = None, key: Optional[str] = None, timeout: float = 30.0):
        url = url or os.environ.get("INBOXD_URL")
        key = key or os.environ.get("INBOXD_KEY")
        if not url:
            raise ValueError("inboxd client: no server URL: pass url=... or set INBOXD_URL (e.g. http://localhost:8025)")
        if not key:
            raise ValueError("inboxd client: no API key: pass key=... or set INBOXD_KEY (the admin key is in inboxd-data/admin.key)")
        self.url = url.rstrip("/")
        self._key = key
        self.timeout = timeout

    def request(self, method: str, path: str, query: Optional[dict] = None, body: Optional[dict] = None, timeout: Optional[float] = None) -> Any:
        """Any endpoint: JSON in, JSON out, InboxdError on failure."""
        target = path
        if query:
            q = {k: ("true" if v is True else "false" if v is False else v) for k, v in query.items() if v is not None}
            if q:
                target += "?" + urllib.parse.urlencode(q)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {self._key}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + target, data=data, method=method, headers=headers)
        wait = self.timeout if timeout is None else timeout
        label = f"{method} {target}"
        try:
            with urllib.request.urlopen(req, timeout=wait) as res:
                text = res.read().decode("utf-8")
                return json.loads(text) if text else None
        except urllib.error.HTTPError as err:
            raise _error(label, err) from None
        except (socket.timeout, TimeoutError) as err:
            raise InboxdError(
                label, 0, "client_timeout", f"no answer from {self.url} within {wait} s", "is inboxd running and reachable there? raise timeout"
            ) from err
        except urllib.error.URLError as err:
            if isinstance(err.reason, (socket.timeout, TimeoutError)):
                raise InboxdError(label, 0, "client_timeout", f"no answer from {self.url} within {wait} s", "raise timeout") from err
            raise InboxdError(
                label, 0, "network", f"could not reach inboxd at {self.url}: {err.reason}", "start the server or set INBOXD_URL to where it listens"
            ) from err

    def create_inbox(self, label: Optional[str] = None, ttl_minutes: Optional[int] = None, local_part: Optional[str] = None, **more: Any) -> "Inbox":
        """A fresh inbox. label groups the inboxes of one CI run; ttl_minutes (default 60) removes it later."""
        d = self.request("POST", "/v1/inboxes", body=_body(label=label, ttl_minutes=ttl_minutes, local_part=local_part, **more))
        return Inbox(self, InboxInfo.of(d))

    def get_inbox(self, inbox_id: str) -> "Inbox":
        return Inbox(self, InboxInfo.of(self.request("GET", f"/v1/inboxes/{urllib.parse.quote(inbox_id)}")))

    def wait_for_message(
        self,
        inbox_id: str,
        timeout_seconds: int = 30,
        subject_contains: Optional[str] = None,
        sender: Optional[str] = None,
        since: Optional[str] = None,
    ) -> Message:
        """The newest matching message after since, at once or as soon as it arrives. Nothing within timeout_seconds
        (at most 120) → InboxdError code wait_timeout (408). sender: a substring of the From name or address."""
        query = {"timeoutSeconds": timeout_seconds, "subjectContains": subject_contains, "from": sender, "since": since}
        d = self.request("GET", f"/v1/inboxes/{urllib.parse.quote(inbox_id)}/wait", query=query, timeout=timeout_seconds + self.timeout)
        return Message.of(d)

    def verify(self, inbox_id: str, timeout_seconds: int = 60, service: Optional[str] = None, **more: Any) -> Verification:
        """Waits for the verification mail and answers its code, link and action. Nothing within timeout_seconds →
        InboxdError code verify_timeout. Mail without a code or link → status "received", code and link None."""
        body = _body(inbox_id=inbox_id, timeout_seconds=timeout_seconds, service=service, **more)
        d = self.request("POST", "/v1/agent/verify", body=body, timeout=timeout_seconds + self.timeout)
        if d["status"] == "timeout":
            again = d.get("alreadyHandedOut")
            earlier = f"; a matching message did arrive but an earlier verify handed it out already: pass since={again['since']}" if again else ""
            raise InboxdError(
                "POST /v1/agent/verify",
                200,
                "verify_timeout",
                f"no mail with a code or link reached {d['email']['address']} within {timeout_seconds} s{earlier}",
                _HINTS[408],
            )
        return Verification.of(d)

    def simulate(self, inbox_id: str, scenario: str = "otp", **more: Any) -> SimulateResult:
        """Delivers a simulated mail (otp, magic_link, otp_and_link, welcome, attachment_only, custom)."""
        d = self.request("POST", f"/v1/inboxes/{urllib.parse.quote(inbox_id)}/simulate", body=_body(scenario=scenario, **more))
        return SimulateResult.of(d)

    def send(self, inbox_id: str, to: Any, subject: Optional[str] = None, text: Optional[str] = None, **more: Any) -> SendResult:
        """Sends from the inbox's own address: delivered locally to inboxes of this server, else through the relay."""
        body = _body(to=to, subject=subject, text=text, **more)
        return SendResult.of(self.request("POST", f"/v1/inboxes/{urllib.parse.quote(inbox_id)}/send", body=body))

    def search(self, q: str, inbox_id: Optional[str] = None, label: Optional[str] = None, limit: Optional[int] = None, **more: Any) -> SearchResult:
        """inboxd's query language over every inbox the key may see (or one, with inbox_id)."""
        query = _body(q=q, inbox_id=inbox_id, label=label, limit=limit, **more)
        return SearchResult.of(self.request("GET", "/v1/search", query=query))

    def delete_inbox(self, inbox_id: str, missing_ok: bool = False) -> bool:
        """Deletes the inbox and its mail. missing_ok: an inbox that is already gone is not an error (answers False)."""
        try:
            self.request("DELETE", f"/v1/inboxes/{urllib.parse.quote(inbox_id)}")
            return True
        except InboxdError as err:
            if missing_ok and err.status == 404:
                return False
            raise


class Inbox:
    """An inbox and the daily calls on it; info is the server's answer as created."""

    def __init__(self, client: Client, info: InboxInfo):
        self.client = client
        self.info = info
        self.id = info.inbox_id
        self.address = info.address

    def __repr__(self) -> str:
        return f"Inbox({self.id!r}, {self.address!r})"

    def wait_for_message(self, timeout_seconds: int = 30, **filters: Any) -> Message:
        return self.client.wait_for_message(self.id, timeout_seconds, **filters)

    def verify(self, timeout_seconds: int = 60, **more: Any) -> Verification:
        return self.client.verify(self.id, timeout_seconds, **more)

    def simulate(self, scenario: str = "otp", **more: Any) -> SimulateResult:
        return self.client.simulate(self.id, scenario, **more)

    def send(self, to: Any, subject: Optional[str] = None, text: Optional[str] = None, **more: Any) -> SendResult:
        return self.client.send(self.id, to, subject, text, **more)

    def search(self, q: str, **more: Any) -> SearchResult:
        return self.client.search(q, inbox_id=self.id, **more)

    def delete(self, missing_ok: bool = False) -> bool:
        return self.client.delete_inbox(self.id, missing_ok)


def _error(request: str, err: urllib.error.HTTPError) -> InboxdError:
    text = err.read().decode("utf-8", "replace")
    problem = None
    try:
        p = json.loads(text)
        if isinstance(p, dict) and isinstance(p.get("code"), str):
            problem = p
    except ValueError:
        pass
    detail = (problem or {}).get("detail") or text.strip()[:500] or str(err.reason)
    if problem and problem.get("errors"):
        detail += " [" + "; ".join(f"{e.get('path')}: {e.get('message')}" for e in problem["errors"]) + "]"
    hint = _HINTS.get(err.code, "a server error: see the inboxd log line with this request id" if err.code >= 500 else "")
    if err.headers.get("Retry-After"):
        hint += f" (Retry-After: {err.headers['Retry-After']} s)"
    if err.headers.get("X-Request-Id"):
        hint += f" [request id {err.headers['X-Request-Id']}]"
    return InboxdError(request, err.code, (problem or {}).get("code") or f"http_{err.code}", detail, hint, problem)
