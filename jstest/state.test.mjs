// The page's own state (static/js/state.js): "set" commands one at a time, and what a
// snapshot, a refusal and a lost connection do to the URL's trained model.
import test from "node:test";
import assert from "node:assert/strict";
import * as st from "../static/js/state.js";

const fresh = (replayTo = 0, trainedOn = "") => st.createState({ machine: "amd64-x", maxTrained: 50, replayTo, trainedOn });

test("one set in flight; changes made meanwhile merge into the next", () => {
  const s = fresh();
  st.queueSet(s, st.mergedSet(s, { seed: "1" }), "push");
  assert.deepEqual(st.setToSend(s), { seed: "1" });
  st.setSent(s);
  assert.equal(st.setToSend(s), null, "one is in flight");
  st.queueSet(s, st.mergedSet(s, { hidden: "4" }), "replace");
  st.queueSet(s, st.mergedSet(s, { seed: "2" }), "replace");
  assert.equal(st.setToSend(s), null);
  assert.equal(st.snapshotArrived(s, { trained: 0 }), "push", "the answer enters the history as its edit asked");
  assert.deepEqual(st.setToSend(s), { hidden: "4", seed: "2" });
  st.setSent(s);
  assert.equal(st.snapshotArrived(s, { trained: 0 }), "replace");
});

test("a refused set enters no history; a snapshot that answers none replaces", () => {
  const s = fresh();
  st.queueSet(s, { seed: "9" }, "push");
  st.setSent(s);
  st.setRefused(s);
  assert.equal(s.set.inFlight, false);
  assert.equal(s.set.entry, null);
  assert.equal(st.snapshotArrived(s, { trained: 0 }), "replace");
});

test("a lost connection sends the set in flight again, merged with newer changes", () => {
  const s = fresh();
  st.queueSet(s, { seed: "1", hidden: "2" }, "push");
  st.setSent(s);
  st.queueSet(s, st.mergedSet(s, { hidden: "3" }), "replace");
  st.connectionLost(s, { trained: 0 });
  assert.deepEqual(st.setToSend(s), { seed: "1", hidden: "3" });
});

test("the URL's trained model: replayed until the server has it, then the page's", () => {
  const s = fresh(20, "arm64-y");
  assert.equal(st.snapshotArrived(s, { trained: 0 }), "replace");
  assert.equal(s.replayTo, 20, "a snapshot before the trained one keeps N for the URL");
  st.snapshotArrived(s, { trained: 20 });
  assert.equal(s.replayTo, 0);
  assert.equal(s.trainedOn, "arm64-y", "the model is still the one trained elsewhere");
  st.connectionLost(s, { trained: 30 });
  assert.equal(s.replayTo, 30, "a new server trains it again from the URL");
  st.trainStarted(s);
  assert.equal(s.trainedOn, "");
});
