"""A :class:`~cer_theory.stepper.frames.Run` as one self-contained HTML page: no network, no CDN.

The page holds the drawing(s) as inline SVG and the frames as JSON; a few lines of script shade the active
nodes (``data-active``), emphasise the edges just taken (``data-taken``), mark new nodes (``data-new``), move
the mark on the stream ribbon and fill the tables. Keys: → / ← (or n / p) step, Home / End jump; a slider and
two buttons do the same. In Jupyter the same page is shown in an ``iframe`` (``srcdoc``), which is what makes
it interactive without a kernel-side widget library (docs/decisions.md D211).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from cer_theory.core.outputs import write_output
from cer_theory.core.pages import html_text, script_json

if TYPE_CHECKING:
    from cer_theory.stepper.frames import Run

_STYLE = """
body { font-family: Helvetica, Arial, sans-serif; font-size: 18px; margin: 1em; color: #222; }
h1 { font-size: 1.2em; margin: 0 0 .4em 0; }
#controls { margin: .4em 0; display: flex; gap: .6em; align-items: center; }
#controls input[type=range] { flex: 1; max-width: 30em; }
#ribbon { display: flex; flex-wrap: wrap; gap: 3px; margin: .4em 0; }
#ribbon span { border: 1px solid #bbb; border-radius: 3px; padding: 2px 6px; font-size: .85em; background: #fafafa; }
#ribbon span.read { background: #eee; color: #777; }
#ribbon span.current { background: #ffca28; border-color: #c79100; color: #000; font-weight: bold; }
#drawing svg { width: 100%; max-width: 100%; height: auto; max-height: var(--room, 60vh) !important; }
#drawing g.node[data-active="1"] ellipse:first-of-type, #drawing g.node[data-active="1"] polygon { fill: #ffe082; }
#drawing g.node[data-new="1"] ellipse, #drawing g.node[data-new="1"] polygon { stroke: #d32f2f; stroke-width: 2.5; }
#drawing g.edge[data-taken="1"] path { stroke: #d32f2f; stroke-width: 2.5; }
#drawing g.edge[data-taken="1"] polygon { fill: #d32f2f; stroke: #d32f2f; }
#drawing g.edge[data-taken="1"] text { fill: #d32f2f; font-weight: bold; }
table { border-collapse: collapse; margin: .3em 0 .8em 0; font-size: .9em; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; font-family: monospace; }
th { background: #f3f3f3; font-family: Helvetica, Arial, sans-serif; }
.panels { display: flex; gap: 2em; flex-wrap: wrap; }
#work { color: #555; font-size: .9em; }
.keys { color: #777; font-size: .8em; }
"""

_SCRIPT = """
(function () {
  const run = JSON.parse(document.getElementById('run-data').textContent);
  const frames = run.frames;
  let k = 0;
  const slider = document.getElementById('slider');
  slider.max = frames.length - 1;
  function titleOf(g) { const t = g.querySelector('title'); return t ? t.textContent : ''; }
  function fill(id, rows, empty) {
    const body = document.getElementById(id);
    body.innerHTML = '';
    if (!rows.length) { const tr = body.insertRow(); const td = tr.insertCell(); td.colSpan = 2; td.textContent = empty; return; }
    for (const r of rows) { const tr = body.insertRow(); for (const c of r) { tr.insertCell().textContent = c; } }
  }
  function show(i) {
    k = Math.max(0, Math.min(frames.length - 1, i));
    const f = frames[k];
    slider.value = k;
    document.body.dataset.frame = k;
    document.getElementById('position').textContent =
      f.position === null ? 'start (nothing read yet)'
        : 'position ' + f.position + ' (event ' + (f.position + 1) + ' of ' + run.events.length + ')';
    const drawing = document.getElementById('drawing');
    const svg = f.svg !== null ? f.svg : run.svg;
    if (drawing.dataset.shown !== String(svg === run.svg ? -1 : k)) {
      drawing.innerHTML = svg || '';
      drawing.dataset.shown = String(svg === run.svg ? -1 : k);
    }
    const active = new Set(f.active), isNew = new Set(f.new);
    const taken = new Set(f.taken.map(e => e[0] + '->' + e[1]));
    drawing.querySelectorAll('g.node').forEach(g => {
      g.dataset.active = active.has(titleOf(g)) ? '1' : '0';
      g.dataset.new = isNew.has(titleOf(g)) ? '1' : '0';
    });
    drawing.querySelectorAll('g.edge').forEach(g => { g.dataset.taken = taken.has(titleOf(g)) ? '1' : '0'; });
    document.querySelectorAll('#ribbon span').forEach((s, j) => {
      s.className = f.position === null ? '' : j === f.position ? 'current' : j < f.position ? 'read' : '';
    });
    fill('rows', f.rows, 'no active run');
    fill('outputs', f.outputs.map(o => [o]), 'none');
    document.getElementById('work').textContent = f.work;
    fit();
  }
  // The drawing fills the width and at most 60% of the screen's height, so that the tables stay in view; inside
  // a notebook's iframe the screen is the notebook's window (the iframe itself is as tall as its content).
  function frameOf() { try { return window.frameElement; } catch (e) { return null; } }
  function room() {
    let h = window.innerHeight;
    const frame = frameOf();
    if (frame) { try { h = window.parent.innerHeight; } catch (e) { h = 800; } }
    document.documentElement.style.setProperty('--room', Math.round(0.6 * h) + 'px');
  }
  // Inside an iframe (Jupyter: srcdoc, same origin), the page sets the frame's height to its own: nothing below
  // the fold, no scroll bar that would hide the controls.
  function fit() {
    const frame = frameOf();
    if (!frame) return;
    const body = document.body;
    const h = Math.ceil(body.getBoundingClientRect().bottom + window.scrollY + parseFloat(getComputedStyle(body).marginBottom));
    if (Math.abs(frame.getBoundingClientRect().height - h) > 1) frame.style.height = h + 'px';
  }
  room();
  window.addEventListener('resize', () => { room(); fit(); });
  if (window.ResizeObserver) new ResizeObserver(fit).observe(document.body);
  document.getElementById('prev').onclick = () => show(k - 1);
  document.getElementById('next').onclick = () => show(k + 1);
  slider.oninput = () => show(Number(slider.value));
  document.addEventListener('keydown', e => {
    if (e.key === 'ArrowRight' || e.key === 'n') { show(k + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft' || e.key === 'p') { show(k - 1); e.preventDefault(); }
    else if (e.key === 'Home') { show(0); e.preventDefault(); }
    else if (e.key === 'End') { show(frames.length - 1); e.preventDefault(); }
  });
  show(0);
})();
"""


def run_data(run: Run) -> dict[str, object]:
    """What the page's script reads: the run's events, drawing and frames, as JSON values."""
    return {"model": run.model, "events": list(run.events), "svg": run.svg,
            "frames": [{"position": f.position, "active": sorted(f.active), "taken": sorted(f.taken),
                        "new": sorted(f.new), "rows": [[r.where, r.carries] for r in f.rows],
                        "outputs": list(f.outputs), "svg": f.svg, "work": f.work} for f in run.frames]}


def _data(run: Run) -> str:
    """The run as JSON for the script, escaped by the one function every page uses (``core.pages``): no event,
    label or formula can close the script element or change how the browser reads it."""
    return script_json(run_data(run))


def page(run: Run) -> str:
    """The self-contained HTML page of ``run``."""
    ribbon = "".join(f"<span title='position {k}'>{k}: {html_text(e)}</span>" for k, e in enumerate(run.events))
    carries = {"ACEA": "registers ν and bags μ", "SRT": "registers and marked positions",
               "tECS": "union-list entries", "CCES": "list (first, last)"}.get(run.model, "partial valuation μ")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html_text(run.title)}</title>
<style>{_STYLE}</style></head>
<body data-frame="0">
<h1>{html_text(run.model)} run: {html_text(run.title)}</h1>
<div id="controls"><button id="prev" title="previous (←)">◀</button><button id="next" title="next (→)">▶</button>
<input id="slider" type="range" min="0" value="0" aria-label="position"><strong id="position"></strong></div>
<div class="keys">keys: → / ← step, Home / End jump</div>
<div id="ribbon">{ribbon}</div>
<div id="drawing"></div>
<div id="work"></div>
<div class="panels">
<div><h2 style="font-size:1em">active runs</h2><table><thead><tr><th>where</th><th>{html_text(carries)}</th></tr></thead>
<tbody id="rows"></tbody></table></div>
<div><h2 style="font-size:1em">outputs at this position</h2><table><tbody id="outputs"></tbody></table></div>
</div>
<script id="run-data" type="application/json">{_data(run)}</script>
<script>{_SCRIPT}</script>
</body></html>
"""


def embedded(run: Run) -> str:
    """The page inside an ``iframe`` for Jupyter and exported notebooks (click it, then use the keys).

    The page's script sets the frame's height to its content at every step (docs/decisions.md D395); the height
    given here is only what a viewer that runs no script shows, an estimate on the generous side."""
    height = 480 + 30 * max((len(f.rows) for f in run.frames), default=1)
    return (f'<iframe srcdoc="{html_text(page(run))}" style="width: 100%; height: {min(height, 900)}px;'
            f' border: 1px solid #ddd" title="{html_text(run.title)}"></iframe>')


def write_page(run: Run, path: str | os.PathLike[str]) -> None:
    """Write the page to ``path``: aside in the same folder, then renamed into place, with the mode the umask gives
    (:mod:`cer_theory.core.outputs`)."""
    write_output(path, page(run))
