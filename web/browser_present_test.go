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
// every text drawn on a canvas: the font's px size times the context's scale, over the
// device pixel ratio. window.canvasFonts.min() is the smallest since the last reset().
const canvasFontsJS = `(() => {
  let min = Infinity, count = 0;
  const note = (ctx) => {
    const m = /([0-9.]+)px/.exec(ctx.font);
    if (!m) return;
    const t = ctx.getTransform();
    const px = Number(m[1]) * Math.hypot(t.a, t.b) / (window.devicePixelRatio || 1);
    min = Math.min(min, px); count++;
  };
  for (const name of ["fillText", "strokeText"]) {
    const draw = CanvasRenderingContext2D.prototype[name];
    CanvasRenderingContext2D.prototype[name] = function (...args) { note(this); return draw.apply(this, args); };
  }
  window.canvasFonts = { min: () => min, count: () => count, reset: () => { min = Infinity; count = 0; } };
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
	for _, l := range lessons.Catalog() {
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
			waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live"`)
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
				t.Errorf("the smallest canvas text is %.1f CSS px, want ≥ %d", min, minStageFont)
			}
			t.Logf("on the stage: %v; in the strip: %v", s.PanelsInside, s.Offstage)

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

// TestBrowserPresenterKeys: every key the page lists (templates.Keys) does what it says,
// the ? overlay lists them all, and no letter key fires while the focus is in a text
// field.
func TestBrowserPresenterKeys(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(srv.URL+"/lessons/rnn")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live"`)
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
