"""The pytest plugin's inbox fixture in an inner pytest run: deleted after a failed test, kept with
--inboxd-keep-failed, and labelled with --inboxd-label-prefix."""

import re

import pytest


FAILING = """
def test_fails(inbox):
    print("INBOX=" + inbox.id + " LABEL=" + str(inbox.info.label))
    assert False
"""


@pytest.mark.parametrize("keep", [False, True])
def test_failed_test_inbox(pytester, inboxd_client, keep):
    pytester.makepyfile(FAILING)
    args = ["-p", "inboxd.pytest_plugin", "-p", "no:cacheprovider", "-s", "--inboxd-label-prefix", "ci-7/"]
    result = pytester.runpytest_subprocess(*args, *(["--inboxd-keep-failed"] if keep else []))
    result.assert_outcomes(failed=1)
    found = re.search(r"INBOX=(inb_\w+) LABEL=(\S+)", result.stdout.str())
    assert found, result.stdout.str()
    assert found.group(2) == "ci-7/test_fails"
    assert inboxd_client.delete_inbox(found.group(1), missing_ok=True) is keep
