package web

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserEmbeddingsGloVe (seed 003, Learning 3): with the method GloVe, the
// page's Train fits GloVe live and the facts then describe the page's own GloVe
// model, its J and its measured quality.
func TestBrowserEmbeddingsGloVe(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/lessons/embeddings?method=GloVe")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	train(t, ctx)
	waitForJS(t, ctx, "the facts of the trained GloVe model", `(f => f.includes("GloVe trained from scratch for 30 full-batch steps") && f.includes("before step 30") && f.includes("same-class neighbours"))(document.querySelector('[data-testid=facts]').textContent)`)
	screenshot(ctx, "embeddings-glove-trained")
	for _, e := range errs.list() {
		t.Errorf("console: %s", e)
	}
}
