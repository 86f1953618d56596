// The store (static/js/store.js): what snapshots, frames and training progress leave
// in it, and the view the drawing modules read.
import test from "node:test";
import assert from "node:assert/strict";
import { createStore, applySnapshot, applyFrame, applyTrain, gaps, view } from "../static/js/store.js";

const arr = (shape, ...data) => ({ shape, data: Float32Array.from(data) });
const msg = (header, arrays = {}) => ({ header, arrays: new Map(Object.entries(arrays)) });

test("a snapshot splits per-step arrays and meta (name@t) from static ones", () => {
  const s = createStore();
  applySnapshot(s, msg({
    seq: 4, step: 2, steps: 5, params: { seed: "3" }, playing: true, speed: 8, trained: 7, session: "abc",
    static: { vocab: ["a", "b"] }, meta: { "loss@1": 0.5, "loss@2": 0.25, note: "now" },
  }, { "h@1": arr([2], 1, 2), "h@2": arr([2], 3, 4), W: arr([2, 2], 1, 0, 0, 1), "odd@x": arr([1], 9) }));
  assert.equal(s.seq, 4);
  assert.equal(s.step, 2);
  assert.equal(s.steps, 5);
  assert.deepEqual(s.params, { seed: "3" });
  assert.equal(s.playing, true);
  assert.equal(s.speed, 8);
  assert.equal(s.trained, 7);
  assert.equal(s.session, "abc");
  assert.deepEqual([...s.perStep.keys()], ["h"]);
  assert.deepEqual(Array.from(s.perStep.get("h")[2].data), [3, 4]);
  assert.deepEqual([...s.staticArrays.keys()].sort(), ["W", "odd@x"], "a suffix that is not a step is part of a static name");
  assert.deepEqual(s.meta, { loss: 0.25, note: "now" }, "the current step's meta with the keys of no step");
  assert.deepEqual(s.metaAt[1], { loss: 0.5 });
  assert.deepEqual(s.passes, [{ name: "", steps: 5, index: "t" }], "one pass of all the steps when the header names none");
});

test("a snapshot without optional fields keeps the defaults and replaces what came before", () => {
  const s = createStore();
  applySnapshot(s, msg({ seq: 0, step: 1, steps: 3, params: { a: "1" }, speed: 2 }, { "h@1": arr([1], 1) }));
  applyTrain(s, msg({ seq: 1, meta: { done: 1, of: 2, loss: 3 } }));
  applySnapshot(s, msg({ seq: 2, step: 0, steps: 3 }));
  assert.deepEqual(s.params, { a: "1" }, "a snapshot without params keeps the page's");
  assert.equal(s.speed, 2);
  assert.equal(s.trained, 0);
  assert.equal(s.perStep.size, 0, "a snapshot replaces the steps seen");
  assert.equal(s.train.running, false, "a snapshot ends training on the page");
  assert.deepEqual(s.shapes.get("h"), [1], "shapes are remembered across snapshots");
});

test("a frame records its step's arrays, replaces a static array it names, and moves to its step", () => {
  const s = createStore();
  applySnapshot(s, msg({ seq: 0, step: 0, steps: 2, params: {}, shapes: { y: [3] } }, { W: arr([1], 1) }));
  assert.deepEqual(s.shapes.get("y"), [3], "step 0 knows the sizes step 1 will have");
  applyFrame(s, msg({ seq: 1, step: 1, meta: { loss: 2 }, facts: [{ label: "x", value: 1 }] }, { y: arr([3], 1, 2, 3), W: arr([1], 5), "a@1": arr([1], 7) }));
  assert.equal(s.step, 1);
  assert.equal(s.perStep.get("y")[1].data[2], 3, "an unsuffixed new array is the frame's step's");
  assert.equal(s.perStep.get("a")[1].data[0], 7);
  assert.equal(s.staticArrays.get("W").data[0], 5);
  assert.deepEqual(s.metaAt[1], { loss: 2 });
  assert.deepEqual(s.facts, [{ label: "x", value: 1 }]);
  applyFrame(s, msg({ seq: 2, step: 2 }, { y: arr([3], 0, 0, 0) }));
  assert.equal(s.playing, false, "the last step stops playing");
  assert.deepEqual(s.meta, {});
});

test("gaps: a step seen up to the current one is missing after a seek", () => {
  const s = createStore();
  applySnapshot(s, msg({ seq: 0, step: 0, steps: 4, params: {} }));
  applyFrame(s, msg({ seq: 1, step: 1 }, { h: arr([1], 1) }));
  assert.equal(gaps(s), false);
  applyFrame(s, msg({ seq: 2, step: 3 }, { h: arr([1], 3) }));
  assert.equal(gaps(s), true, "step 2 was never sent");
  applyFrame(s, msg({ seq: 3, step: 2 }, { "h@2": arr([1], 2), h: arr([1], 2) }));
  assert.equal(gaps(s), false);
});

test("training progress: counts, the loss curve from the messages or from the declared array", () => {
  const s = createStore();
  applyTrain(s, msg({ seq: 1, meta: { done: 1, of: 10, loss: 2.5 } }));
  applyTrain(s, msg({ seq: 2, meta: { done: 2, loss: 2 } }));
  applyTrain(s, msg({ seq: 3, meta: { done: 3, loss: "NaN" } }));
  assert.equal(s.train.running, true);
  assert.equal(s.train.done, 3);
  assert.equal(s.train.of, 10, "a count the message leaves out is kept");
  assert.deepEqual(s.train.curve, [2.5, 2], "a loss that is not a finite number adds no point");
  applyTrain(s, msg({ seq: 4, meta: { done: 4, loss: 1 } }, { curve: arr([3], 3, 2, 1) }), "curve");
  assert.deepEqual(s.train.curve, [3, 2, 1], "the declared loss array is the whole curve");
  applyTrain(s, msg({ seq: 5, meta: { done: 5, loss: 0.5 } }, { curve: arr([1], 9) }), "curve");
  assert.deepEqual(s.train.curve, [3, 2, 1, 0.5], "a one-value array is not a curve: the message's loss is added");
});

test("view: accessors over the store, which see later updates", () => {
  const s = createStore();
  applySnapshot(s, msg({ seq: 0, step: 1, steps: 2, params: {}, static: { k: 1 } }, { "h@1": arr([2, 3], 1, 2, 3, 4, 5, 6), E: arr([1], 1) }));
  const v = view(s);
  assert.equal(v.at("h", 1).data[5], 6);
  assert.equal(v.at("h", 2), undefined);
  assert.equal(v.at("nope", 1), undefined);
  assert.equal(v.known("h"), 6);
  assert.equal(v.known("nope"), 0);
  assert.deepEqual(v.knownShape("h"), [2, 3]);
  assert.equal(v.staticArray("E").data[0], 1);
  assert.deepEqual(v.static, { k: 1 });
  applyFrame(s, msg({ seq: 1, step: 2 }, { "h@2": arr([2, 3], 0, 0, 0, 0, 0, 7) }));
  assert.equal(v.at("h", 2).data[5], 7, "the accessors read the store as it is now");
  assert.equal(v.step, 1, "the view's step is the step it was made at");
});
