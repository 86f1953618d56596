// readout.js writes the page's words about where it is: the lesson's facts (static and
// at this step) and the transport's position in the model's passes.
import { fact, token, passAt } from "./panels/common.js";
import { tid } from "./dom.js";

const LONG_FACT_CHARS = 60; // a fact's value longer than this is a sentence: it goes last, on its own line

// facts lists the lesson's facts (sim.Fact: a label in the lecture's words, a value)
// as term/value pairs under a heading; long values (sentences) go last.
export function facts(dl, list, heading) {
  if (!dl) return;
  const items = [], long = [];
  for (const f of list || []) {
    const v = f.value;
    if (v === null || v === undefined || typeof v === "object") continue;
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = f.label;
    dd.textContent = typeof v === "number" ? fact(v, !!f.measured) : typeof v === "boolean" ? (v ? "yes" : "no") : v.length === 1 ? token(v) : String(v);
    if (dd.textContent.length > LONG_FACT_CHARS) { dd.className = "long"; long.push(dt, dd); } else items.push(dt, dd);
  }
  items.push(...long); // sentences after the numbers
  if (!items.length) { dl.replaceChildren(); return; }
  if (!heading) { dl.replaceChildren(...items); return; }
  const h = document.createElement("dt");
  h.className = "head"; h.textContent = heading;
  dl.replaceChildren(h, document.createElement("dd"), ...items);
}

// readout writes the transport's position: the scrubber's step of its steps (the
// URL's step=), and, when the model's steps are not simply t = 1..T, first the pass and
// its own index, "backward pass, t = 15 / 30" or "pipeline, tokens (3 / 7)", with the
// scrubber's step small under it.
// The scrubber's aria-valuetext says the same, so a screen reader hears the pass and its
// t rather than the bare step number.
export function readout(store) {
  tid("step").textContent = String(store.step);
  tid("steps").textContent = String(store.steps);
  const pass = tid("pass-readout"), of = tid("step-of"), scrubber = tid("scrubber");
  const where = position(store), plain = where === null;
  of.dataset.plain = String(plain);
  if (plain) {
    pass.replaceChildren(Object.assign(document.createElement("i"), { textContent: "t" }), " = ");
    scrubber.setAttribute("aria-valuetext", `t = ${store.step} / ${store.steps}`);
    return;
  }
  pass.textContent = where;
  scrubber.setAttribute("aria-valuetext", `${where}, step ${store.step} / ${store.steps}`);
}

// position is where the scrubber's step falls in the model's passes, "backward pass,
// t = 15 / 30" or "pipeline, tokens (3 / 7)", or null when the steps are simply
// t = 1..T.
export function position(store) {
  const passes = store.passes || [];
  const plain = passes.length <= 1 && !passes[0]?.name && !passes[0]?.stages && (passes[0]?.index || "t") === "t";
  if (plain) return null;
  const at = passAt({ passes }, store.step);
  if (!at) return "before the first step";
  const p = at.pass, name = p.name ? `${p.name}, ` : "";
  if (p.stages) return `${name}${p.stages[at.k - 1]}${p.steps > 1 ? ` (${at.k} / ${p.steps})` : ""}`;
  return `${name}${p.index || "step"} = ${at.index} / ${at.of}`;
}
