// keepstage.js keeps a follower's stage in view while the instructor's page moves it
// (room.js runs every update of a follower's page through it).
import { tid } from "./dom.js";

// keepStage keeps a follower's stage (the spotlit panel, else the lesson's first stage
// panel on the page, else the step readout) in view as the instructor steps and changes
// the view, without moving a student who scrolled away to read. around(fn) runs an
// update: a page at its top (where the stage leads) is left there; if the stage was in
// view before and the new layout moved it out, it is brought back; if it was not, the
// text being read stays where it was (as the browser's scroll anchoring does, for
// browsers without it). While the stage is out of view a "Back to the model" button
// brings it back.
export function keepStage() {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "back-to-model";
  button.dataset.testid = "back-to-model";
  button.textContent = "↑ Back to the model";
  button.hidden = true;
  document.body.append(button);
  const shown = (el) => el && el.getClientRects().length > 0;
  function stage() {
    const spot = document.querySelector(".panels > .panel.spot");
    if (shown(spot)) return spot;
    const ranked = [...document.querySelectorAll(".panels > .panel[data-stage]")].filter((p) => Number(p.dataset.stage) > 0 && shown(p))
      .sort((a, b) => Number(a.dataset.stage) - Number(b.dataset.stage));
    return ranked[0] || tid("step-readout");
  }
  function inView() {
    const r = stage()?.getBoundingClientRect();
    return Boolean(r) && r.height > 0 && r.bottom > 0 && r.top < innerHeight;
  }
  function bring() {
    const el = stage();
    if (!el) return;
    const top = el.getBoundingClientRect().top + scrollY;
    if (top + el.getBoundingClientRect().height <= innerHeight) window.scrollTo(0, 0); // the stage is on the page's first screen: show it from the top
    else el.scrollIntoView({ block: "start" });
  }
  const refresh = () => { button.hidden = inView(); };
  let ticking = false;
  window.addEventListener("scroll", () => {
    if (ticking) return;
    ticking = true;
    requestAnimationFrame(() => { ticking = false; refresh(); });
  }, { passive: true });
  button.addEventListener("click", () => { bring(); refresh(); });
  // the layout moves the stage without a scroll too (presenter mode, a panel that grew)
  const seen = new IntersectionObserver(refresh);
  const observe = () => { for (const el of document.querySelectorAll(".panels > .panel, [data-testid=step-readout]")) seen.observe(el); };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", observe); else observe();
  // what a student scrolled away to read: the first paragraph, equation or panel on the screen
  const reading = () => [...document.querySelectorAll(".lesson-text p, .lesson-text .equation, .panels > .panel")]
    .find((el) => el.getClientRects().length > 0 && el.getBoundingClientRect().bottom > 0);
  return {
    around(fn) {
      const top = scrollY === 0, was = inView();
      const anchor = top || was ? null : reading(), before = anchor?.getBoundingClientRect().top;
      fn();
      // the page draws in the next animation frame: look after it
      requestAnimationFrame(() => requestAnimationFrame(() => {
        if (top) { /* the stage leads the page: nothing moved under the student */ }
        else if (was && !inView()) bring();
        else if (anchor && anchor.getClientRects().length > 0) {
          const moved = anchor.getBoundingClientRect().top - before;
          if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
        }
        refresh();
      }));
    },
  };
}
