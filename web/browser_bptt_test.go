package web

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserBPTTPasses: on the bptt page (a forward and a backward pass over
// t = 1..T on 2T scrubber steps) the transport, the facts heading and the
// scrubber's spoken value name the pass and the real time step t, not the scrubber's
// step: step 45 of 60 is "backward pass, t = 16 / 30", one step back t = 17, and step
// 30 the forward pass's t = 30.
func TestBrowserBPTTPasses(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/bptt?step=45")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	waitForJS(t, ctx, "step 45", stepReadJS+` === 45`)
	read := func() (pass, heading, valuetext string) {
		pass = evalJS[string](t, ctx, `document.querySelector('[data-testid=pass-readout]').textContent`)
		heading = evalJS[string](t, ctx, `document.querySelector('[data-testid=facts-now] dt.head')?.textContent || ""`)
		valuetext = evalJS[string](t, ctx, `document.querySelector('[data-testid=scrubber]').getAttribute('aria-valuetext') || ""`)
		return
	}
	check := func(step int, want string) {
		t.Helper()
		pass, heading, valuetext := read()
		if pass != want {
			t.Errorf("step %d: the transport reads %q, want %q", step, pass, want)
		}
		if wantHead := want + " (step " + strconv.Itoa(step) + ")"; heading != wantHead {
			t.Errorf("step %d: the facts heading reads %q, want %q", step, heading, wantHead)
		}
		if !strings.HasPrefix(valuetext, want+", step "+strconv.Itoa(step)+" / 60") {
			t.Errorf("step %d: the scrubber's aria-valuetext is %q, want it to start %q", step, valuetext, want)
		}
	}
	check(45, "backward pass, t = 16 / 30")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=step-back]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "step 44", stepReadJS+` === 44`)
	check(44, "backward pass, t = 17 / 30")
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/bptt?step=30")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "step 30", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && `+stepReadJS+` === 30`)
	check(30, "forward pass, t = 30 / 30")
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}

// TestBrowserBPTTCutHatched: with truncation k = 10 over T = 30, once the backward
// pass is done the gradient heatmap says in words that the 20 cut columns are
// hatched, its table writes "cut by truncation" in them instead of a number, and a
// cut column's pixels differ from a column not computed yet (before the backward
// pass reaches it): hatch lines on white, not plain grey.
func TestBrowserBPTTCutHatched(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/bptt?truncate=10&step=60")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "step 60", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && `+stepReadJS+` === 60`)
	waitForJS(t, ctx, "the heatmap's words", `(document.querySelector('[data-testid=panel-dH] canvas')?.getAttribute('aria-label') || "").includes("20 columns hatched: cut by truncation")`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=table-toggle-dH]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the table", `(document.querySelector('[data-testid=table-dH]')?.textContent || "").includes("cut by truncation")`)
	// the canvas's colours at t = 5 (cut) and, one page later at step 45, at t = 5 (not computed yet)
	pixels := `(() => { const c = document.querySelector('[data-testid=panel-dH] canvas'), x = c.getContext('2d');
		const z = c.width / c.getBoundingClientRect().width, w = c.getBoundingClientRect().width;
		const col = (34 + (w - 34 - 64) * (4.5 / 30)) * z; const out = new Set();
		for (let y = 12 * z; y < 120 * z; y += 1) { const d = x.getImageData(Math.round(col), Math.round(y), 1, 1).data; out.add(d[0] + "," + d[1] + "," + d[2]); }
		return [...out]; })()`
	cut := evalJS[[]string](t, ctx, pixels)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/bptt?truncate=10&step=45")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "step 45", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && `+stepReadJS+` === 45`)
	notYet := evalJS[[]string](t, ctx, pixels)
	if len(notYet) != 1 {
		t.Errorf("a column not computed yet has %d colours (%v), want one plain grey", len(notYet), notYet)
	}
	if len(cut) < 2 || (len(notYet) == 1 && strings.Join(cut, ";") == notYet[0]) {
		t.Errorf("a cut column has colours %v, want hatch lines on a ground, unlike the not-computed grey %v", cut, notYet)
	}
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}
