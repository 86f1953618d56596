// room.js is the page's part in a room: a class following its instructor's page
// (docs/protocol.md, "Rooms"; docs/api.md, "Rooms"). A page has one of four roles:
//
//   ""        a private page, with a "Teach this live" button that starts a room.
//   lead      this tab started a room (sessionStorage "unroll.room" = {code, role}): its
//             lesson socket names the room (room=CODE; the secret is an HttpOnly cookie
//             the server set, never in a URL or a script), so its run is the room's. It
//             shows the join panel (code, URL, QR code) and how many follow and explore.
//   follower  the page the server rendered at /rooms/{code}: its socket is the room's,
//             /rooms/{code}/ws, and it draws the instructor's messages. What it sends is
//             refused by the server (the page's error banner says why), except resume.
//   explorer  this tab forked the room ("Explore on my own"): a private lesson page at
//             the room's state. Its first socket names the room (fork=CODE) and the
//             server starts it from a copy of the room's run, trained weights and all,
//             without training again; its URL is the room's query (trained=N included)
//             so that it can be shared. A small socket to the room (explore=1) brings
//             its news, and "Back to the class" follows again.
//
// What other modules use:
//   open(root, { onMessage, onStatus })  the page's socket, in place of socket.js's
//                                        connect: room.js picks the address and keeps
//                                        the room's messages (room, view) to itself
//   publishView(view)   the instructor's page relays its view beyond the run to the
//                       followers: { present: true, spot: "gates" } (present.js's names) (at most 16
//                       names, each true/false, a number or text of ≤ 128 bytes); kept and
//                       sent again after a reconnect; does nothing on other pages
//   onView(fn)          fn(view) on a follower's page whenever the instructor's view
//                       arrives (also dispatched as the "unroll:view" event on document,
//                       with the view as its detail)
//   currentView()       the last view received (follower) or published (lead), or {}
//   role()              "lead" | "follower" | "explorer" | ""
//   follow(presenter)   ties present.js's presenter ({view(), onChange(fn), set(changes)})
//                       to the room: the instructor's view ({present, spot}) is published
//                       whenever it changes, and a follower's presenter shows it
import { connect } from "./socket.js";
import { wsURL } from "./url.js";
import { tid } from "./dom.js";
import { createUI } from "./roomui.js";
import { keepStage } from "./keepstage.js";

const STORE = "unroll.room"; // sessionStorage: this tab's room, {code, role: "lead" | "explorer", join, fork}
// LEAD: localStorage, the class this browser leads, {code}: a tab closed and opened
// again offers "Resume your class CODE" (the secret stays in its HttpOnly cookie).
const LEAD = "unroll.lead";

let mine = { code: "", role: "" };
let sock = null; // the proxy open returns
let view = {}; // the last view published or received
const viewListeners = [];

export const role = () => mine.role;
export const currentView = () => ({ ...view });
export function onView(fn) { viewListeners.push(fn); }

export function publishView(v) {
  view = { ...v };
  if (mine.role === "lead" && sock) sock.sendView();
}

let presenter = null;
export function follow(p) {
  presenter = p;
  p.onChange((v) => { if (mine.role === "lead") publishView(v); });
  if (mine.role === "lead") publishView(p.view());
  onView((v) => { if (mine.role === "follower") p.set({ present: v.present === true, spot: typeof v.spot === "string" ? v.spot : "" }); }); // gotView keeps the stage in view around it
  if (mine.role === "follower" && Object.keys(view).length) p.set({ present: view.present === true, spot: typeof view.spot === "string" ? view.spot : "" });
}

function stored() {
  try { return JSON.parse(sessionStorage.getItem(STORE) || "null"); } catch { return null; }
}
function store(v) {
  if (v) sessionStorage.setItem(STORE, JSON.stringify(v)); else sessionStorage.removeItem(STORE);
}
function remembered() {
  try { const v = JSON.parse(localStorage.getItem(LEAD) || "null"); return v && /^[A-Z0-9]+$/.test(v.code) ? v : null; } catch { return null; }
}
function remember(code) {
  try { if (code) localStorage.setItem(LEAD, JSON.stringify({ code })); else localStorage.removeItem(LEAD); } catch { /* storage off: no offer */ }
}
// joinInfo asks the server for the join panel's contents of a class this browser leads
// (GET /api/v1/rooms/{code}: its cookie proves it): {join} when it is ours, {gone: true}
// when it is not there or not ours (403, 404), {} when the server could not say.
async function joinInfo(code) {
  try {
    const resp = await fetch(`/api/v1/rooms/${encodeURIComponent(code)}`);
    if (resp.ok) return { join: await resp.json() };
    return { gone: resp.status === 403 || resp.status === 404 };
  } catch { return {}; }
}
const roomSocketURL = (code, query = "") =>
  `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/rooms/${encodeURIComponent(code)}/ws${query}`;
const withParam = (u, kv) => u + (u.includes("?") ? "&" : "?") + kv;

// open starts the page's socket for its role and returns an object with socket.js's
// send, close and lastSeq.
export function open(root, handlers) {
  const slot = tid("room");
  const slug = root.dataset.slug;
  const asked = new URLSearchParams(location.search).get("room"); // ?room=CODE: an instructor reclaims a class
  if (slot?.dataset.roomRole === "follower") mine = { code: slot.dataset.roomCode, role: "follower" };
  else if (asked && /^[A-Za-z0-9]+$/.test(asked)) {
    mine = { code: asked.toUpperCase(), role: "lead" };
    const q = new URLSearchParams(location.search); // the socket names it (url()); the URL shares the lesson only
    q.delete("room");
    history.replaceState(history.state, "", location.pathname + (q.size ? "?" + q : "") + location.hash);
  } else {
    const s = stored();
    if (s && (s.role === "lead" || s.role === "explorer") && /^[A-Z0-9]+$/.test(s.code)) mine = s;
  }
  const ui = createUI(slot);
  let keeper = null; // keepStage's, on a follower's page
  const seen = { session: "", seq: -1, params: {}, step: 0, trained: 0 }; // what the current socket showed
  let takeover = ""; // the private run's session and seq, named once by the lead socket that replaces it
  // The room whose run the explorer's first socket copies (fork=CODE), until a snapshot
  // has come: a reconnect then names its own session, and a reload its own URL.
  let forkFrom = mine.role === "explorer" && mine.fork ? mine.code : "";
  let viewSent = false;
  let inner = null;
  let retired = null; // the socket reopen replaced, closed once the new one is live
  let ended = false;

  function url() {
    if (mine.role === "follower") return roomSocketURL(mine.code);
    let u = wsURL(slug);
    if (mine.role === "lead") u = withParam(u, `room=${mine.code}`);
    if (forkFrom) u = withParam(u, `fork=${encodeURIComponent(forkFrom)}`);
    if (takeover) { u = withParam(u, takeover); takeover = ""; }
    return u;
  }
  let current = null; // the token of the socket in use: a replaced one's callbacks are ignored
  function start() {
    const me = {};
    current = me;
    inner = connect(url, {
      replay: mine.role !== "follower", // a follower's commands are refused anyway
      onRefused: handlers.onRefused,
      onMessage(msg) {
        if (me !== current) return; // a socket this page has replaced
        const h = msg.header;
        const unacked = String(inner.waiting); // commands the run has not acknowledged yet (tests wait on it)
        if (document.body.dataset.unacked !== unacked) document.body.dataset.unacked = unacked;
        if (h.type === "room") { roomNews(h.meta || {}); return; }
        if (h.type === "view") { keeper.around(() => gotView(h.meta || {})); return; }
        if (typeof h.seq === "number") seen.seq = h.seq;
        if (h.type === "snapshot") {
          if (h.session) seen.session = h.session;
          seen.params = h.params || {}; seen.trained = h.trained || 0; seen.step = h.step;
          if (mine.role === "lead" && !viewSent && Object.keys(view).length) proxy.sendView();
          if (forkFrom) { // copied: from now on this page's own run
            forkFrom = "";
            if (mine.role === "explorer") { mine = { code: mine.code, role: "explorer" }; store(mine); }
          }
        } else if (h.type === "frame") seen.step = h.step;
        keeper.around(() => handlers.onMessage(msg));
      },
      onStatus(status, ...rest) {
        if (me !== current) return;
        if (status !== "live") viewSent = false; // a new connection is a new session
        if (status === "live" && retired) { retired.close(); retired = null; }
        handlers.onStatus(status, ...rest);
        if (mine.role === "follower") ui.connection(status);
      },
    });
  }
  // reopen replaces the socket (the page starts or leaves a room): the new one names
  // the old session, so the server hands its run over (4001 to the old one) rather
  // than build a new one.
  function reopen() {
    if (seen.session && seen.seq >= 0) takeover = `session=${encodeURIComponent(seen.session)}&seq=${seen.seq}`;
    retired = inner;
    start();
  }

  function roomNews(m) {
    if (m.ended) {
      ended = true;
      const was = mine.role;
      if (was === "lead" || was === "explorer") store(null);
      if (was === "lead" && remembered()?.code === mine.code) remember(null);
      ui.ended(m.ended, was);
      if (was === "follower") inner.close(); // nothing to reconnect to
      if (was === "explorer" && presence) presence.close();
      mine = { code: mine.code, role: was === "follower" ? "follower" : "" };
      return;
    }
    if (mine.role === "follower" && m.lesson && m.lesson !== slug) { // the instructor opened another lesson: its page follows
      current = null; // this page draws nothing more: the new lesson's messages do not fit its panels
      location.replace(`/rooms/${mine.code}`);
      return;
    }
    ui.news(m, mine.role);
  }
  function gotView(v) {
    view = v;
    document.body.dataset.roomView = JSON.stringify(v);
    for (const fn of viewListeners) fn({ ...v });
    document.dispatchEvent(new CustomEvent("unroll:view", { detail: { ...v } }));
  }

  const proxy = {
    send: (cmd) => inner.send(cmd),
    close: () => { inner.close(); if (presence) presence.close(); },
    get lastSeq() { return inner.lastSeq; },
    sendView() { viewSent = inner.send({ type: "view", view }); },
  };
  sock = proxy;
  let presence = null;

  ui.bind({
    async startRoom() {
      const resp = await fetch("/api/v1/rooms", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ lesson: slug }) });
      const body = await resp.json().catch(() => ({}));
      if (!resp.ok) { ui.problem(body.error || `the server answered ${resp.status}`); return; }
      mine = { code: body.code, role: "lead", join: body };
      store(mine);
      remember(body.code);
      document.body.dataset.room = "lead";
      if (presenter) view = presenter.view(); // the new socket sends it once live
      reopen();
      ui.lead(mine, true);
    },
    async endRoom() {
      await fetch(`/api/v1/rooms/${mine.code}/end`, { method: "POST" });
    },
    explore() { // the room's state as this student's own page: a copy of its run (fork=CODE)
      const q = new URLSearchParams(); // the room's state, for the URL to share
      for (const k of Object.keys(seen.params).sort()) q.set(k, seen.params[k]);
      if (seen.step > 0) q.set("step", String(seen.step));
      if (seen.trained > 0) { q.set("trained", String(seen.trained)); q.set("trained_on", root.dataset.machine || ""); }
      if (view.present === true) q.set("present", "1"); // the instructor's view too (present.js reads it)
      if (typeof view.spot === "string" && view.spot) q.set("spot", view.spot);
      if (!ended) store({ code: mine.code, role: "explorer", fork: true }); // an ended room has no run: the URL's is trained again
      location.assign(`/lessons/${encodeURIComponent(slug)}?${q}`);
    },
    resume(join) { // "Resume your class CODE": this tab leads the class again
      mine = { code: join.code, role: "lead", join };
      store(mine);
      if (presenter) view = presenter.view();
      reopen();
      ui.lead(mine, true);
      document.body.dataset.room = "lead";
    },
    back() {
      const code = mine.code;
      store(null);
      location.assign(`/rooms/${code}`);
    },
  });

  keeper = mine.role === "follower" ? keepStage() : { around: (fn) => fn() };
  start();
  if (mine.role === "lead") {
    ui.lead(mine, Boolean(asked)); // a reclaimed class shows its code at once
    remember(mine.code);
    if (!mine.join?.join?.length) { // a reclaimed class (?room=CODE): the join panel's links from the server
      joinInfo(mine.code).then(({ join }) => {
        if (!join || mine.role !== "lead" || mine.code !== join.code) return; // not ours: the socket's room message says why
        mine = { ...mine, join };
        store(mine);
        ui.lead(mine, document.body.dataset.roomPanel === "open");
      });
    }
  }
  if (!mine.role) { // a class this browser leads, its tab closed: offer it back
    const was = remembered();
    if (was) {
      joinInfo(was.code).then(({ join, gone }) => {
        if (gone) remember(null); // ended, or not this browser's any more
        if (join && !mine.role) ui.offerResume(join);
      });
    }
  }
  if (mine.role === "follower") ui.follower();
  if (mine.role === "explorer") {
    ui.explorer(mine.code);
    presence = connect(() => roomSocketURL(mine.code, "?explore=1"), {
      onMessage(msg) { if (msg.header.type === "room") roomNews(msg.header.meta || {}); },
      onStatus() {},
    });
  }
  document.body.dataset.room = mine.role || "none";
  return proxy;
}
