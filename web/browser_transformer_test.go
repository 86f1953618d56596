package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserTransformerMask: on the transformer page the decoder's self-attention
// draws the causal mask (seed 002: −∞ after each position), its table writes
// "masked" in the cells after the diagonal, both stepped and fed the answer; with the
// mask switched off no cell is masked.
func TestBrowserTransformerMask(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	for _, c := range []struct {
		query  string
		masked bool
	}{{"?step=4", true}, {"?step=4&mask=false", false}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/lessons/transformer"+c.query)); err != nil {
			t.Fatal(err)
		}
		waitForJS(t, ctx, "step 4", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && `+stepReadJS+` === 4`)
		for _, id := range []string{"dec-self", "teacher"} {
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=table-toggle-`+id+`]`))); err != nil {
				t.Fatal(err)
			}
			waitForJS(t, ctx, "the table of "+id, `!!document.querySelector('[data-testid=table-`+id+`]')`)
			text := evalJS[string](t, ctx, `document.querySelector('[data-testid=table-`+id+`]').textContent`)
			if got := strings.Contains(text, "masked"); got != c.masked {
				t.Errorf("%s %s: the table says masked: %v, want %v", c.query, id, got, c.masked)
			}
		}
		screenshot(ctx, "transformer-mask-"+map[bool]string{true: "on", false: "off"}[c.masked])
	}
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}
