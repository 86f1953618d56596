package web

import (
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserRnnTrainingSample: while the rnn page trains its language model from
// scratch, the tokens panel shows the newest sample the model wrote (its label names
// the training step it was drawn at, a multiple of 50 after the first), and a later
// progress message brings a newer sample, drawn after more steps.
func TestBrowserRnnTrainingSample(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/lessons/rnn")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	typeInto(t, ctx, "train-steps", "2000")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil {
		t.Fatal(err)
	}
	const label = `(document.querySelector('[data-panel=tokens] canvas')?.getAttribute('aria-label') || "")`
	sampled := regexp.MustCompile(`sample written after (\d+) training steps: ([^;]*)`)
	waitForJS(t, ctx, "a sample drawn after 50 steps or more", `/sample written after [1-9]\d*[05]0 training steps/.test(`+label+`)`)
	first := sampled.FindStringSubmatch(evalJS[string](t, ctx, label))
	if first == nil {
		t.Fatalf("the tokens panel's label names no sample: %q", evalJS[string](t, ctx, label))
	}
	waitForJS(t, ctx, "a newer sample", `(m => !!m && Number(m[1]) > `+first[1]+`)(`+label+`.match(/sample written after (\d+) training steps/))`)
	second := sampled.FindStringSubmatch(evalJS[string](t, ctx, label))
	if second == nil || second[2] == first[2] {
		t.Errorf("after %s and %s training steps the samples are the same: %q", first[1], second[1], first[2])
	}
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(`[data-panel=tokens]`)); err == nil {
		screenshot(ctx, "rnn-training-sample")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil { // Stop
		t.Fatal(err)
	}
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}
