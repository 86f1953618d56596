package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"unroll/lessons"
	"unroll/templates"
)

// minStageFont is the smallest text presenter mode may draw on a canvas at 1280×720, in
// CSS px: read from the back of a lecture hall (present.js, STAGE_FONT).
const minStageFont = 18

// canvasFontsJS records, before the page's scripts run, the size in CSS pixels of
// every text drawn on a canvas: the font's px size times the context's scale (drawing
// pixels), times the canvas's CSS-to-drawing-pixel scale (its box's width over its
// width in drawing pixels, which a stretched or shrunk canvas changes). A canvas keeps
// its smallest text since its last resize or the last reset(); window.canvasFonts.min()
// is the smallest of the canvases shown now (their box's scale taken then), count() the
// number of texts drawn since the last reset().
const canvasFontsJS = `(() => {
  let fonts = new Map(), count = 0; // canvas → {width, min}: min in drawing pixels at that width
  const note = (ctx) => {
    const m = /([0-9.]+)px/.exec(ctx.font);
    if (!m) return;
    const t = ctx.getTransform(), c = ctx.canvas;
    const px = Number(m[1]) * Math.hypot(t.a, t.b);
    let f = fonts.get(c);
    if (!f || f.width !== c.width) { f = { width: c.width, min: Infinity }; fonts.set(c, f); }
    f.min = Math.min(f.min, px); count++;
  };
  for (const name of ["fillText", "strokeText"]) {
    const draw = CanvasRenderingContext2D.prototype[name];
    CanvasRenderingContext2D.prototype[name] = function (...args) { note(this); return draw.apply(this, args); };
  }
  const shown = () => [...fonts].filter(([c, f]) => c.isConnected && c.width === f.width && c.getBoundingClientRect().width > 0);
  window.canvasFonts = {
    min: () => Math.min(...shown().map(([c, f]) => f.min * c.getBoundingClientRect().width / c.width)),
    smallest: () => { const all = shown().map(([c, f]) => [f.min * c.getBoundingClientRect().width / c.width, c.dataset.testid]).sort((a, b) => a[0] - b[0]); return all.length ? all[0][1] + " " + all[0][0].toFixed(1) : ""; },
    count: () => count,
    reset: () => { fonts = new Map(); count = 0; },
  };
})()`

// stageTextJS lists every visible text on the stage (the presenter's lesson page, in
// the viewport) whose element's computed font size is under minStageFont CSS px: each
// text node's element, except that an equation counts as its KaTeX box (the formula's
// size; its sub- and superscripts are set smaller, as in print). "Visible" is a text
// with a box of its own inside the viewport, in an element the browser shows.
const stageTextJS = `(() => {
  const small = [];
  const seen = new Set();
  const walk = document.createTreeWalker(document.querySelector("#lesson"), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (!n.data.trim()) continue;
    let el = n.parentElement;
    el = el.closest(".katex") || el;
    if (seen.has(el)) continue;
    if (!el.checkVisibility({ checkOpacity: true, visibilityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const boxes = [...range.getClientRects()].filter((r) => r.width > 1 && r.height > 1 && r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight);
    if (!boxes.length) continue;
    seen.add(el);
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < ` + "%d" + ` - 0.01) small.push(el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "") + " " + JSON.stringify(n.data.trim().slice(0, 30)) + " " + size.toFixed(1) + "px");
  }
  return small;
})()`

// stageJS measures the stage: the equations' box and each panel on the stage, against
// the viewport; and whether the page scrolls either way.
const stageJS = `(() => {
  const inside = (r) => r.width > 0 && r.height > 0 && r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
  const eq = document.querySelector("[data-testid=equations]").getBoundingClientRect();
  const panels = [...document.querySelectorAll(".panels .panel")].filter((p) => p.offsetParent !== null);
  const root = document.scrollingElement;
  return {
    equations: inside(eq),
    equationBox: [eq.left, eq.top, eq.right, eq.bottom].map(Math.round).join(","),
    panelsInside: panels.filter((p) => inside(p.getBoundingClientRect()) && p.querySelector("canvas").height > 0).map((p) => p.dataset.panel),
    offstage: [...document.querySelectorAll(".panel.offstage")].map((p) => p.dataset.panel),
    scrollX: root.scrollWidth > innerWidth,
    scrollY: root.scrollHeight > innerHeight,
    nav: document.querySelector("header.site").offsetParent !== null,
    cut: (() => { const b = document.querySelector(".panels").getBoundingClientRect(); return panels.filter((p) => { const r = p.getBoundingClientRect(); return r.bottom > b.bottom + 1 || r.right > b.right + 1; }).map((p) => p.dataset.panel); })(),
    sideways: [...document.querySelectorAll(".equation[data-tex]")].filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1).map((e) => e.dataset.tex.slice(0, 60)),
  };
})()`

// chipsJS lists the strip's chips (the titles of the panels off the stage) whose text
// shows TeX: a backslash, as in "\(" or "\sigma". A chip copies its panel's title,
// which KaTeX sets after the first frame (stage.js relabel).
const chipsJS = `[...document.querySelectorAll("[data-testid=offstage] button")].map((b) => b.textContent.trim()).filter((t) => t === "" || t.includes("\\"))`

// leadHeightJS is the height in CSS px of the lesson's first main panel's drawing.
const leadHeightJS = `document.querySelector(".panel[data-stage='1'] canvas").getBoundingClientRect().height`

type stage struct {
	Equations    bool     `json:"equations"`
	EquationBox  string   `json:"equationBox"`
	PanelsInside []string `json:"panelsInside"`
	Offstage     []string `json:"offstage"`
	ScrollX      bool     `json:"scrollX"`
	ScrollY      bool     `json:"scrollY"`
	Nav          bool     `json:"nav"`
	Cut          []string `json:"cut"`      // panels shown on the stage but running past its edge
	Sideways     []string `json:"sideways"` // equations too wide for their column even shrunk: they scroll
}

// TestBrowserPresenterMode: every lesson in presenter mode at 1280×720 is a stage: no
// navigation, no scrolling either way, the equations and at least one live panel wholly
// in view, and no canvas text under 18 CSS px. Then P leaves the mode and comes back,
// S spotlights a panel (larger, alone, in the URL) and Esc returns. Screenshots of each
// lesson's stage are kept.
func TestBrowserPresenterMode(t *testing.T) {
	root := startBrowser(t)
	srv := browserServer(t)
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range walkedLessons() {
		t.Run(l.Slug, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(root)
			defer cancel()
			errs := watchConsole(ctx)
			if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: canvasFontsJS}); err != nil {
				t.Fatalf("instrumenting the canvas: %v", err)
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(srv.URL+"/lessons/"+l.Slug+"?present=1")); err != nil {
				t.Fatalf("loading the page: %v", err)
			}
			waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
			settle(t, ctx)

			s := evalJS[stage](t, ctx, stageJS)
			if s.Nav {
				t.Error("the navigation bar is shown in presenter mode")
			}
			if !s.Equations {
				t.Errorf("the equations are not wholly in the 1280×720 viewport: box %s", s.EquationBox)
			}
			if len(s.PanelsInside) == 0 {
				t.Errorf("no live panel lies wholly in the 1280×720 viewport (off the stage: %v)", s.Offstage)
			}
			if s.ScrollX || s.ScrollY {
				t.Errorf("the stage scrolls: sideways %v, down %v", s.ScrollX, s.ScrollY)
			}
			for _, tex := range s.Sideways {
				t.Errorf("an equation scrolls sideways on the stage (split it): %s…", tex)
			}
			if len(s.Cut) > 0 {
				t.Errorf("panels shown but cut at the stage's edge: %v", s.Cut)
			}
			if len(l.Stage) > 0 && !slices.Contains(s.PanelsInside, l.Stage[0]) {
				t.Errorf("the lesson's first main panel %q is not on the stage (on it: %v)", l.Stage[0], s.PanelsInside)
			}
			if n := evalJS[int](t, ctx, `window.canvasFonts.count()`); n == 0 {
				t.Fatal("no text was drawn on any canvas")
			}
			if min := evalJS[float64](t, ctx, `window.canvasFonts.min()`); min < minStageFont-0.01 { // 11 px × 18/11 is 17.999… in floating point
				t.Errorf("the smallest canvas text is %.1f CSS px, want ≥ %d (%s)", min, minStageFont, evalJS[string](t, ctx, `window.canvasFonts.smallest()`))
			}
			for _, small := range evalJS[[]string](t, ctx, fmt.Sprintf(stageTextJS, minStageFont)) {
				t.Errorf("text on the stage under %d CSS px: %s", minStageFont, small)
			}
			t.Logf("on the stage: %v; in the strip: %v", s.PanelsInside, s.Offstage)
			for _, chip := range evalJS[[]string](t, ctx, chipsJS) {
				t.Errorf("a chip in the strip shows TeX (or nothing): %q", chip)
			}
			// Before the first step a heatmap draws its empty grid at the size it will
			// have: the stage does not jump when the first column arrives.
			lead := ""
			if len(l.Stage) > 0 {
				lead = evalJS[string](t, ctx, `document.querySelector(".panel[data-stage='1']").dataset.kind`)
			}
			height0 := 0.0
			if lead == "heatmap" {
				height0 = evalJS[float64](t, ctx, leadHeightJS)
			}

			// A few steps on, with values in every drawing, the main panel is still there.
			for range 4 {
				press(t, ctx, kb.ArrowRight)
			}
			settle(t, ctx)
			settle(t, ctx)
			s = evalJS[stage](t, ctx, stageJS)
			if len(l.Stage) > 0 && !slices.Contains(s.PanelsInside, l.Stage[0]) {
				t.Errorf("four steps on, the lesson's first main panel %q is not on the stage (on it: %v)", l.Stage[0], s.PanelsInside)
			}
			if !s.Equations || s.ScrollX || s.ScrollY || len(s.Sideways) > 0 || len(s.Cut) > 0 {
				t.Errorf("the stage four steps on: %+v", s)
			}
			if min := evalJS[float64](t, ctx, `window.canvasFonts.min()`); min < minStageFont-0.01 {
				t.Errorf("four steps on, the smallest canvas text is %.1f CSS px, want ≥ %d (%s)", min, minStageFont, evalJS[string](t, ctx, `window.canvasFonts.smallest()`))
			}
			for _, small := range evalJS[[]string](t, ctx, fmt.Sprintf(stageTextJS, minStageFont)) {
				t.Errorf("four steps on, text on the stage under %d CSS px: %s", minStageFont, small)
			}
			for _, chip := range evalJS[[]string](t, ctx, chipsJS) {
				t.Errorf("four steps on, a chip in the strip shows TeX (or nothing): %q", chip)
			}
			if lead == "heatmap" {
				if h := evalJS[float64](t, ctx, leadHeightJS); h < height0-2 || h > height0+2 {
					t.Errorf("the main heatmap is %.0f px tall at step 0 and %.0f px four steps on: the stage jumps", height0, h)
				}
			}
			if l.Slug == "bptt" { // the backward pass: the gradients it computes lead the stage
				checkBPTTBackward(t, ctx)
			}
			if l.Slug == "encoder-decoder" { // its diagram scrolls: the decoder comes into view as the steps reach it
				steps := evalJS[int](t, ctx, `Number(document.querySelector("[data-testid=steps]").textContent)`)
				for range steps - 4 {
					press(t, ctx, kb.ArrowRight)
				}
				waitForJS(t, ctx, "the last step", fmt.Sprintf(`%s === %d`, stepReadJS, steps))
				settle(t, ctx)
				if !evalJS[bool](t, ctx, `(() => { const w = document.querySelector("[data-testid=canvas-diagram]").parentElement; return w.scrollLeft + w.clientWidth >= w.scrollWidth - 2; })()`) {
					t.Error("at the last step the end of the decoder is not in view")
				}
				shoot(t, ctx, l.Slug+"-present-last-1280x720.png")
			}
			shoot(t, ctx, l.Slug+"-present-1280x720.png")

			// A 1080p projector: the same stage, larger.
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1920, 1080)); err != nil {
				t.Fatal(err)
			}
			waitForJS(t, ctx, "the 1080p stage", `innerWidth === 1920`)
			settle(t, ctx)
			settle(t, ctx)
			if s := evalJS[stage](t, ctx, stageJS); !s.Equations || len(s.PanelsInside) == 0 || s.ScrollX || s.ScrollY || len(s.Sideways) > 0 {
				t.Errorf("the stage at 1920×1080: %+v", s)
			}
			shoot(t, ctx, l.Slug+"-present-1920x1080.png")
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720)); err != nil {
				t.Fatal(err)
			}
			waitForJS(t, ctx, "back to 1280×720", `innerWidth === 1280`)
			settle(t, ctx)
			settle(t, ctx)

			// S spotlights the first panel: alone on the stage, larger, and in the URL.
			first := l.Panels[0].ID
			before := evalJS[float64](t, ctx, fmt.Sprintf(`document.querySelector('[data-panel=%q] canvas').getBoundingClientRect().height`, first))
			press(t, ctx, "s")
			waitForJS(t, ctx, "the spotlight in the URL", fmt.Sprintf(`new URLSearchParams(location.search).get("spot") === %q`, first))
			settle(t, ctx)
			if n := evalJS[int](t, ctx, `[...document.querySelectorAll(".panels .panel")].filter((p) => p.offsetParent !== null).length`); n != 1 {
				t.Errorf("%d panels shown in the spotlight, want 1", n)
			}
			after := evalJS[float64](t, ctx, fmt.Sprintf(`document.querySelector('[data-panel=%q] canvas').getBoundingClientRect().height`, first))
			if after < before {
				t.Errorf("the spotlit panel is %.0f px tall, smaller than on the stage (%.0f px)", after, before)
			}
			if s := evalJS[stage](t, ctx, stageJS); !s.Equations || len(s.PanelsInside) != 1 || s.ScrollX || s.ScrollY {
				t.Errorf("the spotlight's stage: %+v", s)
			}
			if l.Slug == "gru" {
				shoot(t, ctx, l.Slug+"-spotlight-1280x720.png")
			}
			press(t, ctx, kb.Escape)
			waitForJS(t, ctx, "Esc leaves the spotlight", `!new URLSearchParams(location.search).has("spot") && !document.querySelector("#lesson").classList.contains("spotlit")`)

			// P leaves presenter mode (the navigation is back) and enters it again.
			press(t, ctx, "p")
			waitForJS(t, ctx, "P leaves presenter mode", `!new URLSearchParams(location.search).has("present") && document.querySelector("header.site").offsetParent !== null`)
			press(t, ctx, "P")
			waitForJS(t, ctx, "P enters presenter mode", `new URLSearchParams(location.search).get("present") === "1" && document.querySelector("header.site").offsetParent === null`)
			for _, e := range errs.list() {
				t.Errorf("console error: %s", e)
			}
		})
	}
}

// checkBPTTBackward steps bptt's stage into its backward pass and fails unless a
// gradient panel (the norms' chart or the ∂L/∂H_t heatmap) lies wholly on the stage:
// in each phase the stage shows what is changing (stage.js, idleAt). A screenshot of
// it is kept.
func checkBPTTBackward(t *testing.T, ctx context.Context) {
	t.Helper()
	steps := evalJS[int](t, ctx, `Number(document.querySelector("[data-testid=steps]").textContent)`)
	target := steps/2 + 3 // three steps into the backward pass
	for range target - evalJS[int](t, ctx, stepReadJS) {
		press(t, ctx, kb.ArrowRight)
	}
	waitForJS(t, ctx, "the backward pass", fmt.Sprintf(`%s === %d`, stepReadJS, target))
	settle(t, ctx)
	settle(t, ctx)
	settle(t, ctx)
	s := evalJS[stage](t, ctx, stageJS)
	if !slices.Contains(s.PanelsInside, "grad-norms") && !slices.Contains(s.PanelsInside, "dH") {
		t.Errorf("in the backward pass no gradient panel is on the stage (on it: %v; in the strip: %v)", s.PanelsInside, s.Offstage)
	}
	if !s.Equations || s.ScrollX || s.ScrollY || len(s.Cut) > 0 {
		t.Errorf("the stage in the backward pass: %+v", s)
	}
	for _, small := range evalJS[[]string](t, ctx, fmt.Sprintf(stageTextJS, minStageFont)) {
		t.Errorf("in the backward pass, text on the stage under %d CSS px: %s", minStageFont, small)
	}
	for _, chip := range evalJS[[]string](t, ctx, chipsJS) {
		t.Errorf("in the backward pass, a chip in the strip shows TeX (or nothing): %q", chip)
	}
	shoot(t, ctx, "bptt-present-backward-1280x720.png")
}

// TestBrowserPresenterKeys: every key the page lists (templates.Keys) does what it says,
// the ? overlay lists them all, and no letter key fires while the focus is in a text
// field.
func TestBrowserPresenterKeys(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(srv.URL+"/lessons/rnn")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	evalJS[chromedp.Void](t, ctx, `document.activeElement.blur()`)

	press(t, ctx, "?")
	waitForJS(t, ctx, "? opens the list of keys", `document.querySelector("[data-testid=keys-help]").open`)
	listed := evalJS[string](t, ctx, `document.querySelector("[data-testid=keys-help]").textContent`)
	for _, k := range templates.Keys {
		if !strings.Contains(listed, k.What) {
			t.Errorf("the overlay does not list %q", k.What)
		}
	}
	shoot(t, ctx, "keys-help-1280x720.png")
	press(t, ctx, kb.Escape)
	waitForJS(t, ctx, "Esc closes the list", `!document.querySelector("[data-testid=keys-help]").open`)

	// A text field takes its letters: P and S type, nothing else happens.
	field := `[data-testid=param-prompt]`
	if evalJS[bool](t, ctx, `!document.querySelector("[data-testid=param-prompt]")`) {
		t.Fatal("the rnn page has no prompt field to type in")
	}
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(field)), chromedp.KeyEvent("ps?")); err != nil {
		t.Fatal(err)
	}
	if s := evalJS[string](t, ctx, `location.search + (document.querySelector("[data-testid=keys-help]").open ? " help" : "")`); strings.Contains(s, "present") || strings.Contains(s, "spot") || strings.Contains(s, "help") {
		t.Errorf("typing in a field fired page keys: %s", s)
	}
	evalJS[chromedp.Void](t, ctx, `document.activeElement.blur()`)

	// → steps, R resets, space plays and pauses (the transport's keys, on the stage too).
	press(t, ctx, "P")
	waitForJS(t, ctx, "presenter mode", `document.querySelector("#lesson").classList.contains("present")`)
	press(t, ctx, kb.ArrowRight)
	waitForJS(t, ctx, "→ steps", stepReadJS+` >= 1`)
	press(t, ctx, "r")
	waitForJS(t, ctx, "R resets", stepReadJS+` === 0`)
	press(t, ctx, " ")
	waitForJS(t, ctx, "space plays", `document.querySelector("[data-testid=play]").getAttribute("aria-pressed") === "true"`)
	press(t, ctx, " ")
	waitForJS(t, ctx, "space pauses", `document.querySelector("[data-testid=play]").getAttribute("aria-pressed") === "false"`)
	// F asks for full screen; headless Chromium grants it.
	press(t, ctx, "f")
	waitForJS(t, ctx, "F enters full screen", `document.fullscreenElement !== null`)
	press(t, ctx, "f")
	waitForJS(t, ctx, "F leaves full screen", `document.fullscreenElement === null`)
	// A click on a panel's title spotlights it; another click returns.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.panel .spot-toggle`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "a click on a title spotlights its panel", `new URLSearchParams(location.search).has("spot")`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.panel.spot .spot-toggle`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "a second click returns", `!new URLSearchParams(location.search).has("spot")`)
}

// press sends one key to the page, as a person would with nothing focused.
func press(t *testing.T, ctx context.Context, key string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(key)); err != nil {
		t.Fatalf("pressing %q: %v", key, err)
	}
}

// shoot keeps a screenshot of the viewport among the test's artefacts.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err == nil {
		err = os.MkdirAll(screenshotDir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(screenshotDir, name), shot, 0o644)
	}
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
}

// settle waits for two animation frames, so that a redraw the last one asked for is done.
func settle(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("waiting for a redraw: %v", err)
	}
}

// maxJoinStrip is the most height (CSS px) the join panel may take above the stage in
// presenter mode at 1280×720: a small QR code's row, a ninth of the screen.
const maxJoinStrip = 80

// TestBrowserPresenterJoinStrip: the natural order (start a class, show the join panel,
// press P) leaves the stage its room: the open join panel is a strip (code, a small QR
// code, the counts at ≥ 18 px) and the lesson's main panel stays on the stage with
// every text at ≥ 18 px; J shows the panel full size over the stage and J again, or
// Esc, brings the strip back. Screenshots of both are kept.
func TestBrowserPresenterJoinStrip(t *testing.T) {
	ctx := startBrowser(t)
	local := lanServer(t) // the join panel has a LAN URL and a QR code to show
	l, ok := lessons.Find("gru")
	if !ok {
		t.Fatal("no lesson gru")
	}
	errs := watchConsole(ctx)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: canvasFontsJS}); err != nil {
		t.Fatalf("instrumenting the canvas: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(local+"/lessons/"+l.Slug)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=room-start]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the join panel with its counts", `document.body.dataset.roomPanel === "open" && document.querySelector("[data-testid=room-qr]").naturalWidth > 0 && document.querySelector("[data-testid=room-counts]").textContent.includes("following")`)
	evalJS[chromedp.Void](t, ctx, `document.activeElement.blur()`)
	press(t, ctx, "P")
	waitForJS(t, ctx, "presenter mode", `document.querySelector("#lesson").classList.contains("present")`)
	settle(t, ctx)
	settle(t, ctx)

	type strip struct {
		Height, QR, Counts, Code float64
		Over                     bool // the panel lies over the stage (position: fixed)
	}
	const stripJS = `(() => {
	  const q = (id) => document.querySelector("[data-testid=" + id + "]");
	  return { Height: q("room-panel").getBoundingClientRect().height, QR: q("room-qr").getBoundingClientRect().width,
	    Counts: parseFloat(getComputedStyle(q("room-counts")).fontSize), Code: q("room-code").getBoundingClientRect().width,
	    Over: getComputedStyle(q("room-panel")).position === "fixed" };
	})()`
	st := evalJS[strip](t, ctx, stripJS)
	if st.Height > maxJoinStrip || st.Over {
		t.Errorf("the join panel on the stage is %.0f px tall (over the stage: %v), want a strip of at most %d px", st.Height, st.Over, maxJoinStrip)
	}
	if st.Counts < minStageFont-0.01 || st.Code == 0 || st.QR == 0 {
		t.Errorf("the strip: counts at %.1f px (want ≥ %d), code %.0f px wide, QR %.0f px wide", st.Counts, minStageFont, st.Code, st.QR)
	}
	sg := evalJS[stage](t, ctx, stageJS)
	if !slices.Contains(sg.PanelsInside, l.Stage[0]) || !sg.Equations || sg.ScrollX || sg.ScrollY || len(sg.Cut) > 0 {
		t.Errorf("the stage under the join strip: %+v", sg)
	}
	for _, small := range evalJS[[]string](t, ctx, fmt.Sprintf(stageTextJS, minStageFont)) {
		t.Errorf("text on the stage under the join strip under %d CSS px: %s", minStageFont, small)
	}
	if min := evalJS[float64](t, ctx, `window.canvasFonts.min()`); min < minStageFont-0.01 {
		t.Errorf("the smallest canvas text under the join strip is %.1f CSS px, want ≥ %d", min, minStageFont)
	}
	shoot(t, ctx, l.Slug+"-join-strip-1280x720.png")

	// J: the panel full size over the stage; J again, and Esc, the strip.
	press(t, ctx, "j")
	waitForJS(t, ctx, "J shows the join panel full size", `document.querySelector("[data-testid=room]").dataset.join === "full"`)
	if st := evalJS[strip](t, ctx, stripJS); !st.Over || st.QR < 300 {
		t.Errorf("the join panel full size: %+v, want over the stage with a QR code ≥ 300 px", st)
	}
	shoot(t, ctx, l.Slug+"-join-full-1280x720.png")
	press(t, ctx, "J")
	waitForJS(t, ctx, "J brings the strip back", `!document.querySelector("[data-testid=room]").dataset.join`)
	press(t, ctx, "j")
	waitForJS(t, ctx, "J again", `document.querySelector("[data-testid=room]").dataset.join === "full"`)
	press(t, ctx, kb.Escape)
	waitForJS(t, ctx, "Esc brings the strip back", `!document.querySelector("[data-testid=room]").dataset.join && document.querySelector("#lesson").classList.contains("present")`)
	if st := evalJS[strip](t, ctx, stripJS); st.Height > maxJoinStrip {
		t.Errorf("the strip after Esc is %.0f px tall", st.Height)
	}
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}
