// keys.js is the page's keyboard: every binding is a row of the table pageKeys returns,
// and the rules that decide whether a key fires are here, in onKey, for all of them:
//
//   1. A key with Ctrl, Cmd or Alt is the browser's.
//   2. No key fires while the focus is in a form field that takes keys itself: a text
//      or number field, a select, a textarea, a parameter's slider, a checkbox. Typing is
//      typing, so a letter binding can never fire in a text field. The time scrubber is
//      the one field whose keys are the page's (its arrows step, as everywhere). In a
//      box that scrolls sideways (dom.js scrollBox) ← and → scroll it.
//   3. A bound key does nothing else (the default is prevented: space does not also
//      scroll or press the focused button).
//   4. While the model trains the server refuses to step, so only the bindings marked
//      whileTraining fire.
//
// A binding: { keys: the KeyboardEvent.key values, run: what it does, whileTraining }.
// More keys (a presenter mode's, say) are more rows, passed to bindKeys with these.
import { tid } from "./dom.js";

// pageKeys is the transport's bindings: ← → step, space play/pause, R reset (the
// template's shortcuts list shows them).
export function pageKeys(commands) {
  return [
    { keys: ["ArrowRight"], run: commands.step },
    { keys: ["ArrowLeft"], run: commands.back },
    { keys: [" "], run: commands.play },
    { keys: ["r", "R"], run: commands.reset, whileTraining: true },
  ];
}

// bindKeys listens for bindings on the whole page; store says whether the model trains.
export function bindKeys(bindings, { store }) {
  const byKey = new Map();
  for (const b of bindings) for (const k of b.keys) {
    if (byKey.has(k)) throw new Error(`keys.js: ${JSON.stringify(k)} is bound twice`);
    byKey.set(k, b);
  }
  const scrubber = tid("scrubber");
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (takesKeys(e.target, scrubber)) return;
    if ((e.key === "ArrowLeft" || e.key === "ArrowRight") && e.target.closest?.("[data-scrolls]")) return;
    const b = byKey.get(e.key);
    if (!b) return;
    e.preventDefault();
    if (store.train.running && !b.whileTraining) return;
    b.run();
  });
}

// takesKeys reports whether the focused element t uses keys itself (rule 2).
function takesKeys(t, scrubber) {
  return Boolean(t.closest && t.closest("input, select, textarea") && !(t.type === "range" && t === scrubber));
}
