// The read contract's pure part (static/js/guard.js): a panel's view answers only for
// what its contract declares, and every other read is reported.
import test from "node:test";
import assert from "node:assert/strict";
import { parseContract, createTally, restrictView } from "../static/js/guard.js";
import { createStore, applySnapshot, applyTrain, view } from "../static/js/store.js";

const arr = (shape, ...data) => ({ shape, data: Float32Array.from(data) });

// storeView is a store's view after one snapshot (and a training message).
function storeView() {
  const s = createStore();
  applySnapshot(s, {
    header: { seq: 0, step: 1, steps: 3, params: {}, static: { vocab: ["a", "b"], secret: 1, classes: ["x", "y"] }, meta: { "loss@1": 0.5, "hidden@1": 9 } },
    arrays: new Map([["h@1", arr([2], 1, 2)], ["P@1", arr([2], 0.3, 0.7)], ["W", arr([1], 4)]]),
  });
  applyTrain(s, { header: { seq: 1, meta: { done: 1, of: 2, loss: 1.5, accuracy: 0.9, lr: 0.1 } }, arrays: new Map() });
  return view(s);
}

// restricted is storeView through contract, with the reads it reports.
function restricted(contract) {
  const reads = [];
  const v = restrictView(storeView(), "gates", parseContract(JSON.stringify(contract)), (...r) => reads.push(r.join(" ")));
  return { v, reads };
}

test("declared arrays are read, undeclared ones answer nothing and are reported", () => {
  const { v, reads } = restricted({ arrays: [{ name: "h" }, { name: "P", labels: "vocab" }] });
  assert.equal(v.at("h", 1).data[1], 2);
  assert.equal(v.known("P"), 2);
  assert.deepEqual(v.knownShape("h"), [2]);
  assert.deepEqual(reads, []);
  assert.equal(v.at("W", 1), undefined);
  assert.equal(v.staticArray("W"), undefined);
  assert.equal(v.known("W"), 0);
  assert.equal(v.knownShape("W"), undefined);
  assert.deepEqual(reads, ["gates array W", "gates array W", "gates array W", "gates array W"]);
  assert.deepEqual(v.decl("P"), { name: "P", labels: "vocab" });
  assert.equal(v.decl("W"), undefined);
});

test("static keys: the declared ones and each declared array's labels", () => {
  const { v, reads } = restricted({ arrays: [{ name: "P", labels: "vocab" }], static: ["classes"] });
  assert.deepEqual(v.static.vocab, ["a", "b"]);
  assert.deepEqual(v.static.classes, ["x", "y"]);
  assert.deepEqual(v.labelsOf("P"), ["a", "b"]);
  assert.equal(v.declaresStatic("vocab"), true);
  assert.deepEqual(reads, []);
  assert.equal(v.static.secret, undefined);
  assert.equal("secret" in v.static, false);
  assert.deepEqual(Object.keys(v.static).sort(), ["classes", "vocab"], "listing the keys shows only the declared ones, and reports nothing");
  assert.deepEqual(reads, ["gates static key secret", "gates static key secret"]);
  assert.throws(() => { v.static.vocab = "changed"; }, TypeError, "the view is read-only");
  assert.deepEqual(v.static.vocab, ["a", "b"]);
});

test("meta and metaAt answer for declared keys; training metrics for declared training keys", () => {
  const { v, reads } = restricted({ arrays: [], meta: ["loss"], train: ["accuracy"] });
  assert.equal(v.meta.loss, 0.5);
  assert.equal(v.metaAt(1).loss, 0.5);
  assert.equal(v.metaAt(1), v.metaAt(1), "one guard per step's meta");
  assert.equal(v.metaAt(2), undefined, "a step without meta");
  assert.equal(v.meta.hidden, undefined);
  assert.equal(v.train.metrics.accuracy, 0.9);
  assert.equal(v.train.done, 1, "training counts need no declaration");
  assert.equal(v.train.loss, 1.5);
  assert.equal(v.train.metrics.lr, undefined);
  assert.deepEqual(reads, ["gates meta key hidden", "gates training key lr"]);
});

test("an empty contract reads nothing", () => {
  const { v, reads } = restricted({});
  assert.equal(v.at("h", 1), undefined);
  assert.equal(v.meta.loss, undefined);
  assert.equal(v.labelsOf("P"), null);
  assert.equal(reads.length, 2);
});

test("parseContract: JSON over the empty contract; missing or bad text is the empty one", () => {
  assert.deepEqual(parseContract('{"arrays":[{"name":"h"}],"scale":"unit"}'), { arrays: [{ name: "h" }], static: [], meta: [], train: [], scale: "unit" });
  assert.deepEqual(parseContract(undefined), { arrays: [], static: [], meta: [], train: [] });
  assert.deepEqual(parseContract("{not json"), { arrays: [], static: [], meta: [], train: [] });
  assert.deepEqual(parseContract("null"), { arrays: [], static: [], meta: [], train: [] });
  const empty = { arrays: [], static: [] };
  const got = parseContract("", empty);
  assert.deepEqual(got, empty);
  got.arrays.push("x");
  assert.notEqual(got, empty, "a copy, not the default itself");
});

test("createTally: counts each panel's undeclared key and all reads", () => {
  const t = createTally();
  assert.equal(t.add("gates", "array", "W"), 0, "the first read of a key");
  assert.equal(t.add("gates", "array", "W"), 1);
  assert.equal(t.add("loss", "meta key", "lr"), 0);
  assert.equal(t.total(), 3);
  assert.deepEqual(t.keys(), ["gates array W", "loss meta key lr"]);
});
