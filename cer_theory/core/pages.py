"""Data embedded in an HTML page the toolkit writes: the one way to put JSON inside a ``<script>`` element.

A script element's text is not parsed as HTML, but the tokenizer still looks inside it for ``</script``, and
``<!--`` followed by ``<script`` switches it to the *script data double escaped* state, in which the element's own
``</script>`` no longer closes it (HTML Living Standard §13.2.5, Tokenization: the script data states). A page whose
event data holds ``<!--<script>`` then swallows the rest of the document into one script and stops working.
Escaping only ``</`` is not enough. :func:`script_json` writes every ``<``, ``>`` and ``&`` as a JSON ``\\u``
escape, so none of the sequences the tokenizer looks for can occur, and U+2028/U+2029 too (line
terminators in older JavaScript string literals). The escapes occur only inside JSON strings (no JSON token
outside a string contains these characters), so ``JSON.parse`` gives back exactly the data.

Text shown in the page's markup goes through :func:`html_text`: HTML-escaped, and a lone surrogate (which a JSON
stream can hold, ``"\\ud800"``, but UTF-8 cannot encode) shown as U+FFFD, as a browser shows undecodable bytes, so
that writing the page never fails on it.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_TABLE = str.maketrans(_ESCAPES)
_SURROGATE = re.compile("[\ud800-\udfff]")


def script_json(data: Any) -> str:
    """``data`` as JSON text safe to place between ``<script type="application/json">`` and ``</script>`` (or in
    any script element): ``JSON.parse`` of the element's text is ``data``."""
    encoded = json.dumps(data, ensure_ascii=False).translate(_TABLE)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)  # (JSON's own escape: the same string)


def html_text(value: str) -> str:
    """``value`` as text in HTML markup or a quoted attribute: ``& < > " '`` escaped, lone surrogates shown as
    U+FFFD."""
    return html.escape(_SURROGATE.sub("\ufffd", value), quote=True)


__all__ = ["html_text", "script_json"]
