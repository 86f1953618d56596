// state.js owns the page's own state: what the page knows beyond what the server sent
// (that is the store, store.js). The other modules read the object createState returns
// and change it only through the functions below, each named for what happened.
// Timers and throttles that one module keeps to itself (a debounce, a pending animation
// frame) stay in that module.

// createState is the state of a freshly loaded page. machine is this server's
// trained_on (GOARCH-fingerprint, models.Fingerprint); maxTrained is the lesson's cap on
// training steps (lessons.Lesson.MaxTrained); replayTo and trainedOn come from the URL
// (url.js, sharedModel).
export function createState({ machine, maxTrained, replayTo, trainedOn }) {
  return {
    machine,
    maxTrained,
    // A URL with trained=N (a shared trained model) is trained again by the server when
    // the socket opens; until its trained snapshot arrives, N stays in the URL.
    replayTo,
    // The machine that trained the URL's model. Training rounds differently from one
    // processor and build to another, so a model trained again elsewhere can differ from
    // the shared view in its last digits: the page says so until the model changes
    // (docs/protocol.md). "" when there is nothing to say.
    trainedOn,
    live: false, // a message from the server has been drawn
    scrubbing: false, // the scrubber is being dragged: the drawing leaves it alone
    chosenSpeed: null, // the student's speed; the server learns it with the next play
    // At most one "set" awaits its snapshot; the changes made meanwhile merge into the next.
    set: {
      inFlight: false,
      queued: null, // the parameters of the next "set", or null
      sent: {}, // the parameters of the "set" in flight, which an error is about
      entry: null, // how the next accepted "set" enters the history: "push" (a new edit) or "replace"
    },
  };
}

// mergedSet is the next "set"'s parameters once params join the queued ones.
export const mergedSet = (s, params) => ({ ...(s.set.queued || {}), ...params });

// queueSet makes params (from mergedSet) the next "set"; how is its history entry, and
// a queued new edit ("push") stays one.
export function queueSet(s, params, how) {
  s.set.queued = params;
  s.set.entry = s.set.entry === "push" ? "push" : how;
}

// setToSend is the "set" to send now, or null (one is in flight, or none is queued).
export const setToSend = (s) => (s.set.inFlight ? null : s.set.queued);

// setSent records that the queued "set" went out.
export function setSent(s) {
  s.set.inFlight = true;
  s.set.sent = s.set.queued;
  s.set.queued = null;
}

// snapshotArrived updates the state for a snapshot (the answer to a "set", a reset, a
// training's end…) and returns how its URL enters the history.
export function snapshotArrived(s, store) {
  const answer = s.set.inFlight; // else a reconnect's snapshot: a "set" made meanwhile still waits
  const accepted = answer ? s.set.entry : null;
  s.set.inFlight = false;
  if (accepted) s.trainedOn = ""; // a new model
  if (store.trained > 0 || accepted) s.replayTo = 0; // the server has the trained model now, or a new one
  if (answer) s.set.entry = null; // an edit enters the history once the server took it
  return accepted || "replace";
}

// setRefused: the server said no to the "set" in flight; nothing enters the history.
export function setRefused(s) {
  s.set.inFlight = false;
  s.set.entry = null;
}

// trainStarted: training from the page makes the model this machine's.
export function trainStarted(s) { s.trainedOn = ""; }

// connectionLost: a new server may have to train the model again, from the URL.
// A "set" in flight may never have reached the server: it waits again, merged with any
// newer change, and goes out after the reconnect's snapshot (commands.flushSet; sent
// twice it rebuilds the same model).
export function connectionLost(s, store) {
  s.replayTo = Math.max(s.replayTo, store.trained);
  if (s.set.inFlight) {
    s.set.queued = { ...s.set.sent, ...(s.set.queued || {}) };
    s.set.inFlight = false;
  }
}

export function wentLive(s) { s.live = true; }
export function scrubbed(s, dragging) { s.scrubbing = dragging; }
export function speedChosen(s, speed) { s.chosenSpeed = speed; }
