"""The browser tests run the page under its real Content-Security-Policy (headers.py), so each
of them also shows that the policy blocks nothing the page needs.

:func:`watch` collects a page's CSP violations in ``page.csp_violations`` (the ``contexts``
fixture fails a test that saw one, as it does for a script error), and gives the page a
``wait_for_function`` that works under the policy: Playwright's own evaluates its expression
with ``eval`` in the page, which a policy without ``'unsafe-eval'`` refuses. This one asks
through ``evaluate_handle`` (the DevTools protocol, which no page policy restricts) until the
value is truthy.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # conftest skips the browser tests when Playwright is missing
    from playwright.sync_api import JSHandle, Page

#: Runs before the page's own scripts in every document (init scripts are not subject to the
#: page's policy) and hands each violation to the test.
REPORT = """
document.addEventListener("securitypolicyviolation", (e) => window.rrCspViolation(
  `${e.effectiveDirective} refused ${e.blockedURI || "inline"}`
  + ` at ${e.sourceFile}:${e.lineNumber}`));
"""
TIMEOUT_MS = 15_000  # the contexts' default (conftest.Contexts)
POLL_MS = 50


def watch(page: Page) -> Page:
    """``page`` with its CSP violations collected and an eval-free ``wait_for_function``."""
    violations: list[str] = []
    page.expose_function("rrCspViolation", lambda text: violations.append(text))
    page.add_init_script(REPORT)
    page.csp_violations = violations  # type: ignore[attr-defined]

    def wait_for_function(
        expression: str, *, arg: Any = None, timeout: float | None = None, **_: Any
    ) -> JSHandle:
        return wait_until(page, expression, arg, TIMEOUT_MS if timeout is None else timeout)

    page.wait_for_function = wait_for_function  # type: ignore[method-assign, assignment]
    return page


def wait_until(page: Page, expression: str, arg: Any, timeout_ms: float) -> JSHandle:
    """The handle of ``expression``'s value (a function is called with ``arg``) once truthy."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        handle = page.evaluate_handle(expression, arg)
        if handle.evaluate("(value) => !!value"):
            return handle
        handle.dispose()
        if time.monotonic() > deadline:
            raise PlaywrightTimeout(f"not true after {timeout_ms} ms: {expression}")
        page.wait_for_timeout(POLL_MS)
