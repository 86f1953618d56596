// roomui.js is the room's part of the page that people see: the join panel (code, URL,
// QR code), the bar, the banner and the counts (templates/join.templ). room.js decides;
// this shows it.

// createUI finds the room slot's parts (templates/join.templ) and says what happens.
export function createUI(slot) {
  const $t = (id) => slot?.querySelector(`[data-testid="${id}"]`);
  const panel = $t("room-panel"), bar = $t("room-bar"), banner = $t("room-banner");
  const say = (el, text) => { if (el) el.textContent = text; };
  let join = null, counts = "";
  const actions = {};

  function showPanel(open) {
    if (!panel) return;
    panel.hidden = !open;
    bar.hidden = open;
    document.body.dataset.roomPanel = open ? "open" : "closed";
  }
  function chooseHost(i) {
    const link = join.join[i] || join.join[0];
    const a = $t("room-url");
    a.href = link.url; a.textContent = link.url.replace(/^https?:\/\//, "");
    $t("room-qr").src = link.qr_svg;
  }
  function banner_(text, explore, back) {
    banner.hidden = false;
    say($t("room-banner-text"), text);
    $t("room-explore").hidden = !explore;
    $t("room-back").hidden = !back;
  }
  return {
    bind(a) {
      Object.assign(actions, a);
      $t("room-start")?.addEventListener("click", () => actions.startRoom());
      $t("room-hide")?.addEventListener("click", () => showPanel(false));
      $t("room-show")?.addEventListener("click", () => showPanel(true));
      $t("room-end")?.addEventListener("click", () => actions.endRoom());
      $t("room-explore")?.addEventListener("click", () => actions.explore());
      $t("room-back")?.addEventListener("click", () => actions.back());
      $t("room-hosts")?.addEventListener("change", (e) => chooseHost(Number(e.target.value)));
    },
    lead(mine, open) {
      if (!slot) return;
      join = mine.join || { code: mine.code, join: [] };
      $t("room-start").hidden = true;
      $t("room-resume")?.remove(); // leading a class now: no other to resume
      say($t("room-code"), mine.code);
      const hosts = $t("room-hosts");
      hosts.replaceChildren(...join.join.map((l, i) => new Option(l.host, String(i))));
      $t("room-hosts-label").hidden = join.join.length < 2;
      if (join.join.length) chooseHost(0);
      const warn = $t("room-loopback");
      warn.hidden = !join.loopback_only;
      if (join.loopback_only) {
        warn.textContent = join.hint
          ? `This server listens on this computer only: students cannot reach it. Start it with “${join.hint}” to teach on the hall's network or a hotspot.`
          : "This computer has no network address: join the lecture hall's Wi-Fi or start a hotspot, then start the class again.";
      }
      say($t("room-bar-text"), `Class ${mine.code}`);
      showPanel(open);
    },
    follower() {
      banner_("Following the instructor, live.", true, false);
      // what a follower can do: the page shows no control that drives the room's run
      // (room.css), so the banner says where they are
      const hint = document.createElement("span");
      hint.className = "room-banner-hint";
      hint.dataset.testid = "room-banner-hint";
      hint.textContent = "Step it yourself:";
      $t("room-explore")?.before(hint);
      document.body.dataset.roomFollowing = "live";
    },
    explorer(code) {
      $t("room-start").hidden = true; // a student's page starts no class
      banner_(`Exploring on your own (class ${code}).`, false, true);
    },
    // offerResume shows "Resume your class CODE" beside "Teach this live": the class
    // this browser led, its tab closed (room.js remembers it in localStorage).
    offerResume(join) {
      const start = $t("room-start");
      if (!start || $t("room-resume")) return;
      const b = document.createElement("button");
      b.type = "button";
      b.className = start.className;
      b.dataset.testid = "room-resume";
      b.textContent = `Resume your class ${join.code}`;
      b.style.marginInlineStart = "0.5em"; // beside "Teach this live"
      b.title = "Lead your class again from this page: its code, the counts and End come back";
      b.addEventListener("click", () => { b.remove(); actions.resume(join); });
      start.after(b);
    },
    news(m, role) {
      counts = `${m.following} following · ${m.exploring} exploring on their own`;
      if (role === "lead") {
        say($t("room-counts"), counts);
        say($t("room-bar-text"), `Class ${m.code}: ${counts}`);
        slot.dataset.following = String(m.following);
        slot.dataset.exploring = String(m.exploring);
      } else if (role === "follower") {
        const away = m.instructor === "away"; // their page is closed or offline: the class waits for them
        banner_(away ? "The instructor is away. This page follows them again when they are back." : "Following the instructor, live.", true, false);
        banner.dataset.instructor = m.instructor;
        banner.dataset.connection = "live";
      }
    },
    connection(status) { // a follower's own connection: lost is said at once (issue 22)
      if (status === "retry" || status === "reconnecting") {
        banner_("Connection lost — reconnecting to the class…", true, false);
        banner.dataset.connection = "lost";
      }
    },
    ended(why, role) {
      if (!slot) return;
      const text = why.charAt(0).toUpperCase() + why.slice(1) + (why.endsWith(".") ? "" : "."); // the server's reason is a sentence
      if (role === "lead") {
        showPanel(false);
        bar.hidden = false;
        say($t("room-bar-text"), text);
        $t("room-show").hidden = true;
        $t("room-start").hidden = false;
      } else if (role) {
        banner_(text, role === "follower", false);
        $t("room-explore").textContent = "Keep exploring on my own";
        banner.dataset.instructor = "ended";
      }
      slot.dataset.ended = why;
    },
    problem(text) {
      bar.hidden = false;
      say($t("room-bar-text"), `The class could not start: ${text}.`);
      $t("room-show").hidden = true;
    },
  };
}
