package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// sceneClickJS clicks the captioning page's scene canvas where scene.js draws a grid
// cell (kind "cell", row, col from 0) or a brush swatch (kind "colour" or "shape", i
// its index), from the module's own layout constants; it returns the point clicked.
const sceneClickJS = `((kind, a, b) => {
	const c = document.querySelector('[data-testid=canvas-scene]'), r = c.getBoundingClientRect();
	const z = Number(c.dataset.zoom) || (r.width / (c.width / (window.devicePixelRatio || 1))) || 1;
	const grid = 3, pad = 4, swatch = 26, gap = 6, top = 10;
	const cell = Math.max(36, Math.min(80, Math.floor((Math.max(120, c.parentElement.clientWidth) / z - 2 * pad) / grid)));
	let x, y;
	if (kind === "cell") { x = pad + b * cell + cell / 2; y = pad + a * cell + cell / 2; }
	else { y = pad + grid * cell + top + swatch / 2; x = pad + (kind === "colour" ? a : 4 + a) * (swatch + gap) + (kind === "shape" ? gap : 0) + swatch / 2; }
	const px = r.left + x * z, py = r.top + y * z;
	c.dispatchEvent(new MouseEvent("click", { clientX: px, clientY: py, bubbles: true }));
	return [px, py];
})`

// TestBrowserCaptioningDraw: on the captioning page (seed 002 vector to sequence,
// seed 003 image captioning) a reader draws an image by clicking the scene panel: a
// click on a shape with its own colour and shape chosen takes it away, a chosen
// colour and shape go into an empty cell, a third shape is refused with a note; each
// accepted drawing reaches the server as the image parameter (the URL and the
// grammar's caption change) and the three approaches caption it. Screenshots at
// 1280×720, 360 px and in presenter mode are kept as artefacts.
func TestBrowserCaptioningDraw(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	console := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(srv.URL+"/lessons/captioning")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "live", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	facts := func() string {
		return evalJS[string](t, ctx, `document.querySelector('[data-testid=facts]').textContent`)
	}
	if f := facts(); !strings.Contains(f, "a red circle above a blue triangle") {
		t.Fatalf("the default image's caption is not in the facts: %q", f)
	}
	click := func(kind string, a, b int) {
		t.Helper()
		evalJS[[]float64](t, ctx, fmt.Sprintf(`%s(%q, %d, %d)`, sceneClickJS, kind, a, b))
	}
	image := `new URLSearchParams(location.search).get("image")`

	// the default brush is red circle: clicking the red circle takes it away
	click("cell", 0, 0)
	waitForJS(t, ctx, "the red circle taken away", image+` === "blue triangle 3 1"`)
	waitForJS(t, ctx, "the new caption", `document.querySelector('[data-testid=facts]').textContent.includes("a blue triangle at the bottom left")`)

	// green square into row 1, column 3
	click("colour", 1, 0)
	click("shape", 1, 0)
	if b := evalJS[string](t, ctx, `document.querySelector('[data-testid=canvas-scene]').getAttribute('aria-label')`); b == "" {
		t.Errorf("the scene panel has no description")
	}
	click("cell", 0, 2)
	waitForJS(t, ctx, "the green square placed", image+` === "blue triangle 3 1, green square 1 3"`)
	waitForJS(t, ctx, "the pair's caption", `document.querySelector('[data-testid=facts]').textContent.includes("a blue triangle left of a green square")`)

	// a third shape is refused in the panel, and nothing is sent
	click("cell", 1, 1)
	waitForJS(t, ctx, "the note", `(document.querySelector('[data-testid=canvas-scene]').dataset.sceneNote || "").includes("at most 2 shapes")`)
	if got := evalJS[string](t, ctx, image); got != "blue triangle 3 1, green square 1 3" {
		t.Errorf("after a refused third shape the image is %q", got)
	}

	// the end of the captions: every approach's word is a fact, the lists are drawn
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=step-forward]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "step 1", stepReadJS+` === 1 && `+drawnStepJS)
	f := facts()
	for _, want := range []string{"written, approach 1", "written, approach 2", "written, approach 3", "the grammar's word"} {
		if !strings.Contains(f, want) {
			t.Errorf("step 1's facts lack %q: %q", want, f)
		}
	}
	if n := evalJS[int](t, ctx, `Number(document.body.dataset.undeclared || 0)`); n != 0 {
		t.Errorf("%d undeclared reads", n)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	shoot := func(name string) {
		if shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(screenshotDir, name), shot, 0o644)
		}
	}
	shoot("captioning-drawn-1280.png")

	for _, v := range []struct {
		name, query string
		w, h        int64
	}{{"360", "step=3", 360, 740}, {"present", "step=3&present=1", 1280, 720}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(v.w, v.h), chromedp.Navigate(srv.URL+"/lessons/captioning?"+v.query)); err != nil {
			t.Fatal(err)
		}
		// presenter mode draws only the panels on its stage
		waitForJS(t, ctx, v.name+": step 3 drawn", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && `+stepReadJS+` === 3 && [...document.querySelectorAll('.panel[data-kind]')].every(p => p.offsetParent === null || p.dataset.step === "3")`)
		if over := evalJS[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
			t.Errorf("%s: the page is %d px wider than the window", v.name, over)
		}
		shoot("captioning-" + v.name + ".png")
		if v.name == "360" { // the panels one by one, where a phone's width tests them
			for _, id := range []string{"scene", "topks", "captions", "held_out"} {
				if shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`[data-testid=panel-`+id+`]`))); err == nil {
					_ = os.WriteFile(filepath.Join(screenshotDir, "captioning-360-"+id+".png"), shot, 0o644)
				}
			}
		}
	}
	for _, e := range console.list() {
		t.Errorf("console error: %s", e)
	}
}
