// store.js keeps what the server has sent so far: the per-step arrays of every step
// seen (so a heatmap can show unit × time), the static arrays and values, the per-step
// meta, and training progress. Pure functions over a plain object; page.js owns it.

export function createStore() {
  return {
    seq: -1, step: 0, steps: 0, params: {}, playing: false, speed: 4, trained: 0, session: "",
    staticMeta: {}, staticArrays: new Map(),
    perStep: new Map(), // name → array indexed by t of {shape, data}
    shapes: new Map(), // name → shape of a per-step array, remembered across steps
    metaAt: [], meta: {},
    passes: [], // the model's passes (sim.Pass): what its steps are
    facts: [], staticFacts: [], // the facts region's labelled values: the current step's, the model's
    train: { curve: [], done: 0, of: 0, loss: undefined, running: false },
  };
}

function putStep(s, name, t, a) {
  let byT = s.perStep.get(name);
  if (!byT) { byT = []; s.perStep.set(name, byT); }
  byT[t] = a;
  s.shapes.set(name, a.shape);
}

// applySnapshot replaces the state: "<name>@<t>" arrays and meta keys are step t's,
// the other arrays static.
export function applySnapshot(s, { header, arrays }) {
  s.seq = header.seq; s.step = header.step; s.steps = header.steps;
  s.params = header.params || s.params;
  s.playing = !!header.playing;
  if (header.speed) s.speed = header.speed;
  s.trained = header.trained || 0; // optimisation steps since the model was built: part of the URL
  if (typeof header.session === "string") s.session = header.session; // the page's run, which exports copy
  s.staticMeta = header.static || {};
  s.staticFacts = header.static_facts || [];
  s.facts = header.facts || [];
  s.passes = header.passes || [{ name: "", steps: header.steps, index: "t" }];
  s.staticArrays = new Map(); s.perStep = new Map(); s.metaAt = [];
  for (const [name, shape] of Object.entries(header.shapes || {})) s.shapes.set(name, shape); // at step 0: the sizes step 1 will have, so an empty grid is drawn whole
  for (const [name, a] of arrays) {
    const at = name.lastIndexOf("@");
    if (at > 0 && /^\d+$/.test(name.slice(at + 1))) putStep(s, name.slice(0, at), Number(name.slice(at + 1)), a);
    else s.staticArrays.set(name, a);
  }
  // the meta of step t arrives as "<key>@<t>", like the arrays
  const now = {};
  for (const [key, v] of Object.entries(header.meta || {})) {
    const at = key.lastIndexOf("@");
    if (at > 0 && /^\d+$/.test(key.slice(at + 1))) {
      const t = Number(key.slice(at + 1));
      (s.metaAt[t] ||= {})[key.slice(0, at)] = v;
    } else now[key] = v;
  }
  s.meta = { ...(s.metaAt[s.step] || {}), ...now };
  if (s.step > 0) s.metaAt[s.step] = s.meta;
  s.train.running = false;
}

// applyFrame records one step's arrays and meta and moves to its step.
export function applyFrame(s, { header, arrays }) {
  s.seq = header.seq; s.step = header.step;
  if (typeof header.steps === "number") s.steps = header.steps;
  for (const [name, a] of arrays) {
    const at = name.lastIndexOf("@");
    if (at > 0 && /^\d+$/.test(name.slice(at + 1))) putStep(s, name.slice(0, at), Number(name.slice(at + 1)), a);
    else if (s.staticArrays.has(name)) s.staticArrays.set(name, a);
    else putStep(s, name, header.step, a);
  }
  s.meta = header.meta || {};
  s.facts = header.facts || [];
  if (s.step > 0) s.metaAt[s.step] = s.meta;
  if (typeof header.playing === "boolean") s.playing = header.playing;
  else if (s.step >= s.steps) s.playing = false;
}

// applyTrain records training progress and the loss curve: the array the lesson
// declares as its loss curve (lessons.Lesson.Loss, lossArray here), else one point per
// message's "loss".
export function applyTrain(s, { header, arrays }, lossArray = "") {
  s.seq = header.seq;
  const m = header.meta || {};
  s.train.running = true;
  s.train.done = m.done ?? s.train.done;
  s.train.of = m.of ?? s.train.of;
  s.train.loss = m.loss ?? s.train.loss;
  s.train.metrics = m;
  // a loss array longer than one value is the whole curve so far; otherwise the curve
  // grows by the message's loss, one point per optimisation step
  const curve = lossArray ? arrays.get(lossArray) : undefined;
  if (curve && curve.data.length > 1) s.train.curve = Array.from(curve.data);
  else if (Number.isFinite(m.loss)) s.train.curve = [...s.train.curve, m.loss];
}

// gaps reports whether any computed step up to the current one is missing (after a seek).
export function gaps(s) {
  for (const byT of s.perStep.values()) for (let t = 1; t <= s.step; t++) if (!byT[t]) return true;
  return false;
}

// view is what the drawing modules read: a pure snapshot of accessors.
export function view(s) {
  return {
    step: s.step, steps: s.steps, passes: s.passes,
    at: (name, t) => s.perStep.get(name)?.[t],
    staticArray: (name) => s.staticArrays.get(name),
    known: (name) => { const sh = s.shapes.get(name); return sh ? sh.reduce((p, d) => p * d, 1) : 0; },
    knownShape: (name) => s.shapes.get(name),
    static: s.staticMeta, meta: s.meta, metaAt: (t) => s.metaAt[t],
    train: s.train,
  };
}
