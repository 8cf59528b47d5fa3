"""The content security policy in a real browser (Debian's Chromium against a real
server): every page does all it did before with no violation reported (the scripts,
the styles, the cards, the history's JSON data blocks, the chemin de fer WebSocket),
and no other site can frame a page."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.browser import Server, serve
from tests.web.test_browser import DESKTOP, play_round, register

WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve(tmp_path_factory.mktemp("csp"))


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    context = browser.new_context(viewport=DESKTOP, base_url=server.url, reduced_motion="reduce")
    context.set_default_timeout(15_000)
    context.add_init_script(WATCH)
    opened = context.new_page()
    yield opened
    context.close()


def no_violations(page: Page, console: list[str]) -> None:
    assert page.evaluate("window.__violations") == [], page.url
    assert [line for line in console if "Content Security Policy" in line] == []


def test_every_page_works_under_the_policy(page: Page) -> None:
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    register(page)
    no_violations(page, console)
    play_round(page, "punto-banco", "banker")  # table.js, its styles, the cards
    no_violations(page, console)
    page.goto("/history")  # each round drawn from its <script type="application/json">
    expect(page.locator(".recalled .recall-hands img.card").first).to_be_visible()
    page.locator(".replay").first.click()
    expect(page.locator(".recalled").first).to_have_attribute("data-replay", "same")
    no_violations(page, console)
    for path in ("/wallet", "/rules/punto-banco", "/rules/chemin-de-fer", "/chemin-de-fer"):
        page.goto(path)
        no_violations(page, console)
    page.goto("/chemin-de-fer/1")  # chemmy.js and its WebSocket (connect-src 'self')
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    no_violations(page, console)


class Plain(BaseHTTPRequestHandler):
    """A page with no policy of its own, for the control."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>plain</title><p>A page anyone may frame</p>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_no_other_site_can_frame_a_page(page: Page, server: Server) -> None:
    plain = ThreadingHTTPServer(("127.0.0.1", 0), Plain)
    threading.Thread(target=plain.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{plain.server_port}/")
        ours = f"{server.url}/login"
        control = f"http://127.0.0.1:{plain.server_port}/control"
        page.set_content(f'<iframe src="{ours}"></iframe><iframe src="{control}"></iframe>')
        page.wait_for_load_state("load")
        frames = {frame.name or frame.url: frame for frame in page.frames[1:]}
        urls = sorted(frames)
        # the page without a policy is framed; ours is refused (Chromium's error page)
        assert control in urls and ours not in urls
        assert any(url.startswith("chrome-error://") for url in urls)
        assert "A page anyone may frame" in frames[control].content()
    finally:
        plain.shutdown()
