package web

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserYours: on the yours page a student chooses a model file (the 2-layer
// bidirectional GRU fixture, torch.save) and then drops another (the character GRU with
// embedding and head, safetensors) onto the box; each time the page says what it found,
// the facts name the file, and the heatmaps of the model's own gates are drawn, for
// both directions, while the panels of gates it lacks (an LSTM's) are hidden and the
// top-k panel shows only with a head. A hostile pickle is refused under the box, naming
// the global it calls. Screenshots at 1280×720, 360 px wide and in presenter mode.
func TestBrowserYours(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	_, q := readYours(t, "gru_bi2")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(srv.URL+"/lessons/yours?"+q.Encode())); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the page going live", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=upload-status]').textContent`); !strings.Contains(got, "needs your own model file") {
		t.Errorf("with no file the box says %q, want that the page needs one", got)
	}
	abs, err := filepath.Abs(filepath.Join(torchFixtures, "gru_bi2.pt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(`[data-testid=upload-file]`, []string{abs})); err != nil {
		t.Fatalf("choosing the file: %v", err)
	}
	waitForJS(t, ctx, "the model loaded", `document.querySelector('[data-testid=upload]').dataset.state === "loaded" && document.querySelector('[data-testid=facts-model]').textContent.includes("gru_bi2.pt")`)
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=upload-status]').textContent`); !strings.Contains(got, "nn.GRU, 2 layers, bidirectional") || !strings.Contains(got, "P = 552") {
		t.Errorf("after the upload the box says %q, want the architecture found", got)
	}
	for range 3 {
		if err := chromedp.Do(ctx, chromedp.Click(`[data-testid=step-forward]`)); err != nil {
			t.Fatal(err)
		}
	}
	waitForJS(t, ctx, "step 3 drawn", `document.querySelector('[data-testid=panel-R]').dataset.step === "3" && document.querySelector('[data-testid=panel-H]').dataset.step === "3"`)
	visible := func(id string) bool {
		return evalJS[bool](t, ctx, `!document.querySelector('[data-testid=panel-`+id+`]').hidden`)
	}
	for _, id := range []string{"architecture", "H", "R", "Z", "H_tilde", "grad"} {
		if !visible(id) {
			t.Errorf("GRU: panel %s is hidden", id)
		}
	}
	for _, id := range []string{"I", "F", "O", "C", "C_tilde", "topk"} {
		if visible(id) {
			t.Errorf("GRU without a head: panel %s is shown", id)
		}
	}
	// The reset gate's heatmap has the forward and the reverse blocks of both layers,
	// and its canvas is drawn (not blank).
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=canvas-R]').getAttribute("aria-label")`); got == "" {
		t.Errorf("the reset gate's canvas says nothing")
	}
	if !evalJS[bool](t, ctx, `(() => { const c = document.querySelector('[data-testid=canvas-R]'); const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; const seen = new Set(); for (let i = 0; i < d.length; i += 4 * 97) seen.add(d[i] + "," + d[i+1] + "," + d[i+2]); return seen.size > 8; })()`) {
		t.Errorf("the reset gate's heatmap is blank")
	}
	settle(t, ctx)
	shootTo(t, ctx, "yours-gru-1280.png")
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(`[data-testid=panel-H]`)); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx)
	shootTo(t, ctx, "yours-gru-1280-panels.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 740)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(`[data-testid=upload]`)); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx)
	shootTo(t, ctx, "yours-gru-360.png")
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(`[data-testid=panel-R]`)); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx)
	shootTo(t, ctx, "yours-gru-360-panels.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Click(`[data-testid=present]`)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "presenter mode", `new URLSearchParams(location.search).get("present") === "1"`)
	settle(t, ctx)
	shootTo(t, ctx, "yours-gru-present.png")
	// S walks the spotlight through the panels this model has, never a hidden one.
	for range 8 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent("s")); err != nil {
			t.Fatal(err)
		}
		spot := evalJS[string](t, ctx, `new URLSearchParams(location.search).get("spot") || ""`)
		if spot != "" && !visible(spot) {
			t.Errorf("S spotlit the hidden panel %s", spot)
		}
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid=present]`)); err != nil {
		t.Fatal(err)
	}

	// Drop the character GRU onto the box: its text input does not fit the CSV of the
	// page, so it reads a generated sequence (the page says so), with its head's top-k.
	raw, err := os.ReadFile(filepath.Join(torchFixtures, "char_gru.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	drop := `(() => { const b = Uint8Array.from(atob("` + base64.StdEncoding.EncodeToString(raw) + `"), (c) => c.charCodeAt(0));
		const dt = new DataTransfer(); dt.items.add(new File([b], "char_gru.safetensors"));
		document.querySelector('[data-testid=drop]').dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true })); })()`
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](drop)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the dropped model loaded", `document.querySelector('[data-testid=facts-model]').textContent.includes("char_gru.safetensors") && !document.querySelector('[data-testid=panel-topk]').hidden`)
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=error]').textContent`); !strings.Contains(got, "generated sequence") {
		t.Errorf("the page says %q, want that the input did not fit and a sequence is generated", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`[data-testid=step-forward]`), chromedp.Click(`[data-testid=step-forward]`)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the top-k drawn", `document.querySelector('[data-testid=panel-topk]').dataset.step === "2"`)
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(`[data-testid=panel-topk]`)); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx)
	shootTo(t, ctx, "yours-char-1280.png")

	// A hostile pickle is refused, naming the global; the model stays.
	abs, _ = filepath.Abs(filepath.Join(torchFixtures, "hostile_os_system.pt"))
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(`[data-testid=upload-file]`, []string{abs})); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the refusal", `document.querySelector('[data-testid=upload]').dataset.state === "refused"`)
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=upload-status]').textContent`); !strings.Contains(got, "system") {
		t.Errorf("the hostile file's refusal says %q, want the global it names", got)
	}
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=facts-model]').textContent`); !strings.Contains(got, "char_gru.safetensors") {
		t.Errorf("after the refusal the model is %q, want the one loaded before", got)
	}
	for _, e := range errs.list() {
		if !strings.Contains(e, "/lessons/yours/model?") { // the refusal's 400, which the box said
			t.Errorf("console error: %s", e)
		}
	}
}

// shootTo keeps a screenshot among the artefacts (shoot) and, when UNROLL_SHOTS names a
// directory, there too, to look at.
func shootTo(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shoot(t, ctx, name)
	if dir := os.Getenv("UNROLL_SHOTS"); dir != "" {
		raw, err := os.ReadFile(filepath.Join(screenshotDir, name))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), raw, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
