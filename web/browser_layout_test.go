package web

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// minTouchTarget is the least height of a control on a touch screen, in CSS px: the
// size of a fingertip (Apple's and WCAG 2.5.5's 44 px).
const minTouchTarget = 44

// layoutSize is a screen the layout must serve. A phone is emulated as one (a mobile
// viewport and touch), so that the page's `pointer: coarse` rules apply.
type layoutSize struct {
	w, h  int64
	phone bool
}

func (s layoutSize) String() string { return fmt.Sprintf("%dx%d", s.w, s.h) }

// layoutSizes: the narrowest phone the layout promises (360 px), a common phone, a
// laptop and a full-HD monitor or projector.
var layoutSizes = []layoutSize{{360, 740, true}, {390, 844, true}, {1280, 720, false}, {1920, 1080, false}}

// layoutJS measures the page as a reader meets it. scroll: whether the page itself
// scrolls sideways; poke: the outermost boxes past the screen's edge. clipped: every box (a panel, its canvas box, an equation, the
// controls) whose content is wider than the box while the box does not scroll, so that
// the content spills over its neighbours or is cut. unlabelled: every box that scrolls
// sideways but cannot be reached from the keyboard (no tabindex, nothing focusable in
// it) or has no name for a screen reader. cramped: every panel that scrolls sideways
// though its row of the panel grid has room for it to widen (a large screen). small: on a coarse pointer, every visible control under
// minTouchTarget px tall (a checkbox counts its label, which a tap also toggles).
const layoutJS = `((SCREEN) => {
  const BOXES = "main, .columns > *, .live > *, .panels, .panel, .panel > *, .canvas-wrap, .equations, .equation, .prose, .pinned, .params, .param, .transport, .facts dl, .training, .train-controls, .exports, .lesson-list li, .symbol-readout, .room, table";
  const name = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.dataset.testid) s += "[data-testid=" + el.dataset.testid + "]";
    else if (typeof el.className === "string" && el.className.trim()) s += "." + el.className.trim().split(/\s+/).join(".");
    const p = el.closest(".panel");
    return p && p !== el ? s + " in panel " + p.dataset.panel : s;
  };
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const scrolls = (el) => /auto|scroll/.test(getComputedStyle(el).overflowX);
  const clipped = [], unlabelled = [], small = [];
  for (const el of document.querySelectorAll(BOXES)) {
    if (!shown(el) || el.clientWidth === 0) continue;
    if (el.scrollWidth > el.clientWidth + 1 && !scrolls(el)) clipped.push(name(el) + ": content " + el.scrollWidth + " px wide in a box of " + el.clientWidth + " px");
  }
  for (const el of document.querySelectorAll("body *")) {
    if (!shown(el) || el.scrollWidth <= el.clientWidth + 1 || !scrolls(el)) continue;
    // tabbing to a link or button inside a box scrolls the box to it
    const reachable = el.tabIndex >= 0 || el.querySelector("a[href], button, input, select, textarea, [tabindex]");
    if (!reachable || !(el.getAttribute("aria-label") || el.getAttribute("aria-labelledby"))) unlabelled.push(name(el) + " (tabindex " + el.getAttribute("tabindex") + ", label " + JSON.stringify(el.getAttribute("aria-label")) + ")");
  }
  const coarse = matchMedia("(pointer: coarse)").matches;
  if (coarse) for (const el of document.querySelectorAll("button, input:not([type=hidden]), select, summary")) {
    if (!shown(el) || el.closest(".sr")) continue;
    let h = el.getBoundingClientRect().height;
    if (el.type === "checkbox" || el.type === "radio") for (const l of el.labels || []) h = Math.max(h, l.getBoundingClientRect().height);
    if (h < ` + "%d" + ` - 0.5) small.push(name(el) + (el.type ? "[type=" + el.type + "]" : "") + ": " + h.toFixed(1) + " px tall");
  }
  // a panel that scrolls sideways while its row has room for it to widen
  const cramped = [];
  for (const p of document.querySelectorAll(".panels > .panel")) {
    const grid = p.parentElement;
    if (shown(p) && p.querySelector("[data-scrolls]") && p.getBoundingClientRect().width < grid.clientWidth - 1) cramped.push(name(p) + ": " + Math.round(p.getBoundingClientRect().width) + " px wide in a row of " + grid.clientWidth + " px");
  }
  // what pokes out of the screen: the outermost boxes whose right edge is past it
  const poke = [];
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect(), up = el.parentElement.getBoundingClientRect();
    if (shown(el) && r.right > SCREEN + 0.5 && up.right <= SCREEN + 0.5) poke.push(name(el) + ": " + Math.round(r.width) + " px wide, right edge at " + Math.round(r.right));
  }
  const root = document.scrollingElement;
  return { innerWidth, scrollWidth: root.scrollWidth, coarse, clipped, unlabelled, small, poke, cramped };
})(%d)`

// layoutReport is what layoutJS measured.
type layoutReport struct {
	InnerWidth  int      `json:"innerWidth"`
	ScrollWidth int      `json:"scrollWidth"`
	Coarse      bool     `json:"coarse"`
	Clipped     []string `json:"clipped"`
	Unlabelled  []string `json:"unlabelled"`
	Small       []string `json:"small"`
	Poke        []string `json:"poke"`
	Cramped     []string `json:"cramped"`
}

// layoutPages are the index and the walked lesson pages the server lists (lessonSlugs).
func layoutPages(t *testing.T, base string) []string {
	t.Helper()
	pages := []string{"/"}
	for _, slug := range lessonSlugs(t, base) {
		pages = append(pages, "/lessons/"+slug)
	}
	return pages
}

// TestBrowserLayout: at two phone sizes, a laptop and a full-HD screen, the index and
// every lesson page fit the width: the page never scrolls sideways, no panel, equation
// or control box has content wider than itself unless it scrolls sideways itself, and
// such a scroller can be reached from the keyboard and is named; a panel scrolls only
// when its row is full (no wide drawing cramped in half a row). On the phones (a
// coarse pointer) every control is at least minTouchTarget px tall. One browser, one
// server, one load of each page for the phones and one for the screens.
func TestBrowserLayout(t *testing.T) {
	root := startBrowser(t)
	srv := browserServer(t)
	pages := layoutPages(t, srv.URL)
	// One tab for the phones and one for the screens: each page is loaded at the first
	// size of its kind, then the viewport changes to the next, as a phone turned or a
	// window resized (the page fits its equations again: body data-fits counts it).
	for _, kind := range []struct {
		name  string
		phone bool
	}{{"phones", true}, {"screens", false}} {
		t.Run(kind.name, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(root)
			defer cancel()
			errs := watchConsole(ctx)
			for _, path := range pages {
				first := true
				for _, size := range layoutSizes {
					if size.phone != kind.phone {
						continue
					}
					emulate := chromedp.EmulateViewport(size.w, size.h)
					if size.phone {
						emulate = chromedp.EmulateViewport(size.w, size.h, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
					}
					fits := 0
					if !first && path != "/" {
						fits = evalJS[int](t, ctx, `Number(document.body.dataset.fits || 0)`)
					}
					if err := chromedp.Do(ctx, emulate); err != nil {
						t.Fatalf("emulating %s: %v", size, err)
					}
					if first {
						if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+path)); err != nil {
							t.Fatalf("loading %s: %v", path, err)
						}
						if path != "/" {
							waitForJS(t, ctx, path+" live", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
						}
						// KaTeX's fonts change the equations' widths (math.js fits them again)
						if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.fonts.ready.then(() => undefined)`, chromedp.EvalAwaitPromise)); err != nil {
							t.Fatalf("%s: waiting for the fonts: %v", path, err)
						}
					} else if path != "/" {
						waitForJS(t, ctx, fmt.Sprintf("%s's equations fitted to %s", path, size), fmt.Sprintf(`Number(document.body.dataset.fits || 0) > %d`, fits))
					}
					first = false
					settle(t, ctx)
					checkLayout(t, ctx, path, size)
				}
			}
			for _, e := range errs.list() {
				t.Errorf("console error at %s: %s", kind.name, e)
			}
		})
	}
}

// checkLayout fails the test for what layoutJS finds wrong with the page at size, and
// keeps its screenshot.
func checkLayout(t *testing.T, ctx context.Context, path string, size layoutSize) {
	t.Helper()
	r := evalJS[layoutReport](t, ctx, fmt.Sprintf(layoutJS, minTouchTarget, size.w))
	// a phone zooms out to show a page wider than its screen: innerWidth grows with it
	if wide := max(r.ScrollWidth, r.InnerWidth); wide > int(size.w) {
		t.Errorf("%s at %s: the page scrolls sideways: %d px of content in %d px; past the edge: %s", path, size, wide, size.w, strings.Join(r.Poke, "; "))
	}
	for _, c := range r.Clipped {
		t.Errorf("%s at %s: clipped: %s", path, size, c)
	}
	for _, c := range r.Cramped {
		t.Errorf("%s at %s: a panel scrolls sideways while its row has room: %s", path, size, c)
	}
	for _, u := range r.Unlabelled {
		t.Errorf("%s at %s: scrolls sideways but has no tabindex or no aria-label: %s", path, size, u)
	}
	if size.phone && !r.Coarse {
		t.Fatalf("%s at %s: the emulated phone does not match (pointer: coarse)", path, size)
	}
	if r.Coarse {
		for _, s := range r.Small {
			t.Errorf("%s at %s: a control under %d px on a touch screen: %s", path, size, minTouchTarget, s)
		}
	}
	name := strings.TrimPrefix(path, "/lessons/")
	if path == "/" {
		name = "index"
	}
	shoot(t, ctx, fmt.Sprintf("layout-%s-%dx%d.png", name, size.w, size.h))
}

// touchAt is one finger on the screen at the point x, y (CSS px in the viewport), moved
// through the further points, then lifted.
func touchAt(t *testing.T, ctx context.Context, x, y float64, moves ...[2]float64) {
	t.Helper()
	at := func(typ input.DispatchTouchEventType, pts ...*input.TouchPoint) {
		t.Helper()
		if pts == nil {
			pts = []*input.TouchPoint{}
		}
		if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: pts}); err != nil {
			t.Fatalf("touch %s: %v", typ, err)
		}
	}
	at(input.DispatchTouchEventTypeTouchStart, &input.TouchPoint{X: x, Y: y})
	for _, m := range moves {
		at(input.DispatchTouchEventTypeTouchMove, &input.TouchPoint{X: m[0], Y: m[1]})
	}
	at(input.DispatchTouchEventTypeTouchEnd)
}

// box is an element's box in the viewport, after scrolling it to the middle.
type box struct {
	Left   float64 `json:"left"`
	Top    float64 `json:"top"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

func boxOf(t *testing.T, ctx context.Context, sel string) box {
	t.Helper()
	b := evalJS[box](t, ctx, fmt.Sprintf(`(() => { const el = document.querySelector(%q); el.scrollIntoView({block: "center"}); const r = el.getBoundingClientRect(); return {left: r.left, top: r.top, width: r.width, height: r.height}; })()`, sel))
	if b.Width == 0 || b.Height == 0 {
		t.Fatalf("%s has no box", sel)
	}
	return b
}

// TestBrowserTouch: on a phone a tap on a panel shows the readout that hovering shows,
// inside the screen and above the finger, a tap elsewhere hides it, and a finger swiped along the time
// scrubber seeks.
func TestBrowserTouch(t *testing.T) {
	root := startBrowser(t)
	srv := browserServer(t)
	ctx, cancel := chromedp.NewContext(root)
	defer cancel()
	errs := watchConsole(ctx)
	const at = 10
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait),
		chromedp.Navigate(fmt.Sprintf("%s/lessons/gru?step=%d", srv.URL, at))); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the page at step 10", fmt.Sprintf(`document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && %s === %d && %s`, stepReadJS, at, drawnStepJS))

	// a tap on the hidden state's heatmap, in its filled columns
	c := boxOf(t, ctx, `.panel-heatmap canvas`)
	settle(t, ctx)
	tapX, tapY := c.Left+c.Width*0.4, c.Top+c.Height/2
	touchAt(t, ctx, tapX, tapY)
	waitForJS(t, ctx, "the readout after a tap", `!document.querySelector('[data-testid=tooltip]').hidden`)
	tip := evalJS[struct {
		Text   string  `json:"text"`
		Left   float64 `json:"left"`
		Right  float64 `json:"right"`
		Bottom float64 `json:"bottom"`
	}](t, ctx, `(() => { const e = document.querySelector('[data-testid=tooltip]'), r = e.getBoundingClientRect(); return {text: e.textContent, left: r.left, right: r.right, bottom: r.bottom}; })()`)
	if !strings.Contains(tip.Text, "step") || !strings.ContainsAny(tip.Text, "0123456789") {
		t.Errorf("the readout after a tap says %q, want a cell's step and value", tip.Text)
	}
	if tip.Left < 0 || tip.Right > 360 {
		t.Errorf("the readout spans x = %.0f…%.0f, outside the 360 px screen", tip.Left, tip.Right)
	}
	if tip.Bottom > tapY {
		t.Errorf("the readout reaches down to y = %.0f, under the finger at y = %.0f", tip.Bottom, tapY)
	}
	p := boxOf(t, ctx, `[data-testid=facts]`) // a tap elsewhere
	touchAt(t, ctx, p.Left+4, p.Top+4)
	waitForJS(t, ctx, "the readout to go after a tap elsewhere", `document.querySelector('[data-testid=tooltip]').hidden`)

	// a swipe along the scrubber, from its thumb (at step 10 of 11) to near its start
	s := boxOf(t, ctx, `[data-testid=scrubber]`)
	max := evalJS[float64](t, ctx, `Number(document.querySelector('[data-testid=scrubber]').max)`)
	if s.Height < minTouchTarget-0.5 {
		t.Errorf("the scrubber is %.1f px tall, want ≥ %d", s.Height, minTouchTarget)
	}
	thumb := s.Left + minTouchTarget/2 + (s.Width-minTouchTarget)*at/max
	y := s.Top + s.Height/2
	touchAt(t, ctx, thumb, y, [2]float64{thumb - 20, y}, [2]float64{s.Left + s.Width/2, y}, [2]float64{s.Left + 4, y})
	waitForJS(t, ctx, "the step after a swipe along the scrubber", fmt.Sprintf(`%s <= 1 && %s`, stepReadJS, drawnStepJS))
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}

// TestBrowserScrollerKeys: a drawing wider than a phone's screen scrolls inside its box,
// which the keyboard reaches with Tab, and there → scrolls it instead of stepping the model.
func TestBrowserScrollerKeys(t *testing.T) {
	root := startBrowser(t)
	srv := browserServer(t)
	ctx, cancel := chromedp.NewContext(root)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 740), chromedp.Navigate(srv.URL+"/lessons/encoder-decoder")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	const box = `document.querySelector('[data-testid=panel-diagram] .canvas-wrap')`
	waitForJS(t, ctx, "the diagram to scroll in its box", box+`.hasAttribute('data-scrolls') && `+box+`.scrollWidth > `+box+`.clientWidth`)
	if name := evalJS[string](t, ctx, box+`.getAttribute('aria-label')`); !strings.Contains(name, "encoder") {
		t.Errorf("the diagram's scrolling box is named %q, want its panel's title", name)
	}
	step := evalJS[int](t, ctx, stepReadJS)
	evalJS[chromedp.Void](t, ctx, box+`.focus()`)
	for range 3 {
		press(t, ctx, kb.ArrowRight)
	}
	waitForJS(t, ctx, "→ to scroll the focused diagram", box+`.scrollLeft > 0`)
	settle(t, ctx)
	if now := evalJS[int](t, ctx, stepReadJS); now != step {
		t.Errorf("→ in the diagram's box stepped the model from %d to %d", step, now)
	}
}
