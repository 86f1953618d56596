// The URL's state (static/js/urlstate.js): the page's state as a query and back.
import test from "node:test";
import assert from "node:assert/strict";
import { sharedModel, stateQuery, exportQuery, queryChanges } from "../static/js/urlstate.js";
import { createState } from "../static/js/state.js";

const fresh = (search = "", maxTrained = 100) => createState({ machine: "amd64-abc", maxTrained, ...sharedModel(search, maxTrained) });

test("the state's query: parameters sorted, the view's part, the step past 0", () => {
  const store = { params: { seed: "3", hidden: "8", text: "a b&c" }, step: 0, trained: 0 };
  assert.equal(stateQuery(store, fresh()), "hidden=8&seed=3&text=a+b%26c");
  store.step = 5;
  const present = (q) => { q.set("present", "1"); q.set("spot", "gates"); };
  assert.equal(stateQuery(store, fresh(), present), "hidden=8&seed=3&text=a+b%26c&present=1&spot=gates&step=5");
});

test("a trained model: trained=N with the machine that trained it", () => {
  const store = { params: { seed: "1" }, step: 0, trained: 12 };
  assert.equal(stateQuery(store, fresh()), "seed=1&trained=12&trained_on=amd64-abc", "this server trained it");
  const shared = fresh("?seed=1&trained=40&trained_on=arm64-xyz");
  store.trained = 0;
  assert.equal(stateQuery(store, shared), "seed=1&trained=40&trained_on=arm64-xyz", "a shared model still to replay keeps its N and machine");
});

test("round trip: the query a state writes reads back as that state", () => {
  const store = { params: { hidden: "8", seed: "3", text: "ünïcode & spaces" }, step: 7, trained: 25 };
  const q = stateQuery(store, fresh(), (v) => v.set("present", "1"));
  const { changes, step } = queryChanges(q, { hidden: "4", seed: "3", text: "" });
  assert.deepEqual(changes, { hidden: "8", text: "ünïcode & spaces" }, "the parameters that differ, and only those");
  assert.equal(step, 7);
  assert.deepEqual(sharedModel("?" + q, 100), { replayTo: 25, trainedOn: "amd64-abc" });
  assert.deepEqual(queryChanges("?" + q, store.params), { changes: {}, step: 7 }, "a leading ? reads the same");
  assert.equal(exportQuery(q), "hidden=8&seed=3&text=%C3%BCn%C3%AFcode+%26+spaces&step=7&trained=25&trained_on=amd64-abc", "an export leaves out presenter mode");
});

test("back and forward: names the run does not have are left out; no step is step 0", () => {
  assert.deepEqual(queryChanges("?seed=2&bogus=1", { seed: "3" }), { changes: { seed: "2" }, step: 0 });
  assert.deepEqual(queryChanges("", { seed: "3" }), { changes: {}, step: 0 }, "a parameter the URL leaves out is not changed");
});

test("sharedModel: trained=N only when the server replays it", () => {
  for (const [search, want] of [
    ["", 0], ["?trained=0", 0], ["?trained=-3", 0], ["?trained=2.5", 0], ["?trained=abc", 0],
    ["?trained=", 0], ["?trained=101", 0], ["?trained=100", 100], ["?trained=1", 1], ["?trained=1e1", 10],
  ]) assert.equal(sharedModel(search, 100).replayTo, want, search);
  assert.deepEqual(sharedModel("?trained=abc&trained_on=amd64", 100), { replayTo: 0, trainedOn: "" }, "no machine without a model");
  assert.equal(sharedModel("?trained=5&trained_on=" + "x".repeat(50), 100).trainedOn, "x".repeat(20), "a machine's name is cut at 20");
  assert.equal(sharedModel("?trained=5", 100).trainedOn, "");
});
