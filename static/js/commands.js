// commands.js is what the page sends the server (docs/protocol.md): step, back, play,
// pause, reset, seek, resume, train and set. A "set" (a parameter change) waits for the
// snapshot of the one before it (state.set); a command longer than the server takes
// (limits.maxCommandBytes, sim.MaxCommandBytes) would close the socket, so the page
// refuses it itself and says why.
import { VERSION } from "./socket.js";
import { $$, tid } from "./dom.js";
import { mergedSet, queueSet, setToSend, setSent, trainStarted } from "./state.js";
import { trainSteps } from "./transport.js";

// createCommands returns the commands; sock is socket.js's connection, schedule asks for
// a redraw and showError puts up the page's error banner.
export function createCommands({ sock, store, state, limits, schedule, showError }) {
  const send = (cmd) => sock.send(cmd);
  const speed = tid("speed");
  const commands = {
    step: () => send({ type: "step" }),
    back: () => send({ type: "back" }),
    reset: () => { send({ type: "reset" }); store.playing = false; },
    play: () => { // play or pause
      if (store.playing) { send({ type: "pause" }); store.playing = false; }
      else { send({ type: "play", speed: Number(speed.value) }); store.playing = true; }
      schedule();
    },
    stop: () => send({ type: "pause" }), // pause stops training; a snapshot follows
    playAt: (stepsPerSecond) => send({ type: "play", speed: stepsPerSecond }), // a new speed while playing
    seek: (step) => send({ type: "seek", step }),
    resume: (seq) => send({ type: "resume", seq }), // a snapshot of everything up to here
    train: () => {
      const n = trainSteps(store, state); // 0: refused, and the note under the box says why
      if (n && send({ type: "train", steps: n })) { store.train = { curve: [], done: 0, of: n, running: true }; trainStarted(state); schedule(); }
    },
    // set changes parameters; how is the history entry the accepted change makes
    // ("push" for a new edit, "replace" for the rest of a drag or for back/forward).
    set: (params, how = "push") => {
      const next = mergedSet(state, params);
      const bytes = commandBytes({ type: "set", params: next });
      if (bytes > limits.maxCommandBytes) { // the server would close the socket (1009): say so here instead
        showError({ message: `That is too long to send (${bytes} bytes; the limit is ${limits.maxCommandBytes}). Nothing was changed.` });
        return;
      }
      queueSet(state, next, how);
      commands.flushSet();
    },
    // flushSet sends the queued "set" unless one is in flight.
    flushSet: () => {
      const params = setToSend(state);
      if (params && send({ type: "set", params })) setSent(state);
    },
  };
  return commands;
}

// commandBytes is the length of cmd as socket.js sends it, in UTF-8 bytes.
export const commandBytes = (cmd) => new TextEncoder().encode(JSON.stringify({ v: VERSION, ...cmd })).length;

// bindButtons runs a button's data-cmd command when it is clicked.
export function bindButtons(commands) {
  for (const b of $$("button[data-cmd]")) b.addEventListener("click", () => commands[b.dataset.cmd]());
}
