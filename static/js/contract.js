// contract.js is the one way a panel reads the server's data: through the panel's
// contract, which the lesson declares in Go (lessons.Panel, lessons.Array) and the
// template renders as JSON on the panel (data-contract). A panel's view answers only
// for the arrays and the static and per-step meta keys its contract declares; a read
// of anything else answers nothing and is counted as an undeclared read: reported on
// the console and in document.body.dataset.undeclared (the browser tests require 0).
//
// The contract also carries what the page used to guess from names: which way an
// array runs along the time axis (dir), what its dimensions count (axes), which
// static list names its entries (labels), its scale and its label in the lecture's
// symbols.

const undeclared = new Map(); // "panel kind key" → times read

// report counts an undeclared read (once on the console per panel and key).
function report(panel, kind, key) {
  const k = `${panel} ${kind} ${key}`;
  const n = undeclared.get(k) || 0;
  undeclared.set(k, n + 1);
  if (n === 0) console.error(`contract: panel ${panel} read the undeclared ${kind} ${JSON.stringify(key)}`);
  document.body.dataset.undeclared = String([...undeclared.values()].reduce((a, b) => a + b, 0));
  document.body.dataset.undeclaredKeys = [...undeclared.keys()].join("; ");
}

// readContract parses a panel element's data-contract (an empty contract when absent).
export function readContract(el) {
  const empty = { arrays: [], static: [], meta: [], train: [] };
  if (!el?.dataset.contract) return empty;
  try { return { ...empty, ...JSON.parse(el.dataset.contract) }; } catch { return empty; }
}

// lessonContract is the page's contract for what is not one panel's (the symbol
// readout): every array the lesson declares (an equation symbol names one of them) and
// every static key some panel declares.
export function lessonContract() {
  const el = document.getElementById("contract");
  const out = { arrays: [], static: [] };
  if (!el) return out;
  try { return { ...out, ...JSON.parse(el.textContent) }; } catch { return out; }
}

// guard is a read-only view of a meta object that answers only for the allowed keys.
function guard(obj, allowed, panel, kind) {
  return new Proxy(obj || {}, {
    get(target, key) {
      if (typeof key === "symbol") return target[key];
      if (!allowed.has(key)) { report(panel, kind, key); return undefined; }
      return target[key];
    },
    has(target, key) {
      if (typeof key !== "symbol" && !allowed.has(key)) { report(panel, kind, key); return false; }
      return key in target;
    },
    ownKeys(target) { return Reflect.ownKeys(target).filter((k) => allowed.has(k)); },
    getOwnPropertyDescriptor(target, key) { return allowed.has(key) ? Reflect.getOwnPropertyDescriptor(target, key) : undefined; },
    set() { return false; },
  });
}

// panelView restricts the store's view (store.js's view) to one panel's contract.
// Training progress (train) keeps its counts and loss curve; its meta (metrics)
// answers for the panel's declared training keys only.
// The arrays' accessors (at, staticArray, known, knownShape) answer for declared
// names only; static and meta (and metaAt(t)) answer for declared keys only, plus
// each declared array's labels key in static. decl(name) is an array's declaration.
export function panelView(v, id, contract) {
  const arrays = new Map(contract.arrays.map((a) => [a.name, a]));
  const staticKeys = new Set([...contract.static, ...contract.arrays.map((a) => a.labels).filter(Boolean)]);
  const metaKeys = new Set(contract.meta);
  const trainKeys = new Set(contract.train || []);
  const ok = (name) => { if (arrays.has(name)) return true; report(id, "array", name); return false; };
  const metaCache = new Map(); // metaAt(t)'s guards, made once per step's object
  const guardMeta = (m) => {
    if (!m) return m;
    let g = metaCache.get(m);
    if (!g) { g = guard(m, metaKeys, id, "meta key"); metaCache.set(m, g); }
    return g;
  };
  return {
    step: v.step, steps: v.steps, passes: v.passes,
    // training progress: its counts and loss curve, and the progress meta's declared keys
    train: { ...v.train, metrics: guard(v.train.metrics, trainKeys, id, "training key") },
    at: (name, t) => (ok(name) ? v.at(name, t) : undefined),
    staticArray: (name) => (ok(name) ? v.staticArray(name) : undefined),
    known: (name) => (ok(name) ? v.known(name) : 0),
    knownShape: (name) => (ok(name) ? v.knownShape(name) : undefined),
    decl: (name) => arrays.get(name),
    declaresStatic: (key) => staticKeys.has(key),
    declaresMeta: (key) => metaKeys.has(key),
    declaresTrain: (key) => trainKeys.has(key),
    // labelsOf is the static list that names the entries of a declared array
    // (a softmax's vocabulary, a classifier's classes), or null.
    labelsOf: (name) => { const a = arrays.get(name); const l = a?.labels ? v.static[a.labels] : null; return Array.isArray(l) ? l : null; },
    static: guard(v.static, staticKeys, id, "static key"),
    meta: guardMeta(v.meta),
    metaAt: (t) => guardMeta(v.metaAt(t)),
  };
}

// lessonView is the store's view restricted to the lesson's contract, for the symbol
// readout (reported as "symbol-readout"); it reads no per-step meta.
export function lessonView(v, contract) {
  return panelView(v, "symbol-readout", { arrays: contract.arrays, static: contract.static, meta: [] });
}
