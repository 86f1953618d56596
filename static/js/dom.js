// dom.js holds the page modules' shorthands for finding elements: by CSS selector, and
// by data-testid (the names the templates give the page's parts).
export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
export const tid = (id) => $(`[data-testid="${id}"]`);
