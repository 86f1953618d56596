// socket.js is the one module that owns the lesson websocket: it connects, decodes the
// binary server messages of docs/protocol.md, sends JSON commands, and after an
// unexpected close reconnects with jittered exponential backoff, naming the session
// of its last snapshot and the last sequence number it saw, so that the server hands
// back the same run (trained weights, playing) and its numbers continue.

export const VERSION = 1;
const CLOSE_REPLACED = 4001; // this session's run went to a newer connection: do not fight it
const CLOSE_FULL = 1013; // try again later: the server has no memory for another session now
const BACKOFF_START = 0.5, BACKOFF_MAX = 10, JITTER = 0.5; // seconds, ±50 % (protocol.md)

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

// connect opens the socket at url() (called again for every reconnect, so it carries
// the page's current state) and reports decoded messages to onMessage and the
// connection's state to onStatus("live" | "connecting" | "retry" | "full", seconds).
export function connect(url, { onMessage, onStatus }) {
  let ws = null, attempts = 0, lastSeq = -1, session = "", closed = false, timer = 0;

  function open() {
    onStatus("connecting");
    let u = url();
    if (lastSeq >= 0) u += `${u.includes("?") ? "&" : "?"}session=${encodeURIComponent(session)}&seq=${lastSeq}`;
    ws = new WebSocket(u);
    ws.binaryType = "arraybuffer";
    ws.onmessage = (ev) => {
      if (typeof ev.data === "string") return; // the server only sends binary
      let msg;
      try { msg = decode(ev.data); } catch (err) {
        onStatus("bad", 0, String(err)); return;
      }
      attempts = 0;
      if (typeof msg.header.seq === "number") lastSeq = msg.header.seq;
      if (typeof msg.header.session === "string") session = msg.header.session;
      onStatus("live");
      onMessage(msg);
    };
    ws.onclose = (ev) => {
      ws = null;
      if (closed) return;
      if (ev.code === CLOSE_REPLACED) { onStatus("replaced", 0, ev.code); return; }
      const delay = backoff(attempts++);
      onStatus(ev.code === CLOSE_FULL ? "full" : "retry", delay / 1000, ev.code);
      timer = setTimeout(open, delay);
    };
  }
  open();

  return {
    // send writes one command; it returns false when the socket is not open (the URL
    // still holds the state, and the reconnect's snapshot restores it).
    send(cmd) {
      if (!ws || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(JSON.stringify({ v: VERSION, ...cmd }));
      return true;
    },
    close() {
      closed = true;
      clearTimeout(timer);
      if (ws) ws.close(1000, "page closed");
    },
    get lastSeq() { return lastSeq; },
  };
}
