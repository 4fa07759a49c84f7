"""pytest fixtures for inboxd: `inbox` (a fresh inbox per test, labelled by the test's name, deleted after it) and
`inboxd_client` (one Client per session, from INBOXD_URL and INBOXD_KEY).

Installed with the package, pytest loads this plugin by itself (entry point pytest11); from a source checkout use
`pytest -p inboxd.pytest_plugin`. Options: --inboxd-label-prefix (e.g. the prefix a scoped key requires) and
--inboxd-keep-failed (keep the inbox of a failed test for a look in the console).
"""

from __future__ import annotations

import re
from typing import Iterator

import pytest

from . import Client, Inbox


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("inboxd")
    group.addoption("--inboxd-label-prefix", default="", help="put before every inbox label (a scoped key's prefix)")
    group.addoption("--inboxd-keep-failed", action="store_true", help="keep the inbox of a failed test")


def label_for(name: str, prefix: str = "") -> str:
    """Labels are 1-200 printable ASCII characters: anything else becomes '?', long names are cut."""
    clean = re.sub(r"[^\x20-\x7e]", "?", prefix + name).strip()
    return (clean or prefix + "test")[:200]


_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[_FAILED] = report.failed


@pytest.fixture(scope="session")
def inboxd_client() -> Client:
    return Client()


@pytest.fixture
def inbox(inboxd_client: Client, request: pytest.FixtureRequest) -> Iterator[Inbox]:
    prefix = request.config.getoption("--inboxd-label-prefix")
    created = inboxd_client.create_inbox(label=label_for(request.node.name, prefix))
    yield created
    if request.config.getoption("--inboxd-keep-failed") and request.node.stash.get(_FAILED, False):
        return
    created.delete(missing_ok=True)
