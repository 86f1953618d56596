// socket.js is the one module that owns the lesson websocket: it connects, decodes the
// binary server messages of docs/protocol.md, sends JSON commands, and after an
// unexpected close reconnects with jittered exponential backoff, naming the session
// of its last snapshot and the last sequence number it saw, so that the server hands
// back the same run (trained weights, playing) and its numbers continue.
//
// A connection can also die without closing (the hall's Wi-Fi holds every packet): the
// page pings the server every PING_EVERY_MS (the server answers with a pong) and counts
// the connection lost when nothing at all has come PONG_WAIT_MS after a ping, and a
// socket that has not opened CONNECT_WAIT_MS after it was made is given up too
// (docs/protocol.md, "Heartbeat").
//
// No command is silently lost: on a socket opened with { replay: true }, the commands
// that change the run (REPLAYED) carry an id and are kept until the run acknowledges
// them (the header's "ack"); commands made while the connection is down wait, in order.
// After a reconnect's snapshot, those the run has not carried out are sent again, in
// order. At most QUEUE_MAX wait; past that a command is refused, and onRefused says so.

export const VERSION = 1;
const CLOSE_REPLACED = 4001; // this session's run went to a newer connection: do not fight it
const CLOSE_FULL = 1013; // try again later: the server has no memory for another session now
const BACKOFF_START = 0.5, BACKOFF_MAX = 10, JITTER = 0.5; // seconds, ±50 % (protocol.md)
// The heartbeat (docs/protocol.md, "Heartbeat"); the server's own side is web/session.go's
// pingPeriod and pongWait.
export const PING_EVERY_MS = 1000; // a ping a second: 21 bytes up, a 64-byte pong down
// PONG_WAIT_MS: no message this long after a ping means the connection is dead, noticed at
// most PING_EVERY_MS + PONG_WAIT_MS = 4 s after it died (issue 22: within 5 s, with room
// for a busy page's late timers), while a 0.5 MB snapshot (sim.MaxSteps) still arrives
// on a 1.6 Mbit/s hall Wi-Fi before it runs out.
export const PONG_WAIT_MS = 3000;
// CONNECT_WAIT_MS: a handshake on a dead network hangs for minutes; a live server answers
// in well under a second (docs/measurements.md: 118 ms at most for 500 at once).
export const CONNECT_WAIT_MS = 5000;
// QUEUE_MAX: the commands that may wait for the connection: a student's keys and clicks
// through an outage of several seconds; past that they are pressing at nothing, and
// are told so rather than have a long burst land at once when it returns.
export const QUEUE_MAX = 20;
// The commands kept and sent again: those that change the run. "set" is kept by the page
// itself (state.js: one merged change, re-sent after the snapshot); "resume", "view" and
// "ping" are the connection's own, redone by every new connection.
const REPLAYED = new Set(["step", "back", "seek", "play", "pause", "reset", "train"]);
// COALESCED: a waiting command of these types is replaced by a newer one of the same
// type (a drag of the scrubber while down is one seek, not fifty).
const COALESCED = new Set(["seek", "play"]);

// decode turns one binary message into {header, arrays: Map name → {shape, data}}.
// The layout: uint32 LE header length n, n bytes of JSON, zero padding to a multiple of
// 4, then the float32 LE arrays listed in header.arrays, in order.
export function decode(buf) {
  const view = new DataView(buf);
  const n = view.getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 4, n)));
  let off = (4 + n + 3) & ~3;
  const arrays = new Map();
  const littleEndianHost = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  for (const a of header.arrays || []) {
    const size = a.shape.reduce((p, d) => p * d, 1);
    if (off + size * 4 > buf.byteLength) throw new Error(`message too short for array ${a.name}`);
    let data;
    if (littleEndianHost) {
      data = new Float32Array(buf, off, size); // zero-copy: the offset is a multiple of 4
    } else {
      data = new Float32Array(size);
      for (let i = 0; i < size; i++) data[i] = view.getFloat32(off + 4 * i, true);
    }
    arrays.set(a.name, { shape: a.shape, data });
    off += size * 4;
  }
  return { header, arrays };
}

// backoff is the delay before reconnect attempt n (0-based), in milliseconds.
export function backoff(n, random = Math.random) {
  const base = Math.min(BACKOFF_MAX, BACKOFF_START * 2 ** n);
  return 1000 * base * (1 + JITTER * (2 * random() - 1));
}

// The ids of commands increase across the page loads of a browser (a new page that
// takes over a class's run must not see its ids acknowledged by the old page's ack):
// they start at the load time in milliseconds × 1000, far below 2^53 for centuries.
let lastId = Date.now() * 1000;

// connect opens the socket at url() (called again for every reconnect, so it carries
// the page's current state) and reports decoded messages to onMessage, the
// connection's state to onStatus("live" | "connecting" | "reconnecting" | "retry" |
// "full" | "replaced" | "bad", seconds), and a command it will not send to
// onRefused(cmd, why). replay keeps and re-sends commands (see the top of this file);
// without it a command made while the connection is down is refused.
export function connect(url, { onMessage, onStatus, onRefused = () => {}, replay = false }) {
  let ws = null, attempts = 0, lastSeq = -1, session = "", closed = false, timer = 0;
  let lostOnce = false; // a connection was lost: "connecting" is a reconnection
  let synced = false; // this connection's first snapshot has come: commands go out at once
  let pingTimer = 0, deadTimer = 0, openTimer = 0;
  const waiting = []; // {cmd (with its id), sent}: not yet acknowledged, in order

  function stopTimers() {
    clearInterval(pingTimer); clearTimeout(deadTimer); clearTimeout(openTimer);
    pingTimer = deadTimer = openTimer = 0;
  }
  // lost gives the current socket up, whatever its state, and tries again after the backoff.
  function lost(code) {
    stopTimers();
    const old = ws;
    ws = null; synced = false;
    if (old) {
      old.onmessage = old.onclose = old.onopen = null; // a given-up socket says nothing more
      try { old.close(); } catch { /* already closing */ }
    }
    if (closed) return;
    if (code === CLOSE_REPLACED) { onStatus("replaced", 0, code); return; }
    lostOnce = true;
    const delay = backoff(attempts++);
    onStatus(code === CLOSE_FULL ? "full" : "retry", delay / 1000, code);
    timer = setTimeout(open, delay);
  }
  function heard() { clearTimeout(deadTimer); deadTimer = 0; }
  function ping() {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(`{"v":${VERSION},"type":"ping"}`); // sim.IsPing: exactly these bytes
    if (!deadTimer) deadTimer = setTimeout(() => lost(0), PONG_WAIT_MS);
  }

  function open() {
    onStatus(lostOnce ? "reconnecting" : "connecting");
    let u = url();
    if (lastSeq >= 0) u += `${u.includes("?") ? "&" : "?"}session=${encodeURIComponent(session)}&seq=${lastSeq}`;
    const me = new WebSocket(u);
    ws = me;
    me.binaryType = "arraybuffer";
    openTimer = setTimeout(() => { if (ws === me) lost(0); }, CONNECT_WAIT_MS);
    me.onopen = () => {
      clearTimeout(openTimer); openTimer = 0;
      pingTimer = setInterval(ping, PING_EVERY_MS);
    };
    me.onmessage = (ev) => {
      if (ws !== me || typeof ev.data === "string") return; // the server only sends binary
      heard();
      let msg;
      try { msg = decode(ev.data); } catch (err) {
        onStatus("bad", 0, String(err)); return;
      }
      const h = msg.header;
      if (h.type === "pong") return; // the heartbeat's answer: the connection lives
      attempts = 0;
      if (typeof h.seq === "number") lastSeq = h.seq;
      if (typeof h.session === "string") session = h.session;
      if (typeof h.ack === "number") acknowledged(h.ack);
      onStatus("live");
      if (h.type === "snapshot" && !synced) { // the run as it is now: what it lacks goes out again, in order
        synced = true;
        for (const w of waiting) { me.send(JSON.stringify(w.cmd)); w.sent = true; }
      }
      onMessage(msg);
    };
    me.onclose = (ev) => { if (ws === me) lost(ev.code); };
  }
  // acknowledged forgets the commands the run has carried out (ids up to ack).
  function acknowledged(ack) {
    while (waiting.length && waiting[0].cmd.id <= ack) waiting.shift();
  }
  open();

  const up = () => ws && ws.readyState === WebSocket.OPEN && synced;
  return {
    // send writes one command and reports whether it was sent or will be (false: the
    // connection is down and the command is not one that waits; onRefused has said why
    // when it was one that waits but the queue is full). The URL still holds the
    // page's state, and the reconnect's snapshot restores it.
    send(cmd) {
      if (!replay || !REPLAYED.has(cmd.type)) {
        if (!up()) return false;
        ws.send(JSON.stringify({ v: VERSION, ...cmd }));
        return true;
      }
      const last = waiting[waiting.length - 1];
      const full = { v: VERSION, ...cmd, id: ++lastId };
      if (!up() && last && !last.sent && last.cmd.type === cmd.type && COALESCED.has(cmd.type)) {
        last.cmd = full; // the newest seek or speed wins
        return true;
      }
      if (waiting.length >= QUEUE_MAX) {
        onRefused(cmd, `Not done: the connection is lost and ${QUEUE_MAX} actions already wait for it; they are carried out when it is back.`);
        return false;
      }
      const w = { cmd: full, sent: false };
      waiting.push(w);
      if (up()) { ws.send(JSON.stringify(full)); w.sent = true; }
      return true;
    },
    close() {
      closed = true;
      clearTimeout(timer);
      stopTimers();
      if (ws) { ws.onclose = null; ws.close(1000, "page closed"); }
    },
    get lastSeq() { return lastSeq; },
    get waiting() { return waiting.length; }, // commands not yet acknowledged
  };
}
