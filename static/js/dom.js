// dom.js holds the page modules' shorthands for finding elements: by CSS selector, and
// by data-testid (the names the templates give the page's parts).
export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
export const tid = (id) => $(`[data-testid="${id}"]`);

// scrollBox marks a box whose content is wider than itself, so that it scrolls
// sideways (a long equation, a wide drawing): a tab stop, where the arrow keys scroll
// it, named for a screen reader by label (a string, or a function that returns it). A
// box that fits again loses both.
export function scrollBox(el, scrolls, label) {
  if (el.hasAttribute("data-scrolls") === scrolls) return;
  if (!scrolls) { for (const a of ["data-scrolls", "tabindex", "role", "aria-label"]) el.removeAttribute(a); return; }
  el.setAttribute("data-scrolls", "");
  el.tabIndex = 0;
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", `${typeof label === "function" ? label() : label} (scrolls sideways)`);
}
