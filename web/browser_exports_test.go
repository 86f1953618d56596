package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// packWait is how long a figure pack may take in a browser test (see its use).
const packWait = 90 * time.Second

// TestBrowserPanelExports: from a real page, a panel's export menu fetches the file
// for the page's state and saves it; a refusal is said in the menu; the figure pack
// downloads; and an export asked for while the model trains waits, saying the
// training's progress, then follows.
func TestBrowserPanelExports(t *testing.T) {
	srv := browserServer(t)
	ctx := startBrowser(t)
	console := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/gru?step=5")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the page to be live", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	click := func(testid string) {
		t.Helper()
		evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`(a => { a.closest("details") && (a.closest("details").open = true); a.click(); })(document.querySelector('[data-testid="%s"]'))`, testid))
	}
	status := func(id string) string {
		return fmt.Sprintf(`document.querySelector('[data-testid="%s"]').textContent`, id)
	}
	for _, ext := range []string{"png", "svg", "pdf", "csv"} {
		click("export-R-" + ext)
		waitForJS(t, ctx, "the "+ext+" to be saved", fmt.Sprintf(`%s === "saved gru-R-step5.%s"`, status("export-status-R"), ext))
	}
	click("export-R-gif") // the animation runs through every step
	waitForJS(t, ctx, "the gif to be saved", fmt.Sprintf(`%s === "saved gru-R-steps1-11.gif"`, status("export-status-R")))
	// A dark 4:3 slide; a width the server refuses is said, not saved.
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid="export-theme-R"]').value = "dark"; document.querySelector('[data-testid="export-slide-R"]').value = "4:3"`)
	click("export-R-png")
	waitForJS(t, ctx, "the dark slide", fmt.Sprintf(`%s === "saved gru-R-step5.png"`, status("export-status-R")))
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid="export-width-R"]').value = "99999"`)
	click("export-R-png")
	waitForJS(t, ctx, "the width's refusal", fmt.Sprintf(`/^width must be/.test(%s)`, status("export-status-R")))
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid="export-width-R"]').value = "1920"`)
	// A panel with nothing to draw yet is said, not saved.
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid="step-back"]') && history.replaceState(null, "", location.pathname + location.search.replace(/step=\d+/, "step=0"))`)
	click("export-R-png")
	waitForJS(t, ctx, "the refusal", fmt.Sprintf(`/step forward/.test(%s)`, status("export-status-R")))
	evalJS[chromedp.Void](t, ctx, `history.replaceState(null, "", location.pathname + location.search.replace(/step=\d+/, "step=5"))`)
	click("figure-pack")
	// A pack draws every panel the page shows in three formats: 35 s for the gru page
	// under -race on a busy 2-core machine (3 s without -race), so it gets packWait.
	waitForJSWithin(t, ctx, packWait, "the figure pack", fmt.Sprintf(`%s === "saved gru-step5-figures.zip"`, status("figure-pack-status")))

	// Training from scratch: the export waits for the model it names.
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=train-steps]').value = "3000"`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "training to start", `/^\d+ \/ 3000/.test(document.querySelector("[data-testid=train-status]").textContent)`)
	click("export-Z-csv")
	waitForJS(t, ctx, "the export to wait, saying the progress", fmt.Sprintf(`/^training to step \d+: \d+ %%/.test(%s)`, status("export-status-Z")))
	// 3000 training steps first: 3 s alone, past browserWait under -race while other
	// tests load both cores (CI failed there once), so it gets packWait too.
	waitForJSWithin(t, ctx, packWait, "the export after training", fmt.Sprintf(`/^saved gru-Z-step\d+\.csv$/.test(%s)`, status("export-status-Z")))
	click("export-loss-png") // the training loss, from the page's session
	waitForJS(t, ctx, "the loss curve", fmt.Sprintf(`/^saved gru-loss-step\d+\.png$/.test(%s)`, status("export-status-loss")))
	for _, e := range console.list() {
		if !strings.Contains(e, "status of 400") || !strings.Contains(e, "/panels/R.png?") { // the refusals asked for above
			t.Errorf("console error: %s", e)
		}
	}
}

// TestBrowserPyTorchExport: the "Use in PyTorch" link saves model.safetensors for the
// page's state, in either GRU form (the lectures' for lecture_gru.py, the reset-after
// for nn.GRU), and with a gate clamped in the reset-after form says why it cannot
// (nn.GRU cannot hold a gate).
func TestBrowserPyTorchExport(t *testing.T) {
	srv := browserServer(t)
	ctx := startBrowser(t)
	console := watchConsole(ctx)
	status := `document.querySelector('[data-testid="pytorch-status"]').textContent`
	click := `(a => { a.closest("details").open = true; a.click(); })(document.querySelector('[data-testid="pytorch-download"]'))`
	for _, c := range []struct{ query, want, what string }{
		{"step=5", status + ` === "saved model.safetensors"`, "the lectures' form saved"},
		{"step=5&variant=reset-after", status + ` === "saved model.safetensors"`, "the file saved"},
		{"step=5&variant=reset-after&clamp=Z", `/clamped/.test(` + status + `)`, "the clamped gate refused"},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/gru?"+c.query)); err != nil {
			t.Fatal(err)
		}
		waitForJS(t, ctx, "the page to be live", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
		evalJS[chromedp.Void](t, ctx, click)
		waitForJS(t, ctx, c.what, c.want)
	}
	for _, e := range console.list() {
		if !strings.Contains(e, "status of 400") || !strings.Contains(e, "/model.safetensors?") { // the refusal asked for above
			t.Errorf("console error: %s", e)
		}
	}
}
