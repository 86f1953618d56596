// guard.js is the read contract's pure part (contract.js is the page's): parsing a
// contract, counting undeclared reads, and the views that answer only for what a
// contract declares. It touches no DOM, so Node's tests import it (jstest/); whoever
// makes a view gives it report(panel, kind, key), called on every undeclared read.

// parseContract is the contract in text (JSON), over the fields of empty: empty itself
// (a copy) when text is missing or not JSON.
export function parseContract(text, empty = { arrays: [], static: [], meta: [], train: [] }) {
  if (!text) return { ...empty };
  try { return { ...empty, ...JSON.parse(text) }; } catch { return { ...empty }; }
}

// createTally counts undeclared reads by "panel kind key": add returns how many times
// that one was read before (0 the first time), total all reads, keys the distinct ones.
export function createTally() {
  const counts = new Map();
  return {
    add(panel, kind, key) {
      const k = `${panel} ${kind} ${key}`;
      const n = counts.get(k) || 0;
      counts.set(k, n + 1);
      return n;
    },
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    keys: () => [...counts.keys()],
  };
}

// guard is a read-only view of a meta object that answers only for the allowed keys.
function guard(obj, allowed, report, panel, kind) {
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

// restrictView restricts the store's view (store.js's view) to one panel's contract.
// Training progress (train) keeps its counts and loss curve; its meta (metrics)
// answers for the panel's declared training keys only.
// The arrays' accessors (at, staticArray, known, knownShape) answer for declared
// names only; static and meta (and metaAt(t)) answer for declared keys only, plus
// each declared array's labels key in static. decl(name) is an array's declaration.
export function restrictView(v, id, contract, report) {
  const arrays = new Map(contract.arrays.map((a) => [a.name, a]));
  const staticKeys = new Set([...contract.static, ...contract.arrays.map((a) => a.labels).filter(Boolean)]);
  const metaKeys = new Set(contract.meta);
  const trainKeys = new Set(contract.train || []);
  const ok = (name) => { if (arrays.has(name)) return true; report(id, "array", name); return false; };
  const metaCache = new Map(); // metaAt(t)'s guards, made once per step's object
  const guardMeta = (m) => {
    if (!m) return m;
    let g = metaCache.get(m);
    if (!g) { g = guard(m, metaKeys, report, id, "meta key"); metaCache.set(m, g); }
    return g;
  };
  return {
    step: v.step, steps: v.steps, passes: v.passes,
    // training progress: its counts and loss curve, and the progress meta's declared keys
    train: { ...v.train, metrics: guard(v.train.metrics, trainKeys, report, id, "training key") },
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
    static: guard(v.static, staticKeys, report, id, "static key"),
    meta: guardMeta(v.meta),
    metaAt: (t) => guardMeta(v.metaAt(t)),
  };
}
