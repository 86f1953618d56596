package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/gorilla/websocket"

	"unroll/sim"
)

// phoneSizes are the phones issue 22 names: the narrowest the layout promises and a
// common one. They are emulated as phones (a mobile viewport and touch), so that the
// page's `pointer: coarse` rules apply.
var phoneSizes = []layoutSize{{360, 740, true}, {390, 844, true}}

// minStageW and minStageH are the least size of a live panel's drawing on a phone's
// first screen, in CSS px: wide enough for a sequence of a few steps, tall enough for
// a few rows or a chart (issue 22).
const minStageW, minStageH = 240, 140

// firstScreenJS measures what a phone shows where the page is now: the panels whose
// drawing is live (drawn for the current step), at least minStageW×minStageH and wholly
// in the viewport; whether the step readout is wholly in it; where the first drawn panel
// is (for the message when none is); and, for a follower, every control that drives the
// run still shown, and every sticky box that is see-through.
const firstScreenJS = `((W, H) => {
  const inside = (r) => r.width > 0 && r.height > 0 && r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  // a drawing wider than its box scrolls in it (dom.js scrollBox): what shows is the box's part of it
  const seen = (c) => { const r = c.getBoundingClientRect(), w = c.parentElement.getBoundingClientRect(); return DOMRect.fromRect({ x: Math.max(r.left, w.left), y: r.top, width: Math.min(r.right, w.right) - Math.max(r.left, w.left), height: r.height }); };
  const step = document.querySelector("[data-testid=step]").textContent;
  const panels = [...document.querySelectorAll(".panels > .panel")].filter(shown);
  const live = panels.filter((p) => {
    const c = p.querySelector("canvas"), r = seen(c);
    return c.width > 0 && p.dataset.step === step && r.width >= W - 0.5 && r.height >= H - 0.5 && inside(r);
  }).map((p) => p.dataset.panel);
  const first = panels.map((p) => { const r = p.querySelector("canvas").getBoundingClientRect(); return p.dataset.panel + " canvas " + Math.round(r.width) + "×" + Math.round(r.height) + " at y " + Math.round(r.top) + "…" + Math.round(r.bottom); }).slice(0, 3);
  const readout = document.querySelector("[data-testid=step-readout]").getBoundingClientRect();
  const CONTROLS = "[data-testid=transport] button, [data-testid=scrubber], [data-testid=speed], [data-testid=transport] [data-param], [data-testid=params] input, [data-testid=params] select, [data-testid=train], [data-testid=train-steps], [data-testid=present], [data-testid=upload], .export-menu, [data-testid=figure-pack], [data-testid=pytorch-export]";
  const controls = [...document.querySelectorAll(CONTROLS)].filter(shown).map((el) => el.dataset.testid || el.className);
  const seeThrough = [...document.querySelectorAll("body *")].filter((el) => shown(el) && /sticky|fixed/.test(getComputedStyle(el).position) && Number(getComputedStyle(el).opacity) < 1).map((el) => el.dataset.testid || el.className);
  const back = document.querySelector("[data-testid=back-to-model]");
  return { live, first, readout: inside(readout), readoutAt: Math.round(readout.top) + "…" + Math.round(readout.bottom), scrollY, controls, seeThrough, back: Boolean(back && shown(back)) };
})(%d, %d)`

// firstScreen is what firstScreenJS measured.
type firstScreen struct {
	Live       []string `json:"live"`
	First      []string `json:"first"`
	Readout    bool     `json:"readout"`
	ReadoutAt  string   `json:"readoutAt"`
	ScrollY    float64  `json:"scrollY"`
	Controls   []string `json:"controls"`
	SeeThrough []string `json:"seeThrough"`
	Back       bool     `json:"back"` // the follower's "Back to the model" button is shown
}

// shownDrawnJS: every panel shown has drawn the current step (one out of the
// spotlight, or the training's loss chart in presenter mode, is not drawn).
const shownDrawnJS = `[...document.querySelectorAll('.panel[data-kind]')].filter((p) => p.getClientRects().length > 0).every((p) => p.dataset.step === document.querySelector('[data-testid=step]').textContent)`

// openLessonJS: the open lesson's link lies wholly inside the navigation's line (one
// line that scrolls sideways on a phone; page.js showOpenLesson).
const openLessonJS = `(() => {
  const here = document.querySelector("header.site nav [aria-current=page]");
  if (!here) return false;
  const r = here.getBoundingClientRect(), box = here.parentElement.getBoundingClientRect();
  return r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1;
})()`

// checkFirstScreen fails the test unless the page shows a live panel (of at least
// minStageW×minStageH, at step 0 too: a heatmap waiting for its first column draws its
// empty grid at full size) and the step readout on the screen it is at; a follower's
// page also shows no control that drives the run, and no sticky box is see-through.
func checkFirstScreen(t *testing.T, ctx context.Context, what string, follower bool) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.fonts.ready.then(() => undefined)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("%s: waiting for the fonts: %v", what, err)
	}
	settle(t, ctx)
	waitForJS(t, ctx, what+": every panel drawn for the step", shownDrawnJS)
	least := minStageH
	s := evalJS[firstScreen](t, ctx, fmt.Sprintf(firstScreenJS, minStageW, least))
	if len(s.Live) == 0 {
		t.Errorf("%s: no live panel of at least %d×%d px wholly on the screen (scrolled to %.0f); the first panels: %s", what, minStageW, least, s.ScrollY, strings.Join(s.First, "; "))
	}
	if !s.Readout {
		t.Errorf("%s: the step readout (y %s) is not wholly on the screen", what, s.ReadoutAt)
	}
	if follower && len(s.Controls) > 0 {
		t.Errorf("%s: a follower is shown controls that drive the run: %s", what, strings.Join(s.Controls, ", "))
	}
	if follower && s.Back {
		t.Errorf("%s: the stage is in view, yet the page offers to go back to the model", what)
	}
	if len(s.SeeThrough) > 0 {
		t.Errorf("%s: sticky boxes are see-through: %s", what, strings.Join(s.SeeThrough, ", "))
	}
}

// emulatePhone makes the tab a phone of size s.
func emulatePhone(t *testing.T, ctx context.Context, s layoutSize) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(s.w, s.h, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)); err != nil {
		t.Fatalf("emulating %s: %v", s, err)
	}
	if !evalJS[bool](t, ctx, `matchMedia("(pointer: coarse)").matches`) {
		t.Fatalf("the emulated %s phone does not match (pointer: coarse)", s)
	}
}

// sendView publishes the instructor's view as the instructor's page does (room.js sendView).
func sendView(t *testing.T, lead *peer, view map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"v": 1, "type": "view", "view": view})
	if err != nil {
		t.Fatal(err)
	}
	if err := lead.c.WriteMessage(websocket.TextMessage, b); err != nil {
		t.Fatalf("sending the view: %v", err)
	}
}

// leadLesson opens the instructor's socket on lesson slug in room code, as the
// instructor's page does when it opens that lesson, and waits for its first snapshot.
func leadLesson(t *testing.T, srv *httptest.Server, slug, code string, secret *http.Cookie) *peer {
	t.Helper()
	lead := leadDial(t, srv, "/lessons/"+slug+"/ws", code, secret)
	until(t, lead, slug+"'s snapshot", isType(sim.SnapshotMessage))
	return lead
}

// TestBrowserPhoneStage: on the two phones, every lesson of the catalog shows a live
// panel of at least minStageW×minStageH and the step readout on its first screen: for
// a student alone (at scroll 0) and for a follower (wherever following leaves the page):
// when the room opens the lesson, after the instructor steps, and when the instructor
// presents. A follower sees no control that drives the run, and nothing sticky is
// see-through. The instructor is a websocket client, as in the room tests; the
// follower's tab follows it from lesson to lesson. One browser, one tab per role and
// size; a screenshot of each lesson, size and mode.
func TestBrowserPhoneStage(t *testing.T) {
	root := startBrowser(t)
	srv := browserServer(t)
	catalog := walkedLessons()
	for _, size := range phoneSizes {
		t.Run(size.String(), func(t *testing.T) {
			solo, cancelSolo := chromedp.NewContext(root)
			defer cancelSolo()
			follow, cancelFollow := chromedp.NewContext(root)
			defer cancelFollow()
			soloErrs, followErrs := watchConsole(solo), watchConsole(follow)
			emulatePhone(t, solo, size)
			emulatePhone(t, follow, size)
			room, secret := startRoom(t, srv, catalog[0].Slug)
			var lead *peer
			for i, l := range catalog {
				name := fmt.Sprintf("%s-%dx%d", l.Slug, size.w, size.h)

				// a student alone
				if err := chromedp.Do(solo, chromedp.Navigate(srv.URL+"/lessons/"+l.Slug)); err != nil {
					t.Fatalf("loading %s: %v", l.Slug, err)
				}
				waitForJS(t, solo, l.Slug+" live", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
				checkFirstScreen(t, solo, l.Slug+" alone at "+size.String(), false)
				if !evalJS[bool](t, solo, openLessonJS) {
					t.Errorf("%s alone at %s: the open lesson is not wholly in view in the navigation's line", l.Slug, size)
				}
				if i == len(catalog)-1 { // presenter mode hid the header; shown again, its line still shows the open lesson
					if err := chromedp.Do(solo, chromedp.Navigate(srv.URL+"/lessons/"+l.Slug+"?present=1")); err != nil {
						t.Fatalf("loading %s presenting: %v", l.Slug, err)
					}
					waitForJS(t, solo, l.Slug+" presenting", `document.body.dataset.stream === "live" && document.querySelector("#lesson").classList.contains("present")`)
					evalJS[chromedp.Void](t, solo, `document.querySelector("[data-testid=present]").click()`) // the instructor's P, as a follower's page hears it
					waitForJS(t, solo, l.Slug+": the navigation back", `document.querySelector("header.site nav").offsetParent !== null`)
					settle(t, solo)
					if !evalJS[bool](t, solo, openLessonJS) {
						t.Errorf("%s at %s, out of presenter mode: the open lesson is not wholly in view in the navigation's line", l.Slug, size)
					}
					if err := chromedp.Do(solo, chromedp.Navigate(srv.URL+"/lessons/"+l.Slug)); err != nil {
						t.Fatalf("loading %s: %v", l.Slug, err)
					}
					waitForJS(t, solo, l.Slug+" live", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
				}
				if err := chromedp.Do(solo, chromedp.Click(chromedp.CSS(`[data-testid=step-forward]`))); err != nil {
					t.Fatalf("%s: stepping: %v", l.Slug, err)
				}
				waitForJS(t, solo, l.Slug+" at step 1", stepReadJS+` === 1`)
				checkFirstScreen(t, solo, l.Slug+" alone, stepped, at "+size.String(), false)
				shoot(t, solo, "phone-"+name+"-solo.png")

				// a follower: the room opens the lesson
				if lead != nil {
					lead.c.Close()
				}
				lead = leadLesson(t, srv, l.Slug, room.Code, secret)
				if i == 0 {
					if err := chromedp.Do(follow, chromedp.Navigate(srv.URL+"/rooms/"+room.Code)); err != nil {
						t.Fatalf("joining: %v", err)
					}
				}
				waitForJS(t, follow, "following "+l.Slug, `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && document.body.dataset.room === "follower" && document.querySelector('#lesson').dataset.slug === "`+l.Slug+`"`)
				evalJS[chromedp.Void](t, follow, `window.scrollTo(0, 0)`) // a page the follower's tab opened (a reload keeps the last lesson's scroll)
				checkFirstScreen(t, follow, l.Slug+" following at "+size.String(), true)
				// the instructor steps, then presents
				lead.do(t, sim.Command{Type: sim.StepCommand})
				waitForJS(t, follow, l.Slug+": the follower at step 1", stepReadJS+` === 1`)
				checkFirstScreen(t, follow, l.Slug+" following, stepped, at "+size.String(), true)
				shoot(t, follow, "phone-"+name+"-follow.png")
				sendView(t, lead, map[string]any{"present": true})
				waitForJS(t, follow, l.Slug+": the follower presenting", `document.querySelector('#lesson').classList.contains("present")`)
				checkFirstScreen(t, follow, l.Slug+" following the instructor presenting at "+size.String(), true)
				shoot(t, follow, "phone-"+name+"-present.png")
			}
			for _, e := range append(soloErrs.list(), followErrs.list()...) {
				if strings.Contains(e, "WebSocket") { // a socket the follower's page closed as it followed the next lesson
					continue
				}
				t.Errorf("console error at %s: %s", size, e)
			}
		})
	}
}

// TestBrowserPhoneFollowerReads: a follower on a phone who scrolled down to read is not
// moved when the instructor steps or presents; a "Back to the model" button is offered,
// and brings the stage back onto the screen (and goes).
func TestBrowserPhoneFollowerReads(t *testing.T) {
	root := startBrowser(t)
	srv := browserServer(t)
	ctx, cancel := chromedp.NewContext(root)
	defer cancel()
	errs := watchConsole(ctx)
	emulatePhone(t, ctx, phoneSizes[0])
	const slug = "gru"
	room, secret := startRoom(t, srv, slug)
	lead := leadLesson(t, srv, slug, room.Code, secret)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/rooms/"+room.Code)); err != nil {
		t.Fatalf("joining: %v", err)
	}
	waitForJS(t, ctx, "following", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && document.body.dataset.room === "follower"`)
	const back = `document.querySelector('[data-testid=back-to-model]')`
	if evalJS[bool](t, ctx, back+` && !`+back+`.hidden`) {
		t.Fatal("the page offers to go back to the model while showing it")
	}
	// the student scrolls to the prose's second paragraph
	y := evalJS[float64](t, ctx, `(() => { document.querySelector('[data-testid=prose] p:nth-child(2)').scrollIntoView({block: "start"}); return scrollY; })()`)
	if y < 500 {
		t.Fatalf("scrolled to the prose at y = %.0f: the prose should be under the stage", y)
	}
	waitForJS(t, ctx, "the offer to go back to the model", back+` && !`+back+`.hidden`)
	const proseTop = `document.querySelector('[data-testid=prose] p:nth-child(2)').getBoundingClientRect().top`
	before := evalJS[float64](t, ctx, proseTop)
	for step := 1; step <= 3; step++ {
		lead.do(t, sim.Command{Type: sim.StepCommand})
		waitForJS(t, ctx, fmt.Sprintf("step %d", step), fmt.Sprintf(`%s === %d && %s`, stepReadJS, step, shownDrawnJS))
	}
	sendView(t, lead, map[string]any{"present": true})
	waitForJS(t, ctx, "presenting", `document.querySelector('#lesson').classList.contains("present")`)
	settle(t, ctx)
	settle(t, ctx)
	if after := evalJS[float64](t, ctx, proseTop); after < before-2 || after > before+2 { // a pixel's rounding
		t.Errorf("the paragraph being read moved from y = %.0f to %.0f as the instructor stepped and presented", before, after)
	}
	shoot(t, ctx, "phone-follower-reading.png")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=back-to-model]`))); err != nil {
		t.Fatalf("clicking back to the model: %v", err)
	}
	waitForJS(t, ctx, "the offer gone", back+`.hidden`)
	checkFirstScreen(t, ctx, "back to the model", true)
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}
