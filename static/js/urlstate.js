// urlstate.js is the page's state as a query string and back, pure (url.js puts it in
// the address bar and follows back and forward): the parameters the server accepted,
// the view's part, the step, and a trained model as trained=N with the machine that
// trained it (trained_on). Node's tests import it (jstest/).

// sharedModel reads a URL's trained model: replayTo is its trained=N when it is one the
// server replays (1…maxTrained), else 0; trainedOn is its trained_on then, else "".
export function sharedModel(search, maxTrained) {
  const q = new URLSearchParams(search);
  const n = Number(q.get("trained"));
  const replayTo = Number.isInteger(n) && n > 0 && n <= maxTrained ? n : 0;
  return { replayTo, trainedOn: replayTo > 0 ? q.get("trained_on")?.slice(0, 20) || "" : "" };
}

// stateQuery is the query of the page's state: store's parameters (sorted by name),
// what view adds (present.js: presenter mode, spotlight), the step past 0, and the
// trained model, which the server trains again from the seed: the store's when it has
// trained, else the URL's still to replay (state.replayTo), on the machine that trained it.
export function stateQuery(store, state, view = () => {}) {
  const q = new URLSearchParams();
  for (const k of Object.keys(store.params).sort()) q.set(k, store.params[k]);
  view(q);
  if (store.step > 0) q.set("step", String(store.step));
  const trained = store.trained || state.replayTo;
  if (trained > 0) {
    q.set("trained", String(trained));
    q.set("trained_on", state.replayTo > 0 && state.trainedOn ? state.trainedOn : state.machine); // this server trained the model once its snapshot came
  }
  return q.toString();
}

// exportQuery is a page's query as an export asks for it: the model's state, without
// how the page shows it (presenter mode, spotlight).
export function exportQuery(query) {
  const q = new URLSearchParams(query);
  q.delete("present"); q.delete("spot");
  return q.toString();
}

// queryChanges reads a query (back or forward) against the run's parameters: changes
// are the parameters it gives another value (names the run does not have are left
// out), step is its step (0 when it names none).
export function queryChanges(search, params) {
  const q = new URLSearchParams(search);
  const changes = {};
  for (const k of Object.keys(params)) if (q.has(k) && q.get(k) !== params[k]) changes[k] = q.get(k);
  return { changes, step: Number(q.get("step") || 0) };
}
