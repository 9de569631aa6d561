"""Answers that are not the API's, said in a few words: a web page named by its <title> (never
shown), a refusal no wait will change (a spent quota, an unpaid bill), the start of a body that is
not JSON. Nothing here talks to the network; the bodies have been read (capped) already.
"""

from __future__ import annotations

import html
import re

import requests

from ayder_cli.llm.wire_types import LLMError

# What a spent quota or an unpaid bill says (OpenAI's 429 insufficient_quota, OpenRouter's and DeepSeek's 402):
# no wait makes the request pass. Not "billing" alone: OpenAI's plain rate limit links its billing page too.
_QUOTA_WORDS = ("insufficient_quota", "insufficient credits", "insufficient_credits", "insufficient balance",
                "more credits", "payment required")


def out_of_quota(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _QUOTA_WORDS)


def is_html(response: requests.Response) -> bool:
    kind = response.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
    return kind in ("text/html", "application/xhtml+xml")


def is_json(response: requests.Response) -> bool:
    """Labelled JSON: to a streamed request, the whole answer of a server that ignores "stream"."""
    kind = response.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.I | re.S)


def html_title(response: requests.Response) -> str | None:
    """None unless the (read) body is an HTML page; then its <title> as one short safe line ('' if none)."""
    head = response.content.lstrip()[:15].lower()
    if head.startswith((b"{", b"[")) or not (is_html(response) or head.startswith((b"<!doctype html", b"<html"))):
        return None  # JSON under a wrong Content-Type still says what failed
    found = _TITLE.search(response.content[:65536])
    title = html.unescape(found.group(1).decode("utf-8", "replace")) if found else ""
    return "".join(ch for ch in " ".join(title.split()) if ch.isprintable())[:80]


def html_page_error(url: str, status: int, title: str) -> LLMError:
    """A web page where the API should answer (a proxy's 502, a web UI's start page): named, never shown."""
    named = f", {title!r}," if title else ""
    return LLMError(f"got an HTML page{named} from {url} (HTTP {status}): is this the API's URL?", None, status)


def describe_body(response: requests.Response) -> str:
    """What a body that is not JSON holds, in a few words: an HTML page's title, the start of a text."""
    title = html_title(response)
    if title is not None:
        return f"an HTML page, {title!r}" if title else "an untitled HTML page"
    text = " ".join(response.content[:400].decode("utf-8", "replace").split())
    text = "".join(ch for ch in text if ch.isprintable())
    if not text:
        return "an empty body"
    kind = response.headers.get("Content-Type", "").split(";", 1)[0].strip() or "a body"
    return f"{kind} {text[:60] + ('...' if len(text) > 60 else '')!r}"
