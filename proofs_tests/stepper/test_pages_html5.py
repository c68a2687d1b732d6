"""Every HTML page the toolkit writes, fed adversarial text and parsed by an HTML5 parser (html5lib, the tokenizer
of the HTML standard): the stepper's page, its Jupyter ``iframe``, the strategies page and the exercise sheet.
Event values, formulas, titles and labels holding ``<!--<script>``, ``</script>``, ``&``, U+2028/9 and lone
surrogates must leave the page's structure as written — the same script elements, ending where expected, the
embedded JSON parsing back to the same data, the text shown as given — so the page's script still runs. (The
browser test, ``test_stepper_browser.py``, steps such a page in Chromium.)"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import html5lib
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.events import Event
from cer_theory.core.pages import script_json
from cer_theory.exercises.teacher import seed_sheet, sheet_html
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.cel.parser import parse
from cer_theory.stepper import Run, cea_run
from cer_theory.stepper.frames import Frame, Row
from cer_theory.stepper.page import _SCRIPT, embedded, page, run_data
from cer_theory.stepper.strategies import Row as StrategyRow, page as strategies_page

NASTY = ["<!--<script>", "</script>", "<!--", "-->", "<script>", "</SCRIPT >", "&amp;", "&", "<", ">", "\u2028",
         "\u2029", '"', "'", "\\", "]]>", "<![CDATA[", "</title>", "</style>", "<iframe>", "\ud800", "é", "\U0001F600"]
TEXT = st.lists(st.sampled_from(NASTY) | st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")),
                                                 max_size=4), max_size=6).map("".join)
"""Adversarial text: markup fragments, line separators, a lone surrogate, anything printable."""


def shown(value: str) -> str:
    """What a browser shows for ``value``: a lone surrogate cannot be written as UTF-8 and shows as U+FFFD."""
    return re.sub("[\ud800-\udfff]", "\ufffd", value)


def parsed(document: str) -> ET.Element:
    """The document as the HTML standard's tokenizer and tree builder read it (after a UTF-8 round trip, as it
    is written to disk)."""
    return html5lib.parse(document.encode("utf-8"), treebuilder="etree", namespaceHTMLElements=False,
                          transport_encoding="utf-8")


def text_of(element: ET.Element) -> str:
    return "".join(element.itertext())


def by_id(root: ET.Element, ident: str) -> ET.Element:
    found = root.find(f".//*[@id='{ident}']")
    assert found is not None, f"no element #{ident}: the page's structure changed"
    return found


def check_stepper_page(document: str, run: Run) -> None:
    root = parsed(document)
    scripts = root.findall(".//script")
    assert [s.get("id") for s in scripts] == ["run-data", None], "exactly the page's two script elements"
    data, code = scripts
    assert data.get("type") == "application/json"
    assert json.loads(data.text or "") == json.loads(json.dumps(run_data(run))), "the data as given"
    assert code.text == _SCRIPT, "the script element ends where the page's own script ends"
    body = root.find("body")
    assert body is not None and list(body)[-1] is code, "nothing after the script was swallowed into it"
    assert text_of(root.find(".//title")) == shown(run.title)
    assert text_of(root.find(".//h1")) == shown(f"{run.model} run: {run.title}")
    assert [text_of(s) for s in by_id(root, "ribbon")] == [shown(f"{k}: {e}") for k, e in enumerate(run.events)]
    for ident in ("controls", "drawing", "work", "rows", "outputs", "slider"):
        by_id(root, ident)


def a_run(model: str, title: str, events: list[str], where: str, carries: str, output: str, work: str) -> Run:
    frames = (Frame(None, frozenset({"0"}), frozenset(), (), ()),
              *(Frame(k, frozenset({"0"}), frozenset({("0", "0")}), (Row(where, carries),), (output,), work=work)
                for k in range(len(events))))
    return Run(model, title, tuple(events), frames, svg=None)


@settings(max_examples=300)
@given(TEXT, TEXT, st.lists(TEXT, min_size=1, max_size=4), TEXT, TEXT, TEXT, TEXT)
def test_the_stepper_page_keeps_its_structure_whatever_the_text(model: str, title: str, events: list[str],
                                                                where: str, carries: str, output: str,
                                                                work: str) -> None:
    run = a_run(model, title, events, where, carries, output, work)
    check_stepper_page(page(run), run)
    frame = parsed(embedded(run)).find(".//iframe")
    assert frame is not None and frame.get("srcdoc") == page(run), "the iframe holds the same page"


@settings(max_examples=200)
@given(st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3)))
def test_script_json_parses_back_to_the_same_data(data: Any) -> None:
    """The escaping is JSON's own: the text is valid JSON for the same value, and it never holds ``<``, ``>``,
    ``&``, U+2028/9 or a lone surrogate (which UTF-8 cannot hold)."""
    encoded = script_json(data)
    assert json.loads(encoded) == data
    assert not re.search("[<>&\u2028\u2029\ud800-\udfff]", encoded)
    encoded.encode("utf-8")


EVENT_VALUES = st.lists(st.sampled_from(["<!--<script>", "</script>", "&", "\u2028", "x", "<b>"]), min_size=1,
                        max_size=3).map("".join)


@settings(max_examples=12)
@given(EVENT_VALUES, st.lists(EVENT_VALUES, min_size=1, max_size=3))
def test_a_real_run_with_markup_in_its_events_and_formula(constant: str, values: list[str]) -> None:
    """Through the stepper itself: a formula whose constant and a stream whose values are markup; the drawing (SVG
    from Graphviz) and the events are embedded, and the page keeps its structure."""
    formula = f'T FILTER T.x = "{constant}" OR T'
    run = cea_run(compile_automaton(parse(formula)), [Event("T", x=v) for v in values], title=formula)
    check_stepper_page(page(run), run)


@settings(max_examples=100)
@given(TEXT, st.lists(TEXT, max_size=3), TEXT, TEXT, TEXT)
def test_the_strategies_page_keeps_its_structure(pattern: str, names: list[str], name: str, query: str,
                                                 output: str) -> None:
    row = StrategyRow(name, query, ((0, (output,)),), "an automaton", "<svg><g><title>0</title></g></svg>")
    root = parsed(strategies_page([row], pattern, names))
    assert root.findall(".//script") == []
    assert text_of(root.find(".//title")) == shown(f"strategies side by side: {pattern}")
    assert text_of(root.find(".//h1")) == shown(f"{pattern} over {' '.join(names)}")
    cells = root.findall(".//tbody/tr")[0]
    assert [text_of(c) for c in cells][:3] == [shown(name), shown(query), shown(f"at 0: {output}")]


@settings(max_examples=40)
@given(TEXT.map(lambda t: t + "\ud800<!--<script>"))
def test_the_exercise_sheet_keeps_its_structure(title: str) -> None:
    root = parsed(sheet_html(seed_sheet(0), title=title))
    assert root.findall(".//script") == []
    assert text_of(root.find(".//title")) == shown(title)
