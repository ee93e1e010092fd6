"""A request that got no answer says why in the words of where it was sent from: the page names its security
policy and CORS, the terminal neither (``hint`` of ``pyapp.providers.client.NetworkError``)."""

from __future__ import annotations

import pytest

from live_call import run_async
from pyapp.browser.worker_io import transport as page_transport
from pyapp.cli.terminal import urllib_transport
from pyapp.providers.client import NetworkError, RetryPolicy
from pyapp.providers.settings import ANTHROPIC, OPENAI_COMPATIBLE
from pyapp.providers.wire import HttpRequest


def request(url: str, provider: str = OPENAI_COMPATIBLE) -> HttpRequest:
    return HttpRequest("POST", url, {"content-type": "application/json"}, "{}", provider)


@pytest.mark.parametrize(("url", "provider", "said"), [
    ("http://127.0.0.1:9/v1/chat/completions", OPENAI_COMPATIBLE, "does it allow requests from this page (CORS)?"),
    ("https://models.example.org/v1/chat/completions", OPENAI_COMPATIBLE, "This site's security policy lets"),
    ("https://api.anthropic.com/v1/messages", ANTHROPIC, None),
])
def test_the_page_names_what_a_browser_may_block(worker, url, provider, said):
    worker.fail = RuntimeError("Failed to fetch")
    with pytest.raises(NetworkError) as failed:
        run_async(page_transport(request(url, provider)))
    assert (said in failed.value.hint) if said else failed.value.hint == ""


def test_the_terminal_speaks_of_the_server_not_of_a_page():
    send = urllib_transport(RetryPolicy(request_timeout_s=5))
    with pytest.raises(NetworkError) as failed:
        run_async(send(request("http://127.0.0.1:9/v1/chat/completions")))
    assert failed.value.hint == " Is the server running at that address?"
    with pytest.raises(NetworkError) as failed:
        run_async(send(request("http://127.0.0.1:9/v1/messages", ANTHROPIC)))
    assert failed.value.hint == ""
