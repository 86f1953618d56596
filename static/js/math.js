// math.js renders the page's TeX with the vendored KaTeX: display equations from
// data-tex, and inline maths between \( and \) inside elements with class "math".
// Only \htmlClass is trusted: the equations use it to mark symbols tied to live values.
import { scrollBox } from "./dom.js";

const OPTIONS = {
  throwOnError: false, // a bad equation shows as .katex-error, which the browser tests catch
  strict: "ignore",
  trust: (ctx) => ctx.command === "\\htmlClass",
};

export function renderEquation(el) {
  if (!window.katex) return; // not loaded yet: page.js renders every equation, from its data-tex, once it is
  window.katex.render(el.dataset.tex, el, { ...OPTIONS, displayMode: true });
  fitSoon(el);
}

// fitSoon fits the equations rendered in this task together, before the next frame
// is painted: fitting each as it is rendered would lay the long page out once an
// equation (half a second of a phone's CPU on a lesson with twenty).
const unfitted = new Set();
function fitSoon(el) {
  if (!unfitted.size) requestAnimationFrame(() => { const els = [...unfitted]; unfitted.clear(); fitWidths(els); });
  unfitted.add(el);
}

// syncEquations switches each equation that depends on a parameter (data-tex-param,
// rendered from lessons.Equation) to its form for the parameter's value in params:
// the value's variant (data-tex-variants), else the default form. It re-renders only
// the equations whose TeX changed and returns them (their symbols need exposing again).
export function syncEquations(params) {
  const changed = [];
  for (const el of document.querySelectorAll(".equation[data-tex-param]")) {
    const value = params[el.dataset.texParam];
    if (value === undefined) continue;
    const variants = JSON.parse(el.dataset.texVariants || "{}") || {};
    const tex = Object.hasOwn(variants, value) ? variants[value] : el.dataset.texDefault;
    if (tex === el.dataset.tex) continue;
    el.dataset.tex = tex;
    renderEquation(el);
    changed.push(el);
  }
  return changed;
}

const MIN_SCALE = 0.7; // below this a projected equation is unreadable: scroll instead
const MIN_COLUMN_SCALE = 0.6; // the stage's equations shrink together at most to this to fit its height
// On the projector's stage (presenter mode, the spotlight; not a phone's page, which
// scrolls) no equation is set under STAGE_FONT CSS px, present.js's least text: what
// does not fit at that size scrolls, the column down and an equation sideways.
const STAGE_FONT = 18;
const PHONE = matchMedia("(max-width: 600px)"); // present.js's and unroll.css's phone
const onStage = (el) => Boolean(el.closest(".lesson.present, .lesson.spotlit")) && !PHONE.matches;

// fitEquations fits every display equation to its column's width (fitWidths); on the
// stage (presenter mode, the spotlight) it first shrinks them all together until the
// column holds them from top to bottom, since the stage never scrolls, but not under
// STAGE_FONT: then the column scrolls (data-scroll, unroll.css).
export function fitEquations() {
  const all = [...document.querySelectorAll(".equation[data-tex]")];
  const box = document.querySelector(".lesson-text"), eqs = document.querySelector("[data-testid=equations]");
  if (box && eqs) {
    eqs.style.removeProperty("--eq-scale");
    delete box.dataset.scroll;
    box.removeAttribute("tabindex");
    all.forEach((el) => { const k = el.querySelector(".katex"); if (k) k.style.fontSize = ""; });
    if (box.closest(".lesson.present, .lesson.spotlit")) {
      // measured from the top (the column centres its content, hiding an overflow above)
      box.style.justifyContent = "flex-start";
      const least = leastScale(eqs, MIN_COLUMN_SCALE);
      let scale = 1;
      for (let i = 0; i < 4 && box.scrollHeight > box.clientHeight + 1 && scale > least; i++) {
        const over = box.scrollHeight - box.clientHeight;
        scale = Math.max(least, scale * (eqs.offsetHeight - over - 2) / eqs.offsetHeight);
        eqs.style.setProperty("--eq-scale", String(scale));
      }
      if (box.scrollHeight > box.clientHeight + 1) box.dataset.scroll = "1"; // a keyboard reaches it too (tabindex)
      if (box.dataset.scroll) box.tabIndex = 0;
      box.style.justifyContent = "";
    }
  }
  fitWidths(all);
  document.body.dataset.fits = String(Number(document.body.dataset.fits || 0) + 1); // how often they were fitted (tests wait for it after a resize)
}

// leastScale is the least an equation set in el (its largest-set formula's size now)
// may be scaled: least, and on the stage no smaller than keeps it at STAGE_FONT.
function leastScale(el, least) {
  if (!onStage(el)) return least;
  const sizes = [...el.querySelectorAll(".katex")].map((k) => parseFloat(getComputedStyle(k).fontSize)).filter((v) => v > 0);
  return sizes.length ? Math.max(least, STAGE_FONT / Math.min(...sizes)) : least;
}

// fitWidths shrinks each display equation in els that is wider than its column, so the
// whole equation stays in view next to the panels (it scrolls sideways below MIN_SCALE,
// and on the stage below STAGE_FONT). All of them are measured, then all resized, so
// the page is laid out once a round rather than once an equation.
function fitWidths(els) {
  const ks = els.map((el) => el.querySelector(".katex"));
  for (const k of ks) if (k) k.style.fontSize = "";
  const base = ks.map((k) => (k ? parseFloat(getComputedStyle(k).fontSize) : 0));
  const least = els.map((el) => leastScale(el, MIN_SCALE));
  const scale = els.map(() => 1);
  // the equation box scrolls sideways when it overflows; not everything in it scales
  // with the font, so shrink a few times until it fits
  for (let round = 0; round < 4; round++) {
    const shrink = els.map((el, i) => (ks[i] && el.clientWidth > 0 && el.scrollWidth > el.clientWidth && scale[i] > least[i] ? (el.clientWidth - 2) / el.scrollWidth : 0));
    if (!shrink.some(Boolean)) break;
    shrink.forEach((by, i) => {
      if (!by) return;
      scale[i] = Math.max(least[i], scale[i] * by);
      ks[i].style.fontSize = `${base[i] * scale[i]}px`;
    });
  }
  const scrolls = els.map((el) => el.scrollWidth > el.clientWidth + 1);
  els.forEach((el, i) => ks[i] && scrollBox(el, scrolls[i], () => `equation ${[...el.parentElement.children].indexOf(el) + 1}`));
}

const INLINE = /\\\((.+?)\\\)/gs;

// renderInline replaces every \( … \) in el's text with rendered maths.
export function renderInline(el) {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const hits = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.nodeValue.includes("\\(")) hits.push(n);
  for (const node of hits) {
    const frag = document.createDocumentFragment();
    let last = 0;
    for (const m of node.nodeValue.matchAll(INLINE)) {
      frag.append(node.nodeValue.slice(last, m.index));
      const span = document.createElement("span");
      window.katex.render(m[1], span, { ...OPTIONS, displayMode: false });
      frag.append(span);
      last = m.index + m[0].length;
    }
    frag.append(node.nodeValue.slice(last));
    node.replaceWith(frag);
  }
}

// whenReady calls fn once KaTeX (a deferred classic script) has loaded.
export function whenReady(fn) {
  if (window.katex) return fn();
  window.addEventListener("load", () => (window.katex ? fn() : console.warn("KaTeX did not load")), { once: true });
}
