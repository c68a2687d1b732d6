// The live drawing of an automaton answer: a moment after the student stops typing, the JSON in the answer field
// is sent to /draw (with the page's CSRF token) and the drawing, or why there is none, shown under the field.
// The SVG is shown as an image, so nothing in it runs.
(() => {
  const field = document.getElementById("answer");
  const shown = document.getElementById("drawing");
  if (!field || !shown || !field.dataset.draw) return;
  const token = document.querySelector("input[name=csrf]").value;
  let timer = null, asked = 0;
  const update = async () => {
    const text = field.value.trim();
    if (!text.startsWith("{")) { shown.replaceChildren(); return; }
    const mine = ++asked;
    const body = new FormData();
    body.append("csrf", token);
    body.append("answer", text);
    body.append("kind", field.dataset.draw);
    let answer;
    try {
      answer = await (await fetch("/draw", {method: "POST", body, credentials: "same-origin"})).json();
    } catch (e) {
      answer = {error: "no drawing (the server did not answer)"};
    }
    if (mine !== asked) return;  // a newer drawing is on its way
    if (answer.svg) {
      const img = document.createElement("img");
      img.alt = "your automaton";
      img.id = "drawing-image";
      img.src = "data:image/svg+xml;base64," + btoa(unescape(encodeURIComponent(answer.svg)));
      img.style.maxWidth = "100%";
      img.style.maxHeight = "24em";
      shown.replaceChildren(img);
    } else {
      const p = document.createElement("p");
      p.className = "error";
      p.textContent = answer.error || "no drawing";
      shown.replaceChildren(p);
    }
  };
  field.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, 500); });
  update();
})();
