"""The example: sign up on inboxd's own rehearsal page with the `inbox` fixture's address, read the code from the
verification mail, type it back, and see the page confirm. (A browser test would fill the same form; here urllib
posts it.)"""

import os
import re
import urllib.parse
import urllib.request


def post_form(path, **fields):
    data = urllib.parse.urlencode(fields).encode()
    with urllib.request.urlopen(os.environ["INBOXD_URL"] + path, data=data, timeout=30) as res:
        return res.read().decode()


def test_signs_up_on_the_rehearsal_page(inbox):
    page = post_form("/v1/agent/test/signup", email=inbox.address)
    session = re.search(r'name="session" value="([^"]+)"', page).group(1)

    verification = inbox.verify(timeout_seconds=30)
    assert verification.action["type"] == "otp"

    page = post_form("/v1/agent/test/confirm", session=session, code=verification.code)
    assert 'data-result="verified"' in page
