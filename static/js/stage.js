// stage.js sorts presenter mode's stage (present.js binds it): which panels stay on
// the projector's stage, in which order, and the strip of chips that names the others.
//
// The order is the lesson's (lessons.Lesson.Stage: its main panels first), made aware
// of the model's phase: a main panel that draws per-step arrays but has none at the
// current step (BPTT's H during the backward pass, its gradients during the forward
// pass) is idle, and yields its place to the main panels that are changing. Idle comes
// from the arrays the panel's contract declares (idleAt), so no lesson states it twice.
import { $ } from "./dom.js";
import { zoomOf, timeOf } from "./panels/common.js";

const FLEX_LEAST = 110; // drawing px: common.js flexHeight's least; a chart is not squeezed below it to stay on the stage
export const STAGE_LAST = 100; // the stage rank of a panel that is not one of the lesson's main panels
const STAGE_IDLE = 50; // added to an idle main panel's rank: after the changing ones, before the other panels

// idleAt reports whether a panel draws per-step arrays (its contract says which) and
// none of them holds a value on the time axis at the view's step: nothing on it
// changes now. A panel with no per-step array (a fixed chart) is never idle, nor is
// any at step 0. v is the store's view (store.js).
export function idleAt(v, p) {
  const perStep = p.contract.arrays.filter((a) => a.per_step);
  if (!perStep.length || v.step < 1) return false; // before the first step nothing changes: the lesson's order
  const axis = { steps: v.steps, passes: v.passes, decl: (name) => perStep.find((a) => a.name === name) };
  return !perStep.some((a) => v.at(a.name, v.step) && timeOf(axis, a.name, v.step));
}

// stageRank is a panel's place on the stage: its rank among the lesson's main panels
// (data-stage, from 1), else STAGE_LAST, after all of them. phased: an idle main panel
// (p.idle, draw.js sets it from idleAt) comes after the changing ones.
export function stageRank(p, phased = false) {
  const rank = Number(p.el.dataset.stage);
  if (!rank) return STAGE_LAST;
  return phased && p.idle ? rank + STAGE_IDLE : rank;
}

// stageOrder is the panels' ids in the stage's order (phased as stageRank): what
// present.js compares to notice that the phase moved the panels.
export function stageOrder(panels, phased) {
  return panels.filter((p) => p.el.dataset.stage).sort((a, b) => stageRank(a, phased) - stageRank(b, phased)).map((p) => p.id).join(" ");
}

// offstage keeps on the stage the panels that fit wholly inside the panels' box, in
// order, each taking the first place it fits in (a panel too tall for the stage leaves
// it, and smaller ones after it may stay), and lists the others' titles in the strip.
// A chart or a map that starts on the stage but runs below it is given less height
// instead. A panel off the stage is not drawn (draw.js), so it is measured at the size
// it had when it last was; offstage reports whether the panels on the stage, or the
// height one of them is given, changed.
//
// A sort is stable: sorting again what it left (the same panels, drawn as they are)
// keeps the same panels on the stage. Something that changes no panel's place (the
// chips' labels, relabel) must not make it move them.
export function offstage(panels, strip, phased) {
  const onStage = panels.filter((p) => p.el.closest(".panels")) // the training section's loss chart is not a stage panel
    .sort((a, b) => stageRank(a, phased) - stageRank(b, phased)); // in the stage's order: the main panels first (stable: then the page's)
  const box = $(".panels").getBoundingClientRect();
  for (const p of onStage) p.el.classList.add("offstage");
  const off = [];
  let refit = false;
  for (const p of onStage) {
    p.el.classList.remove("offstage");
    const r = p.el.getBoundingClientRect();
    // A drawing of any height (a chart, a map) that starts on the stage but runs below
    // it is given the room left under its title, above its note, and drawn again (also
    // one drawn larger while off the stage); the next sort measures it. It is tried once
    // at each height: one that cannot shrink to it leaves the stage then.
    // A drawing not yet drawn at the height a sort gave it (sorted again before the
    // redraw it asked for) is judged once it is: it keeps its place till then.
    if (r.bottom > box.bottom + 1 && r.top < box.bottom && p.canvas?.dataset.flex && stale(p.canvas)) { refit = true; continue; }
    if (r.bottom > box.bottom + 1 && r.top < box.bottom && p.canvas?.dataset.flex) {
      const c = p.canvas.getBoundingClientRect(), z = zoomOf(p.canvas);
      const fit = Math.min(Number(p.canvas.dataset.maxHeight) || Infinity, Math.floor((box.bottom - r.top - (r.height - c.height) - 2) / z));
      if (fit >= FLEX_LEAST && fit < c.height / z - 1 && String(fit) !== p.canvas.dataset.fitHeight) {
        p.canvas.dataset.fitHeight = p.canvas.dataset.maxHeight = String(fit);
        refit = true;
        continue;
      }
    }
    // off the stage: below or beside it, or squeezed by the stage's rows (a table panel
    // shrunk to its title holds more than it shows)
    const squeezed = p.el.scrollHeight > p.el.clientHeight + 2;
    if (r.bottom > box.bottom + 1 || r.right > box.right + 1 || squeezed) { p.el.classList.add("offstage"); off.push(p); }
  }
  if (off.length === onStage.length && off.length) { off[0].el.classList.remove("offstage"); off.shift(); } // nothing fits: the first, cut
  strip.hidden = off.length === 0;
  const want = off.map((p) => p.id).join(" ");
  if (strip.dataset.panels === want) return refit;
  strip.dataset.panels = want;
  const label = document.createElement("span");
  label.textContent = "More panels:";
  strip.replaceChildren(label, ...off.map((p) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.spot = p.id;
    b.append(...chipLabel(p));
    b.title = "Spotlight this panel";
    return b;
  }));
  return true;
}

// stale reports whether a canvas was given a height to fit (fitHeight, offstage) that
// it has not been drawn for yet (common.js fit writes drawnFor: its room × zoom).
const stale = (c) => Boolean(c.dataset.fitHeight) && (c.dataset.drawnFor || "").split("×")[0] !== (c.dataset.maxHeight || "");

const TEX = /\\\((.+?)\\\)/gs; // inline maths not set yet (math.js renderInline's)
const UNSET = "…"; // a formula in a chip before KaTeX has set it: never its TeX source

// chipLabel is a panel's title for its chip: the title as the page shows it, with its
// maths once KaTeX has set it (its HTML, and its MathML for a screen reader, without
// the TeX source that MathML carries as an annotation); before then, the title's words
// with each formula an ellipsis, so the strip never shows TeX.
export function chipLabel(p) {
  const title = $(".spot-toggle", p.el);
  if (!title) return [document.createTextNode(p.id)];
  return [...title.childNodes].map((n) => {
    if (n.nodeType === Node.TEXT_NODE) return document.createTextNode(n.nodeValue.replace(TEX, UNSET));
    const copy = n.cloneNode(true);
    copy.querySelectorAll?.("annotation").forEach((a) => a.remove());
    return copy;
  });
}

// relabel sets every chip's label again from its panel's title (chipLabel): once the
// maths is set. It changes no panel's place, and the chips' height is fixed (unroll.css),
// so the stage is not sorted again for it.
export function relabel(strip, panels) {
  for (const b of strip.querySelectorAll("button[data-spot]")) {
    const p = panels.find((q) => q.id === b.dataset.spot);
    if (p) b.replaceChildren(...chipLabel(p));
  }
}
