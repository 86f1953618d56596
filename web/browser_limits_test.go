package web

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"unroll/lessons"
	"unroll/sim"
)

// TestBrowserServerFull: a page that arrives when the server's memory budget is full is
// told so, keeps trying, and goes live by itself once there is room; the Train control
// offers only the lesson's cap on training.
func TestBrowserServerFull(t *testing.T) {
	ctx := startBrowser(t)
	s, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.memory.mu.Lock()
	s.memory.limit = 0 // full
	s.memory.mu.Unlock()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 740), chromedp.Navigate(srv.URL+"/lessons/seq2seq")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the page to say the server is full", `document.querySelector('[data-testid=conn]').textContent.startsWith("the server is full; trying again in")`)
	if err := os.MkdirAll(screenshotDir, 0o755); err == nil {
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(screenshotDir, "server-full-360.png"), png, 0o644)
		}
	}
	s.memory.mu.Lock()
	s.memory.limit = maxSessionBytes
	s.memory.mu.Unlock()
	waitForJS(t, ctx, "the page to go live once there is room", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && document.querySelector('[data-testid=conn]').dataset.state === "live"`)
	l, _ := s.lesson("seq2seq")
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=train-steps]').max`); got != strconv.Itoa(l.MaxTrained) {
		t.Errorf("the Train control offers up to %s steps, want the lesson's cap %d", got, l.MaxTrained)
	}
}

// TestBrowserEnforcesLimits: the page enforces sim's limits as the server renders them,
// on both sides of each: its scripts read sim's values (static/js/limits.js); the
// speed slider reaches sim.MaxSpeed and no further, and playing at its top speed is
// accepted; a text field takes its parameter's limit and says when a paste is cut to
// it; and a parameter change of exactly sim.MaxCommandBytes goes to the server (which
// refuses the text, not the command), while one byte more is refused by the page
// itself, with the limit, and the socket stays open.
func TestBrowserEnforcesLimits(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/gru")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)

	type pageLimits struct {
		MaxCommandBytes int     `json:"maxCommandBytes"`
		MinSpeed        float64 `json:"minSpeed"`
		MaxSpeed        float64 `json:"maxSpeed"`
		MaxTrainSteps   int     `json:"maxTrainSteps"`
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[pageLimits](`import("/static/js/limits.js").then(m => ({...m.readLimits()}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if want := (pageLimits{sim.MaxCommandBytes, sim.MinSpeed, sim.MaxSpeed, sim.MaxTrainSteps}); got != want {
		t.Errorf("the page's scripts read the limits %+v, want sim's %+v", got, want)
	}

	// The speed slider: up to sim.MaxSpeed, which the server takes.
	if lo, hi := evalJS[float64](t, ctx, `Number(document.querySelector('[data-testid=speed]').min)`), evalJS[float64](t, ctx, `Number(document.querySelector('[data-testid=speed]').max)`); hi != sim.MaxSpeed || lo < sim.MinSpeed {
		t.Errorf("the speed slider runs from %v to %v, want from at least sim.MinSpeed = %v to sim.MaxSpeed = %v", lo, hi, sim.MinSpeed, sim.MaxSpeed)
	}
	if got := evalJS[string](t, ctx, `(s => { s.value = String(Number(s.max) + 1); s.dispatchEvent(new Event("input")); return s.value; })(document.querySelector('[data-testid=speed]'))`); got != strconv.Itoa(sim.MaxSpeed) {
		t.Errorf("the speed slider took %s, want at most %d", got, sim.MaxSpeed)
	}
	seq := evalJS[int](t, ctx, `Number(document.body.dataset.seq)`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=play]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "playing at the top speed", fmt.Sprintf(`Number(document.body.dataset.seq) > %d`, seq))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=reset]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the reset", stepReadJS+` === 0 && document.querySelector('[data-testid=play]').getAttribute('aria-pressed') === "false"`)
	if msg := evalJS[string](t, ctx, `(e => e.hidden ? "" : e.textContent)(document.querySelector('[data-testid=error]'))`); msg != "" {
		t.Errorf("playing at sim.MaxSpeed: the page shows %q", msg)
	}

	// The text field: its parameter's limit, and a paste cut to it is noted.
	var spec sim.ParamSpec
	for _, l := range lessons.Catalog() {
		for _, s := range l.Params {
			if l.Slug == "gru" && s.Name == "input" {
				spec = s
			}
		}
	}
	if spec.Kind != sim.Text {
		t.Fatal("the gru lesson has no text parameter named input")
	}
	const field = `document.querySelector('[data-testid=param-input]')`
	if got := evalJS[int](t, ctx, field+`.maxLength`); got != spec.TextLimit() {
		t.Errorf("the input field takes %d characters, want its parameter's limit %d", got, spec.TextLimit())
	}
	paste := func(n int) {
		evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`(c => { c.value = ""; c.focus(); const d = new DataTransfer(); d.setData("text", "1".repeat(%d));
			c.dispatchEvent(new ClipboardEvent("paste", {clipboardData: d, bubbles: true, cancelable: true})); })(%s)`, n, field))
	}
	const note = `document.querySelector('[data-testid=note-input]')`
	paste(spec.TextLimit())
	if evalJS[bool](t, ctx, `(n => !!n && !n.hidden)(`+note+`)`) {
		t.Errorf("a paste of exactly the limit is noted: %q", evalJS[string](t, ctx, note+`.textContent`))
	}
	paste(spec.TextLimit() + 1)
	if want := fmt.Sprintf("at most %d characters", spec.TextLimit()); !evalJS[bool](t, ctx, fmt.Sprintf(`(n => !!n && !n.hidden && n.textContent.includes(%q))(%s)`, want, note)) {
		t.Errorf("a paste one past the limit: want a note saying %q", want)
	}
	evalJS[chromedp.Void](t, ctx, `document.activeElement.blur()`)

	// A command of exactly sim.MaxCommandBytes is sent: the server refuses the text as
	// too long for the field, not the command.
	base := len(`{"v":1,"type":"set","params":{"input":""}}`)
	send := func(n int) {
		evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`(c => { c.value = "1".repeat(%d); c.dispatchEvent(new Event("change")); })(%s)`, n, field))
	}
	const banner = `document.querySelector('[data-testid=error]')`
	send(sim.MaxCommandBytes - base)
	waitForJS(t, ctx, "the server's refusal of the long text", fmt.Sprintf(`!%s.hidden && %s.textContent.includes("the limit is %d")`, banner, banner, spec.TextLimit()))
	if state := evalJS[string](t, ctx, `document.querySelector('[data-testid=conn]').dataset.state`); state != "live" {
		t.Errorf("after a command of exactly sim.MaxCommandBytes the connection is %q, want live", state)
	}
	// One byte more: the page refuses it, names the limit, and the socket stays open.
	send(sim.MaxCommandBytes - base + 1)
	want := fmt.Sprintf("(%d bytes; the limit is %d)", sim.MaxCommandBytes+1, sim.MaxCommandBytes)
	waitForJS(t, ctx, "the page's refusal", fmt.Sprintf(`!%s.hidden && %s.textContent.includes(%q)`, banner, banner, want))
	time.Sleep(300 * time.Millisecond) // a close would show by now
	if state := evalJS[string](t, ctx, `document.querySelector('[data-testid=conn]').dataset.state`); state != "live" {
		t.Errorf("after a command one byte past sim.MaxCommandBytes the connection is %q, want live (the page did not send it)", state)
	}
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}
