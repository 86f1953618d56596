// url.js keeps the query string equal to the state, so that a URL shares a view: the
// parameters the server accepted (a refused one never enters the URL), the step, and a
// trained model as trained=N (the server trains it again from the seed) with the
// machine that trained it (trained_on). Back and forward make the run match the URL.
import { $$ } from "./dom.js";

const URL_EVERY_MS = 250; // step changes while playing rewrite the URL at most this often

// sharedModel reads a URL's trained model: replayTo is its trained=N when it is one the
// server replays (1…maxTrained), else 0; trainedOn is its trained_on then, else "".
export function sharedModel(search, maxTrained) {
  const q = new URLSearchParams(search);
  const n = Number(q.get("trained"));
  const replayTo = Number.isInteger(n) && n > 0 && n <= maxTrained ? n : 0;
  return { replayTo, trainedOn: replayTo > 0 ? q.get("trained_on")?.slice(0, 20) || "" : "" };
}

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
  function query() {
    const q = new URLSearchParams();
    for (const k of Object.keys(store.params).sort()) q.set(k, store.params[k]);
    view(q);
    if (store.step > 0) q.set("step", String(store.step));
    const trained = store.trained || state.replayTo; // the server trains it again from the seed
    if (trained > 0) {
      q.set("trained", String(trained));
      q.set("trained_on", state.replayTo > 0 && state.trainedOn ? state.trainedOn : state.machine); // this server trained the model once its snapshot came
    }
    return q.toString();
  }
  function write(how) {
    if (!Object.keys(store.params).length) return; // nothing from the server yet
    const q = query();
    if ("?" + q === location.search) return;
    history[how === "push" ? "pushState" : "replaceState"](null, "", "?" + q);
    const exported = new URLSearchParams(q); // an export draws the model's state, however the page shows it
    exported.delete("present"); exported.delete("spot");
    for (const a of $$("a[data-plot]")) a.href = a.dataset.plot + "?" + exported;
  }
  let timer = 0;
  function writeSoon() {
    if (timer) return;
    timer = setTimeout(() => { timer = 0; write("replace"); }, URL_EVERY_MS);
  }
  window.addEventListener("popstate", () => { // back/forward: make the run match the URL
    const q = new URLSearchParams(location.search);
    const changes = {};
    for (const k of Object.keys(store.params)) if (q.has(k) && q.get(k) !== store.params[k]) changes[k] = q.get(k);
    if (Object.keys(changes).length) commands.set(changes, "replace"); // the history already has this entry
    const step = Number(q.get("step") || 0);
    if (step !== store.step) commands.seek(step);
  });
  return { write, writeSoon };
}
