// url.js keeps the query string equal to the state, so that a URL shares a view: the
// parameters the server accepted (a refused one never enters the URL), the step, and a
// trained model as trained=N (the server trains it again from the seed) with the
// machine that trained it (trained_on). Back and forward make the run match the URL.
import { $$ } from "./dom.js";
import { stateQuery, exportQuery, queryChanges } from "./urlstate.js";
export { sharedModel } from "./urlstate.js";

const URL_EVERY_MS = 250; // step changes while playing rewrite the URL at most this often

// wsURL is the socket's address for the page's current state.
export function wsURL(slug) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/lessons/${encodeURIComponent(slug)}/ws${location.search}`;
}

// bindURL follows back and forward, and returns write (the state into the URL now, as
// a new history entry, how = "push", or in place of the current one) and writeSoon (in
// place, at most every URL_EVERY_MS).
// view adds the view's part (present.js: presenter mode, spotlight) to a query.
export function bindURL({ store, state, commands, view = () => {} }) {
  function write(how) {
    if (!Object.keys(store.params).length) return; // nothing from the server yet
    const q = stateQuery(store, state, view);
    if ("?" + q === location.search) return;
    history[how === "push" ? "pushState" : "replaceState"](null, "", "?" + q);
    const exported = exportQuery(q); // an export draws the model's state, however the page shows it
    for (const a of $$("a[data-plot]")) a.href = a.dataset.plot + "?" + exported;
  }
  let timer = 0;
  function writeSoon() {
    if (timer) return;
    timer = setTimeout(() => { timer = 0; write("replace"); }, URL_EVERY_MS);
  }
  window.addEventListener("popstate", () => { // back/forward: make the run match the URL
    const { changes, step } = queryChanges(location.search, store.params);
    if (Object.keys(changes).length) commands.set(changes, "replace"); // the history already has this entry
    if (step !== store.step) commands.seek(step);
  });
  return { write, writeSoon };
}
