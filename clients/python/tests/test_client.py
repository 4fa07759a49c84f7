"""The Python client against a running inboxd (INBOXD_URL, INBOXD_KEY): the daily calls, the fixture, errors and
timeouts."""

import os
import time

import pytest

from inboxd import Client, Inbox, InboxdError, Message, SearchResult, Verification
from inboxd.pytest_plugin import label_for


def test_the_fixture_labels_the_inbox_by_the_test_name(inbox, inboxd_client):
    assert isinstance(inbox, Inbox)
    assert inboxd_client.get_inbox(inbox.id).info.label == "test_the_fixture_labels_the_inbox_by_the_test_name"


def test_daily_calls(inboxd_client):
    inbox = inboxd_client.create_inbox(label="clients-py", ttl_minutes=5)
    assert inbox.info.label == "clients-py"
    sim = inbox.simulate("otp", service="github")
    assert sim.expected_otp

    message = inbox.wait_for_message(timeout_seconds=10)
    assert isinstance(message, Message)
    assert message.message_id == sim.message_id
    assert message.otp == sim.expected_otp
    assert message.sender is not None and "@" in message.sender.address

    code = inbox.verify(timeout_seconds=10)
    assert isinstance(code, Verification)
    assert (code.status, code.code, code.action["type"]) == ("verified", sim.expected_otp, "otp")

    magic = inbox.simulate("magic_link")
    link = inbox.verify(timeout_seconds=10)
    assert (link.code, link.link, link.action["type"]) == (None, magic.expected_link, "link")

    other = inboxd_client.create_inbox(label="clients-py", ttl_minutes=5)
    sent = inbox.send(other.address, subject="Python pelican report", text="Shipped today.")
    assert sent.recipients[0]["state"] == "sent"
    got = other.wait_for_message(timeout_seconds=10, subject_contains="pelican")
    assert got.subject == "Python pelican report"

    hits = inboxd_client.search("subject:pelican", label="clients-py")
    assert isinstance(hits, SearchResult)
    assert any(h.inbox_id == other.id and h.inbox_address == other.address for h in hits.items)
    assert other.search("pelican").items

    assert inbox.delete() is True
    assert other.delete() is True
    with pytest.raises(InboxdError) as gone:
        inboxd_client.get_inbox(inbox.id)
    assert (gone.value.status, gone.value.code) == (404, "not_found")
    assert "the inbox or message does not exist" in str(gone.value)
    assert inbox.delete(missing_ok=True) is False


def test_errors_say_what_to_do():
    bad = Client(key="ibx_NotAKey000000000000000000000000")
    with pytest.raises(InboxdError) as err:
        bad.create_inbox()
    assert (err.value.status, err.value.code) == (401, "unauthorized")
    assert str(err.value).startswith("POST /v1/inboxes → 401 unauthorized: ")
    assert "INBOXD_KEY" in str(err.value)

    with pytest.raises(InboxdError) as invalid:
        Client().create_inbox(ttl_minutes=0)
    assert (invalid.value.status, invalid.value.code) == (400, "validation_failed")
    assert "ttlMinutes" in invalid.value.detail

    with pytest.raises(InboxdError) as network:
        Client(url="http://127.0.0.1:9").create_inbox()
    assert (network.value.status, network.value.code) == (0, "network")
    assert "could not reach inboxd at http://127.0.0.1:9" in str(network.value)

    saved = os.environ.pop("INBOXD_KEY")
    try:
        with pytest.raises(ValueError, match="INBOXD_KEY"):
            Client()
    finally:
        os.environ["INBOXD_KEY"] = saved


def test_timeouts(inbox):
    with pytest.raises(InboxdError) as wait:
        inbox.wait_for_message(timeout_seconds=1)
    assert (wait.value.status, wait.value.code) == (408, "wait_timeout")

    with pytest.raises(InboxdError) as verify:
        inbox.verify(timeout_seconds=1)
    assert verify.value.code == "verify_timeout"
    assert inbox.address in str(verify.value)

    slow = Client(timeout=0.3)
    started = time.monotonic()
    with pytest.raises(InboxdError) as client_side:
        slow.request("GET", f"/v1/inboxes/{inbox.id}/wait", query={"timeoutSeconds": 30}, timeout=0.3)
    assert time.monotonic() - started < 5
    assert client_side.value.code == "client_timeout"


def test_label_for():
    assert label_for("test_x[ünï]") == "test_x[?n?]"
    assert len(label_for("x" * 300, "ci-1/")) == 200
