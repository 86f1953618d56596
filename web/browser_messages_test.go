package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"unroll/lessons"
	"unroll/sim"
)

// screenshot saves the tab's viewport as testdata/screenshots/<name>.png, best effort.
func screenshot(ctx context.Context, name string) {
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		return
	}
	if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		_ = os.WriteFile(filepath.Join(screenshotDir, name+".png"), png, 0o644)
	}
}

// typeInto replaces what a field holds by typing text into it, key by key, as a
// student does (text "" only empties it).
func typeInto(t *testing.T, ctx context.Context, testid, text string) {
	t.Helper()
	sel := fmt.Sprintf(`[data-testid=%q]`, testid)
	evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`(f => { f.scrollIntoView({block: "center"}); f.focus(); f.select?.(); })(document.querySelector(%q))`, sel))
	keys := "\b" // the selection goes
	if text != "" {
		keys = text
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(sel), keys)); err != nil {
		t.Fatalf("typing %q into %s: %v", text, testid, err)
	}
}

// TestBrowserTrainSteps: the Train box refuses "", "-3" and "abc" with a note that says
// what to type, and nothing trains (no message comes, the status stays); 99999 is
// capped at the lesson's cap, the note says so and why, and training starts with the
// capped count.
func TestBrowserTrainSteps(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	var l *lessons.Lesson
	for _, c := range lessons.Catalog() {
		if c.Slug == "gru" {
			l = c
		}
	}
	if l == nil {
		t.Fatal("no gru lesson")
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/lessons/gru")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	const note = `document.querySelector('[data-testid=note-train-steps]')`
	const status = `document.querySelector('[data-testid=train-status]').textContent`
	for _, c := range []struct{ typed, shot, want string }{
		{"", "train-steps-empty", "Type how many steps to train: a whole number from 1 to " + strconv.Itoa(l.MaxTrained)},
		{"-3", "train-steps-negative", "is not a number of steps: type a whole number from 1 to " + strconv.Itoa(l.MaxTrained)},
		// A number box takes no letters in Chrome (the box stays empty); where it does, it reads them as "" with badInput.
		{"abc", "train-steps-letters", "a whole number from 1 to " + strconv.Itoa(l.MaxTrained)},
		{"1.5", "", "is not a number of steps"},
	} {
		typeInto(t, ctx, "train-steps", c.typed)
		seq := evalJS[int](t, ctx, `Number(document.body.dataset.seq)`)
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil {
			t.Fatal(err)
		}
		waitForJS(t, ctx, fmt.Sprintf("the note on %q", c.typed), fmt.Sprintf(`(n => !!n && !n.hidden && n.textContent.includes(%q) && n.textContent.includes("Nothing was trained"))(%s)`, c.want, note))
		if c.shot != "" {
			screenshot(ctx, c.shot)
		}
		time.Sleep(400 * time.Millisecond) // a train command's first progress would be here by now
		if got := evalJS[int](t, ctx, `Number(document.body.dataset.seq)`); got != seq {
			t.Errorf("%q: the server sent %d messages: training started", c.typed, got-seq)
		}
		if got := evalJS[string](t, ctx, status); got != "not training" {
			t.Errorf("%q: the status says %q, want not training", c.typed, got)
		}
		if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=train-steps]').getAttribute('aria-invalid') || ""`); got != "true" {
			t.Errorf("%q: the box is not marked invalid", c.typed)
		}
		if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=error]').hidden ? "" : document.querySelector('[data-testid=error]').textContent`); got != "" {
			t.Errorf("%q: the server was asked and refused: %q", c.typed, got)
		}
	}

	// Past the cap: capped, said why, and trained with the capped count.
	typeInto(t, ctx, "train-steps", "99999")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Capped at %d steps, the most this page trains its model", l.MaxTrained)
	waitForJS(t, ctx, "the note on 99999", fmt.Sprintf(`(n => !!n && !n.hidden && n.textContent.includes(%q) && n.textContent.includes("trains its model again from the seed"))(%s)`, want, note))
	waitForJS(t, ctx, "training with the capped count", fmt.Sprintf(`%s.includes(" / %d")`, status, l.MaxTrained))
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=train-steps]').value`); got != strconv.Itoa(l.MaxTrained) {
		t.Errorf("the box shows %q after the cap, want %d", got, l.MaxTrained)
	}
	screenshot(ctx, "train-steps-capped")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil { // Stop
		t.Fatal(err)
	}
	waitForJS(t, ctx, "training to stop", `/^trained \d+ steps/.test(`+status+`)`)
	// A count that fits clears the note and trains.
	typeInto(t, ctx, "train-steps", "3")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "three more steps", `(n => n.hidden)(`+note+`) && /^trained \d+ steps/.test(`+status+`) && document.querySelector('[data-testid=train-progress]').value === 3`)
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}

// TestBrowserRefusedToast: a value the server refuses puts up the toast and a note
// under its field, and both stay (past the time other errors stay up) until the field
// holds a value the server accepts; then they go at once.
func TestBrowserRefusedToast(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/lessons/gru")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	const toast = `document.querySelector('[data-testid=error]')`
	const note = `document.querySelector('[data-testid=note-seed]')`
	// Other errors go after 10 s (static/js/page.js, ERROR_SHOW_MS: a timer that calls
	// hideError); this one waits for the fix. Rather than wait 10 s, the test watches
	// the page's timers: the refusal must start none that hides the toast.
	evalJS[chromedp.Void](t, ctx, `(() => {
		window.__hideTimers = 0;
		const set = window.setTimeout;
		window.setTimeout = (fn, ms, ...args) => { if (fn && fn.name === "hideError") window.__hideTimers++; return set(fn, ms, ...args); };
	})()`)
	typeInto(t, ctx, "param-seed", "0")
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=param-seed]').blur()`) // a number field sends on change
	waitForJS(t, ctx, "the refusal", fmt.Sprintf(`!%s.hidden && %s.textContent.includes("eed must be between 1 and") && (n => !!n && !n.hidden)(%s)`, toast, toast, note))
	screenshot(ctx, "toast-refused")
	if n := evalJS[int](t, ctx, `window.__hideTimers`); n != 0 {
		t.Fatalf("the refusal started %d timers that hide the toast; it stays until the value is fixed", n)
	}
	if evalJS[bool](t, ctx, toast+`.hidden`) {
		t.Fatal("the toast went before the value was fixed")
	}
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=param-seed]').value`); got != "0" {
		t.Errorf("the refused value was replaced by %q; it stays, to be fixed", got)
	}
	typeInto(t, ctx, "param-seed", "5")
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=param-seed]').blur()`)
	waitForJS(t, ctx, "the fixed value accepted and the toast gone", fmt.Sprintf(`new URLSearchParams(location.search).get("seed") === "5" && %s.hidden && %s.hidden && !document.querySelector('[data-testid=param-seed]').hasAttribute('aria-invalid')`, toast, note))
	screenshot(ctx, "toast-fixed")

	// A refused text field: the toast stays while the text is still refused, and goes
	// once a fixed text is accepted.
	typeInto(t, ctx, "param-input", "0129") // the checksum task reads 0 to 3
	waitForJS(t, ctx, "the refusal of the typed input", fmt.Sprintf(`!%s.hidden && (n => !!n && !n.hidden)(document.querySelector('[data-testid=note-input]'))`, toast))
	typeInto(t, ctx, "param-input", "0123")
	waitForJS(t, ctx, "the typed fix accepted and the toast gone", fmt.Sprintf(`new URLSearchParams(location.search).get("input") === "0123" && %s.hidden && document.querySelector('[data-testid=note-input]').hidden`, toast))
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}

// TestBrowserCutSaysWhy: a paste longer than a text field's limit, and a key typed
// into a full field, are noted under the field with what was kept and the limit's
// reason (sim.ParamSpec.TextLimitReason), the one the server's refusal gives.
func TestBrowserCutSaysWhy(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	var spec sim.ParamSpec
	for _, l := range lessons.Catalog() {
		for _, s := range l.Params {
			if l.Slug == "gru" && s.Name == "input" {
				spec = s
			}
		}
	}
	if spec.Kind != sim.Text || spec.MaxLenWhy == "" {
		t.Fatal("the gru lesson's input has no limit with a reason")
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/lessons/gru")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	const field = `document.querySelector('[data-testid=param-input]')`
	const note = `document.querySelector('[data-testid=note-input]')`
	n := spec.TextLimit()
	evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`(c => { c.value = ""; c.focus(); const d = new DataTransfer(); d.setData("text", "0".repeat(%d));
		c.dispatchEvent(new ClipboardEvent("paste", {clipboardData: d, bubbles: true, cancelable: true})); })(%s)`, n+40, field))
	want := fmt.Sprintf("The paste was %d characters long, and this field takes at most %d characters, so it kept its first %d: %s.", n+40, n, n, spec.MaxLenWhy)
	waitForJS(t, ctx, "the note on the long paste", fmt.Sprintf(`(e => !!e && !e.hidden && e.textContent === %q)(%s)`, want, note))
	// A full field: a typed key is dropped by the browser, and the note says why.
	evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`(c => { c.value = "0".repeat(%d); c.dispatchEvent(new Event("input", {bubbles: true})); })(%s)`, n, field))
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`[data-testid=param-input]`), "1")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the note on typing past the limit", fmt.Sprintf(`(e => !!e && !e.hidden && e.textContent.includes("This field is full: it takes at most %d characters") && e.textContent.includes(%q))(%s)`, n, spec.MaxLenWhy, note))
	if got := evalJS[int](t, ctx, field+`.value.length`); got != n {
		t.Errorf("the field holds %d characters, want its limit %d", got, n)
	}
	screenshot(ctx, "cut-says-why")
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}

// codeWord is a word written as code (snake_case: unk_percent_en, dH_back, x_3).
var codeWord = regexp.MustCompile(`[A-Za-z0-9]+(_[A-Za-z0-9]+)+`)

// checkReadsAsWords hovers every equation symbol and moves the pointer over every
// panel of lesson l's page, and reads what the page wrote for the student — the facts'
// labels and values, the symbol readout, the tooltips — requiring the lecture's
// symbols and words: no code name, and no underscore in a label. TestBrowserContract
// runs it in its visit of each lesson, at the middle step.
func checkReadsAsWords(t *testing.T, ctx context.Context, l *lessons.Lesson) {
	t.Helper()
	type read struct {
		Labels   []string `json:"labels"`
		Values   []string `json:"values"`
		Readouts []string `json:"readouts"`
		Tips     []string `json:"tips"`
	}
	r := evalJS[read](t, ctx, `(() => {
		const text = (e) => e.textContent.trim();
		const out = {labels: [], values: [], readouts: [], tips: []};
		for (const d of document.querySelectorAll('[data-testid=facts] dt:not(.head)')) out.labels.push(text(d));
		for (const d of document.querySelectorAll('[data-testid=facts] dd')) out.values.push(text(d));
		const readout = document.querySelector('[data-testid=symbol-readout]');
		for (const e of document.querySelectorAll('.equation [class*="sym-"]')) {
			e.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
			if (!readout.hidden) out.readouts.push(text(readout));
		}
		document.querySelector('[data-testid=title]').dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
		const tip = document.querySelector('[data-testid=tooltip]');
		for (const c of document.querySelectorAll('.panel canvas')) {
			if (c.offsetParent === null) continue;
			const r = c.getBoundingClientRect();
			for (let fx = 0.05; fx < 1; fx += 0.1) for (let fy = 0.05; fy < 1; fy += 0.15) {
				tip.hidden = true;
				c.dispatchEvent(new MouseEvent("mousemove", {bubbles: true, clientX: r.left + fx * r.width, clientY: r.top + fy * r.height}));
				if (!tip.hidden) out.tips.push(tip.firstChild ? text(tip.firstChild) : text(tip));
			}
			c.dispatchEvent(new MouseEvent("mouseleave"));
		}
		return out;
	})()`)
	if len(r.Labels) == 0 || len(r.Readouts) == 0 && len(l.Equations) > 0 && strings.Contains(l.Equations[0].TeX, "htmlClass") {
		t.Errorf("read %d fact labels and %d readouts: the page shows too little to check", len(r.Labels), len(r.Readouts))
	}
	for _, s := range r.Labels {
		if codeWord.MatchString(s) || strings.Contains(s, "_") {
			t.Errorf("fact label %q reads as code", s)
		}
	}
	for what, list := range map[string][]string{"fact value": r.Values, "symbol readout": r.Readouts, "tooltip": r.Tips} {
		for _, s := range list {
			if w := codeWord.FindString(s); w != "" {
				t.Errorf("%s %q shows the code name %q", what, s, w)
			}
		}
	}
	t.Logf("%d fact labels, %d readouts, %d tooltips read", len(r.Labels), len(r.Readouts), len(r.Tips))
}

// TestSocketStartStepSaid: a link's step past the run's last, or not a step, is not
// cut silently: the page starts at the last step (or 0) and is told so.
func TestSocketStartStepSaid(t *testing.T) {
	_, ts := newLessonServer(t)
	for _, c := range []struct {
		step  string
		start int
		said  string
	}{
		{"3", 3, ""},
		{"99", 8, "asks for step 99, but this run has steps 0 to 8, so the page shows its last step, 8"},
		{"abc", 0, "step=abc is not a step (a whole number from 0 to 8), so the page starts at step 0"},
		{"-2", 0, "step=-2 is not a step"},
	} {
		conn := dial(t, ts, "/lessons/tiny/ws?step="+c.step)
		m := receive(t, conn)
		if m.Header.Type != sim.SnapshotMessage || m.Header.Step != c.start {
			t.Errorf("step=%s: got %s at step %d, want a snapshot at step %d", c.step, m.Header.Type, m.Header.Step, c.start)
		}
		if c.said == "" {
			conn.Close()
			continue
		}
		m = receive(t, conn)
		if msg, _ := m.Header.Meta["message"].(string); m.Header.Type != sim.ErrorMessage || !strings.Contains(msg, c.said) {
			t.Errorf("step=%s: got %s %v, want an error saying %q", c.step, m.Header.Type, m.Header.Meta, c.said)
		}
		conn.Close()
	}
}
