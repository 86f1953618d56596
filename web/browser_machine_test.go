package web

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserTrainedOnAnotherMachine: a shared URL of a model trained on a machine that
// rounds differently (another trained_on) is trained again here, and the page says the numbers may differ in their last
// digits; the URL then names this machine, and the note goes once the model changes.
func TestBrowserTrainedOnAnotherMachine(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	other := "arm64-00000000" // no real fingerprint: a server that rounds differently
	const note = `document.querySelector('[data-testid=trained-elsewhere]')`
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/gru?trained=20&trained_on="+other)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the replayed model", `(q => q.get("trained") === "20" && q.get("trained_on") === document.querySelector("#lesson").dataset.machine)(new URLSearchParams(location.search))`)
	here := evalJS[string](t, ctx, `document.querySelector("#lesson").dataset.machine`)
	if !strings.HasPrefix(here, runtime.GOARCH+"-") || len(here) != len(runtime.GOARCH)+9 {
		t.Errorf("the page names its machine %q, want %s-<8 hex digits>", here, runtime.GOARCH)
	}
	waitForJS(t, ctx, "the note", note+`.hidden === false`)
	if text := evalJS[string](t, ctx, note+`.textContent`); !strings.Contains(text, "arm64, arithmetic 00000000") || !strings.Contains(text, runtime.GOARCH+", arithmetic "+here[len(runtime.GOARCH)+1:]) {
		t.Errorf("the note says %q, want it to name both machines", text)
	}
	if shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`[data-testid=training]`))); err == nil && os.MkdirAll(screenshotDir, 0o755) == nil {
		_ = os.WriteFile(filepath.Join(screenshotDir, "trained-elsewhere.png"), shot, 0o644)
	}
	// Training further makes it this machine's model: the note goes.
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`[data-testid=train-steps]`), "5"),
		chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the note to go", note+`.hidden === true`)

	// The same machine's URL shows no note.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/gru?trained=20&trained_on="+here)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the replayed model", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && (q => q.get("trained") === "20")(new URLSearchParams(location.search))`)
	if evalJS[bool](t, ctx, note+`.hidden === false`) {
		t.Errorf("a model trained on this kind of machine shows the note %q", evalJS[string](t, ctx, note+`.textContent`))
	}
}
