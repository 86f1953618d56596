package web

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"unroll/lessons"
)

// browserWait bounds each wait for the page (a step's frame, a snapshot): generous,
// because the machine is shared and the race detector slows the server.
const browserWait = 20 * time.Second

// screenshotDir keeps one full-page screenshot per lesson as a test artefact (git-ignored).
var screenshotDir = filepath.Join("testdata", "screenshots")

// browserCandidates are the places startBrowser looks for Chrome or Chromium on goos, in
// order: $UNROLL_CHROME, Debian's chromium (which CI installs), the usual names on PATH,
// and where the macOS and Windows installers put them. getenv reads the environment.
func browserCandidates(goos string, getenv func(string) string) []string {
	var c []string
	if p := getenv("UNROLL_CHROME"); p != "" {
		c = append(c, p)
	}
	if goos != "windows" {
		c = append(c, "/usr/bin/chromium")
	}
	c = append(c, "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
	switch goos {
	case "darwin":
		c = append(c, "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Applications/Chromium.app/Contents/MacOS/Chromium")
	case "windows":
		for _, place := range []struct{ env, exe string }{
			{"ProgramFiles", "Google/Chrome/Application/chrome.exe"},
			{"ProgramFiles(x86)", "Google/Chrome/Application/chrome.exe"},
			{"LocalAppData", "Google/Chrome/Application/chrome.exe"}, // installed for one user
			{"LocalAppData", "Chromium/Application/chrome.exe"},
		} {
			if dir := getenv(place.env); dir != "" {
				c = append(c, filepath.Join(dir, filepath.FromSlash(place.exe)))
			}
		}
	}
	return c
}

// startBrowser starts one headless Chrome or Chromium for a test (the first of
// browserCandidates found), or skips the test with the places it looked (fails instead
// when UNROLL_REQUIRE_BROWSER=1, as in CI).
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser (the inner loop; .ci/run runs every browser test)")
	}
	if !strings.HasPrefix(t.Name(), "TestBrowser") {
		t.Fatalf("%s starts a browser: name it TestBrowser… (.ci/run's browser step selects them by that prefix)", t.Name())
	}
	if raceEnabled && os.Getenv("UNROLL_BROWSER_RACE") != "1" {
		// Under -race the server's Go runs 5–10× slower while Chromium takes the
		// other core: the browser tests were three quarters of CI's time. .ci/run
		// runs them in their own step without -race; the server code they drive is
		// under -race in the websocket tests (session_test.go, room_test.go).
		t.Skip("-race: the browser tests run without the race detector (.ci/run's browser step; UNROLL_BROWSER_RACE=1 runs them here)")
	}
	if p := os.Getenv("UNROLL_CHROME"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("UNROLL_CHROME=%s: %v", p, err)
		}
	}
	candidates := browserCandidates(runtime.GOOS, os.Getenv)
	path := ""
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil { // a name is looked for on PATH, a path as is
			path = p
			break
		}
	}
	if path == "" {
		reason := "no Chrome or Chromium: looked for " + strings.Join(candidates, ", ") + " (bare names on PATH); set UNROLL_CHROME to a browser's path"
		if os.Getenv("UNROLL_REQUIRE_BROWSER") == "1" {
			t.Fatal("UNROLL_REQUIRE_BROWSER=1 and " + reason)
		}
		fmt.Println("skipping browser tests:", reason)
		t.Skip(reason)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1440, 1000), // a laptop screen
	)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser now, so a failure is reported here
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// TestBrowserCandidates: where startBrowser looks on each system, in order.
func TestBrowserCandidates(t *testing.T) {
	onPath := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	windows := map[string]string{`ProgramFiles`: `C:\Program Files`, `ProgramFiles(x86)`: `C:\Program Files (x86)`, `LocalAppData`: `C:\Users\ada\AppData\Local`}
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want []string
	}{
		{"linux", nil, append([]string{"/usr/bin/chromium"}, onPath...)},
		{"linux", map[string]string{"UNROLL_CHROME": "/opt/chrome/chrome"}, append([]string{"/opt/chrome/chrome", "/usr/bin/chromium"}, onPath...)},
		{"darwin", nil, append(append([]string{"/usr/bin/chromium"}, onPath...),
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "/Applications/Chromium.app/Contents/MacOS/Chromium")},
		{"windows", windows, append(slices.Clone(onPath),
			filepath.Join(`C:\Program Files`, "Google", "Chrome", "Application", "chrome.exe"),
			filepath.Join(`C:\Program Files (x86)`, "Google", "Chrome", "Application", "chrome.exe"),
			filepath.Join(`C:\Users\ada\AppData\Local`, "Google", "Chrome", "Application", "chrome.exe"),
			filepath.Join(`C:\Users\ada\AppData\Local`, "Chromium", "Application", "chrome.exe"))},
		{"windows", map[string]string{"LocalAppData": `C:\Users\ada\AppData\Local`}, append(slices.Clone(onPath), // no ProgramFiles: not looked for
			filepath.Join(`C:\Users\ada\AppData\Local`, "Google", "Chrome", "Application", "chrome.exe"),
			filepath.Join(`C:\Users\ada\AppData\Local`, "Chromium", "Application", "chrome.exe"))},
	} {
		got := browserCandidates(tc.goos, func(k string) string { return tc.env[k] })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s with %v:\ngot  %q\nwant %q", tc.goos, tc.env, got, tc.want)
		}
	}
}

// browserServer is the real application behind httptest.
func browserServer(t *testing.T) *httptest.Server {
	t.Helper()
	s, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

// consoleErrors collects the console errors and uncaught exceptions of a tab.
type consoleErrors struct {
	mu   sync.Mutex
	msgs []string
}

func watchConsole(ctx context.Context) *consoleErrors {
	ce := &consoleErrors{}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				ce.mu.Lock()
				ce.msgs = append(ce.msgs, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
				ce.mu.Unlock()
			}
		}
	}()
	return ce
}

func (ce *consoleErrors) list() []string {
	ce.mu.Lock()
	defer ce.mu.Unlock()
	return append([]string(nil), ce.msgs...)
}

// evalJS runs JavaScript in the tab and decodes its value.
func evalJS[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// waitForJS polls a JavaScript condition until it is truthy or browserWait passes.
func waitForJS(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	waitForJSWithin(t, ctx, browserWait, what, js)
}

// waitForJSWithin is waitForJS for work known to take longer than browserWait.
func waitForJSWithin(t *testing.T, ctx context.Context, wait time.Duration, what, js string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	var err error
	for {
		_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(time.Until(deadline))))
		// A poll started in the page a navigation is replacing loses its JavaScript
		// context ("Cannot find context with specified id"), and one that runs while the
		// new page is half parsed can meet a missing element (a TypeError): poll the new
		// page. A condition that keeps throwing fails at the deadline with its error.
		if err == nil || !(contextReplaced(err) || strings.Contains(err.Error(), "exception")) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		state := evalJS[string](t, ctx, `JSON.stringify({step: document.querySelector('[data-testid=step]')?.textContent, conn: document.querySelector('[data-testid=conn]')?.textContent, error: document.querySelector('[data-testid=error]')?.textContent, url: location.href})`)
		t.Fatalf("waiting for %s (%s): %v; page state %s", what, js, err, state)
	}
}

// contextReplaced reports whether err is Chrome's answer to a call into a JavaScript
// context that a navigation destroyed (or to one it made while navigating).
func contextReplaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") || strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

const stepReadJS = `Number(document.querySelector('[data-testid=step]').textContent)`

// seekTo moves the page to step as a student's drag of the scrubber ends there (its
// input, then its change), and waits until every panel has drawn that step and the gap
// it skipped is filled: the same page at another step, without loading it again.
func seekTo(t *testing.T, ctx context.Context, step int) {
	t.Helper()
	evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`(s => { s.value = "%d"; s.dispatchEvent(new Event("input", {bubbles: true})); s.dispatchEvent(new Event("change", {bubbles: true})); })(document.querySelector('[data-testid=scrubber]'))`, step))
	waitForJS(t, ctx, fmt.Sprintf("step %d after the scrubber", step), fmt.Sprintf(`%s === %d && %s && document.body.dataset.stream === "live"`, stepReadJS, step, drawnStepJS))
}

// drawnStepJS is the step every panel last drew (they are drawn in the same frame as the readout).
const drawnStepJS = `[...document.querySelectorAll('.panel[data-kind]')].every(p => p.dataset.step === document.querySelector('[data-testid=step]').textContent)`

// TestBrowserIndex: the index lists every lesson of the catalog in lecture order.
func TestBrowserIndex(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lesson-list]`))); err != nil {
		t.Fatalf("loading /: %v", err)
	}
	got := evalJS[[]string](t, ctx, `[...document.querySelectorAll('[data-testid=lesson-list] li')].map(li => li.dataset.testid.slice(7))`)
	var want []string
	for _, l := range lessons.Catalog() {
		want = append(want, l.Slug)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("index lists %v, want %v", got, want)
	}
	waitForJS(t, ctx, "all the maths rendered", `document.body.dataset.math === "rendered"`) // page.js sets the prose below the first screens when idle
	if n := evalJS[int](t, ctx, `document.querySelectorAll('.katex-error').length`); n != 0 {
		t.Errorf("index has %d KaTeX errors, want 0", n)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(screenshotDir, "index.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range errs.list() {
		t.Errorf("console error on /: %s", e)
	}
}

// TestBrowserLessons drives every lesson page: it loads, KaTeX renders its equations,
// it goes live, stepping forward and back changes the drawn step (buttons and keys),
// a slider change re-renders, and nothing is written to the console as an error.
func TestBrowserLessons(t *testing.T) {
	root := startBrowser(t)
	srv := browserServer(t)
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range walkedLessons() {
		t.Run(l.Slug, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(root) // a tab of its own
			defer cancel()
			errs := watchConsole(ctx)
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/"+l.Slug)); err != nil {
				t.Fatalf("loading the page: %v", err)
			}
			waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)

			if n := evalJS[int](t, ctx, `document.querySelectorAll('[data-testid=equations] .katex').length`); n < len(l.Equations) {
				t.Errorf("%d rendered equations, want %d", n, len(l.Equations))
			}
			waitForJS(t, ctx, "all the maths rendered", `document.body.dataset.math === "rendered"`) // the prose below the first screens is set when idle
			if bad := evalJS[[]string](t, ctx, `[...document.querySelectorAll('.katex-error')].map(e => e.title || e.textContent)`); len(bad) > 0 {
				t.Errorf("KaTeX errors: %q", bad)
			}

			start := evalJS[int](t, ctx, stepReadJS)
			steps := evalJS[int](t, ctx, `Number(document.querySelector('[data-testid=steps]').textContent)`)
			if steps < 2 {
				t.Fatalf("the lesson has %d steps; stepping needs at least 2", steps)
			}
			if start >= steps-1 { // leave room for two steps forward
				if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=reset]`))); err != nil {
					t.Fatal(err)
				}
				waitForJS(t, ctx, "reset", stepReadJS+` === 0`)
				start = 0
			}
			var drawMs []float64 // the page's redraw after each step
			click := func(id string, want int) {
				t.Helper()
				if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=`+id+`]`))); err != nil {
					t.Fatalf("clicking %s: %v", id, err)
				}
				waitForJS(t, ctx, fmt.Sprintf("step %d after %s", want, id), fmt.Sprintf(`%s === %d && %s`, stepReadJS, want, drawnStepJS))
				drawMs = append(drawMs, evalJS[float64](t, ctx, `Number(document.body.dataset.drawMs)`))
			}
			click("step-forward", start+1)
			click("step-forward", start+2)
			click("step-back", start+1)
			t.Logf("redrawing the whole page after a step: %v ms", drawMs)
			slow := machineSlowdown(t, ctx)
			if typical := slices.Sorted(slices.Values(drawMs))[len(drawMs)/2]; typical > maxRedrawMs*slow {
				t.Errorf("redrawing the page after a step took %.1f ms (median of %v), want ≤ %.0f ms: %d ms on an idle machine (one 60 Hz frame is 16 ms) × %.1f, how much slower this machine runs now", typical, drawMs, maxRedrawMs*slow, maxRedrawMs, slow)
			}
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
				t.Fatalf("pressing →: %v", err)
			}
			waitForJS(t, ctx, "step after →", fmt.Sprintf(`%s === %d && %s`, stepReadJS, start+2, drawnStepJS))
			waitForJS(t, ctx, "the step in the URL", fmt.Sprintf(`new URLSearchParams(location.search).get("step") === "%d"`, start+2))

			hoverLinks(t, ctx)
			play(t, ctx)
			moveSlider(t, ctx)

			if msg := evalJS[string](t, ctx, `(e => e.hidden ? "" : e.textContent)(document.querySelector('[data-testid=error]'))`); msg != "" {
				t.Errorf("the page shows an error: %s", msg)
			}
			evalJS[chromedp.Void](t, ctx, `window.scrollTo(0, 0)`) // sticky bars sit where a reader first sees them
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			if err := os.WriteFile(filepath.Join(screenshotDir, l.Slug+".png"), shot, 0o644); err != nil {
				t.Fatal(err)
			}
			if l.Trains {
				train(t, ctx)
				shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`[data-testid=training]`)))
				if err != nil {
					t.Fatalf("screenshot of the training panel: %v", err)
				}
				if err := os.WriteFile(filepath.Join(screenshotDir, l.Slug+"-training.png"), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, e := range errs.list() {
				t.Errorf("console error: %s", e)
			}
		})
	}
}

// maxRedrawMs bounds the median redraw of a whole page in the browser tests (the
// first redraw also pays for warming up) on an idle machine: a 60 Hz frame is 16 ms,
// and headless Chromium draws with the CPU, so the bound guards against a panel gone
// slow, and the logs give the real figures. On a busier machine it grows with
// machineSlowdown.
const maxRedrawMs = 50

// idleCalibrationMs is calibrationJS's time in headless Chromium on the 2-core CI
// machine with nothing else running (the median of three).
const idleCalibrationMs = 25.0

// calibrationJS is a fixed piece of a page's redraw — arithmetic and filled
// rectangles on a canvas, read back so that the drawing is done — timed in ms.
const calibrationJS = `(() => {
	const t0 = performance.now();
	let s = 0;
	for (let i = 0; i < 300000; i++) s += Math.sqrt(i) * Math.sin(i);
	const c = document.createElement("canvas"); c.width = 400; c.height = 300;
	const g = c.getContext("2d");
	for (let i = 0; i < 3000; i++) { g.fillStyle = "hsl(" + (i % 360) + ",50%,50%)"; g.fillRect((i % 40) * 10, ((i / 40) | 0) % 30 * 10, 10, 10); }
	g.getImageData(0, 0, 1, 1);
	return performance.now() - t0 + (s > 1e300 ? 1 : 0);
})()`

// machineSlowdown is how much slower than idle the tab runs now: calibrationJS's
// median of three over idleCalibrationMs, at least 1. A timing bound multiplied by it
// holds on a shared machine as on an idle one.
func machineSlowdown(t *testing.T, ctx context.Context) float64 {
	t.Helper()
	var ms []float64
	for range 3 {
		ms = append(ms, evalJS[float64](t, ctx, calibrationJS))
	}
	return max(1, slices.Sorted(slices.Values(ms))[1]/idleCalibrationMs)
}

// trainSteps is enough optimisation steps to see progress messages, few enough to be quick.
const trainSteps = 30

// train runs a few training steps from the page and waits for the progress to finish
// and the loss curve to be drawn.
func train(t *testing.T, ctx context.Context) {
	t.Helper()
	seq := evalJS[int](t, ctx, `Number(document.body.dataset.seq)`)
	evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`document.querySelector('[data-testid=train-steps]').value = "%d"`, trainSteps))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil {
		t.Fatalf("clicking train: %v", err)
	}
	waitForJS(t, ctx, "training to finish", fmt.Sprintf(
		`Number(document.body.dataset.seq) > %d && /^trained %d steps/.test(document.querySelector('[data-testid=train-status]').textContent) && document.querySelector('[data-testid=train-progress]').value === %d`,
		seq, trainSteps, trainSteps))
}

// moveSlider moves the first numeric parameter's slider by one notch, as a drag
// would (input events, then change), and waits for the server's snapshot to be drawn
// with the new value in the URL.
func moveSlider(t *testing.T, ctx context.Context) {
	t.Helper()
	type change struct {
		Name  string `json:"name"`
		Value string `json:"value"`
		Seq   int    `json:"seq"`
	}
	c := evalJS[change](t, ctx, `(() => {
		const s = document.querySelector('.params input[type=range][data-param]');
		if (!s) return {name: "", value: "", seq: 0};
		const step = Number(s.step) || 1, v = Number(s.value);
		const next = v + step <= Number(s.max) ? v + step : v - step;
		const seq = Number(document.body.dataset.seq);
		s.value = String(next);
		s.dispatchEvent(new Event("input", {bubbles: true}));
		s.dispatchEvent(new Event("change", {bubbles: true}));
		return {name: s.dataset.param, value: s.value, seq};
	})()`)
	if c.Name == "" {
		t.Log("no slider on this page")
		return
	}
	waitForJS(t, ctx, "the snapshot after moving "+c.Name, fmt.Sprintf(
		`Number(document.body.dataset.seq) > %d && Number(new URLSearchParams(location.search).get(%q)) === Number(%q) && document.querySelector('[data-testid=error]').hidden`,
		c.Seq, c.Name, c.Value))

	// the back button undoes the change: the URL, the slider and the run go back
	before := evalJS[int](t, ctx, `Number(document.body.dataset.seq)`)
	evalJS[chromedp.Void](t, ctx, `history.back()`) // same-document: no load event for chromedp.NavigateBack to wait for
	waitForJS(t, ctx, "the snapshot after going back", fmt.Sprintf(
		`Number(document.body.dataset.seq) > %d && Number(new URLSearchParams(location.search).get(%q)) !== Number(%q) && document.querySelector('[data-param=%q]').value === (new URLSearchParams(location.search).get(%q) ?? document.querySelector('[data-param=%q]').value)`,
		before, c.Name, c.Value, c.Name, c.Name, c.Name))
}

// hoverLinks checks the tie between equations and panels: hovering a symbol highlights
// its panel and shows its values; hovering a heatmap cell shows unit, step and value
// and highlights the symbol.
func hoverLinks(t *testing.T, ctx context.Context) {
	t.Helper()
	id := evalJS[string](t, ctx, `(() => {
		for (const p of document.querySelectorAll('.panel[data-symbol]')) {
			const id = p.dataset.symbol;
			if (id && document.querySelector('.equation .sym-' + CSS.escape(id))) return id;
		}
		return "";
	})()`)
	if id == "" {
		t.Log("no equation symbol is tied to a panel here")
	} else {
		evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`document.querySelector('.equation .sym-' + CSS.escape(%q)).dispatchEvent(new MouseEvent("mouseover", {bubbles: true}))`, id))
		waitForJS(t, ctx, "the panel of symbol "+id+" to light up", fmt.Sprintf(
			`document.querySelector('.panel[data-symbol=%q]').classList.contains('panel-hot') && !document.querySelector('[data-testid=symbol-readout]').hidden && /at (step|t =)/.test(document.querySelector('[data-testid=symbol-readout]').textContent)`, id))
		evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=title]').dispatchEvent(new MouseEvent("mouseover", {bubbles: true}))`)
	}
	heat := evalJS[string](t, ctx, `(() => {
		const p = document.querySelector('.panel[data-kind=heatmap]');
		if (!p) return "";
		const c = p.querySelector('canvas'), r = c.getBoundingClientRect();
		c.scrollIntoView({block: "center"});
		const r2 = c.getBoundingClientRect();
		c.dispatchEvent(new MouseEvent("mousemove", {bubbles: true, clientX: r2.left + 40, clientY: r2.top + 12}));
		return p.dataset.symbol || "-";
	})()`)
	if heat == "" {
		return
	}
	waitForJS(t, ctx, "the heatmap tooltip", `(tip => !tip.hidden && /unit 1, (step|t =) 1(?!\d)/.test(tip.textContent) && /value/.test(tip.textContent))(document.querySelector('[data-testid=tooltip]'))`)
	if heat != "-" && evalJS[bool](t, ctx, fmt.Sprintf(`!!document.querySelector('.equation .sym-' + CSS.escape(%q))`, heat)) {
		waitForJS(t, ctx, "the heatmap's symbol to light up", fmt.Sprintf(`document.querySelector('.equation .sym-' + CSS.escape(%q)).classList.contains('sym-hot')`, heat))
	}
	evalJS[chromedp.Void](t, ctx, `document.querySelector('.panel[data-kind=heatmap] canvas').dispatchEvent(new MouseEvent("mouseleave"))`)
}

// play starts playing, waits for two more steps to be drawn and pauses.
func play(t *testing.T, ctx context.Context) {
	t.Helper()
	from := evalJS[int](t, ctx, stepReadJS)
	steps := evalJS[int](t, ctx, `Number(document.querySelector('[data-testid=steps]').textContent)`)
	if from+2 > steps {
		return
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=play]`))); err != nil {
		t.Fatalf("clicking play: %v", err)
	}
	waitForJS(t, ctx, "playing to advance", fmt.Sprintf(`%s >= %d`, stepReadJS, from+2))
	// space pauses, also with the focus still on the play button (one toggle, not two)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(" ")); err != nil {
		t.Fatalf("pressing space: %v", err)
	}
	waitForJS(t, ctx, "the pause", `document.querySelector('[data-testid=play]').getAttribute('aria-pressed') === "false"`)
	time.Sleep(300 * time.Millisecond) // a tick already on its way may still land
	paused := evalJS[int](t, ctx, stepReadJS)
	time.Sleep(600 * time.Millisecond) // longer than a step at the lessons' default speeds
	if now := evalJS[int](t, ctx, stepReadJS); now != paused {
		t.Errorf("still playing after the pause: step %d, then %d", paused, now)
	}
}

// TestBrowserReconnect drops the page's websocket under it: the page reconnects with
// backoff, resumes, and shows the same step again without a reload.
func TestBrowserReconnect(t *testing.T) {
	ctx := startBrowser(t)
	s, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	conns := &hijacked{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(&hijackRecorder{ResponseWriter: w, into: conns}, r)
	}))
	t.Cleanup(srv.Close)
	l := lessons.Catalog()[0]
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/"+l.Slug)); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	// Train a little, so that the run holds what its URL cannot say.
	const trainedFact = `document.querySelector('[data-testid=facts-model]').textContent.includes("trained from scratch for 5 steps")`
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`[data-testid=train-steps]`), "5"),
		chromedp.Click(chromedp.CSS(`[data-testid=train]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the trained model", trainedFact)
	for want := 1; want <= 2; want++ {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=step-forward]`))); err != nil {
			t.Fatal(err)
		}
		waitForJS(t, ctx, fmt.Sprintf("step %d", want), fmt.Sprintf(`%s === %d`, stepReadJS, want))
	}
	seq := evalJS[int](t, ctx, `Number(document.body.dataset.seq)`)
	if n := conns.closeAll(); n == 0 {
		t.Fatal("no websocket to drop")
	}
	waitForJS(t, ctx, "the page to notice", `document.querySelector('[data-testid=conn]').dataset.state !== "live"`)
	waitForJS(t, ctx, "the page to come back", `document.querySelector('[data-testid=conn]').dataset.state === "live"`)
	waitForJS(t, ctx, "the same step after the reconnect", fmt.Sprintf(`%s === 2 && %s && Number(document.body.dataset.seq) > %d`, stepReadJS, drawnStepJS, seq))
	if !evalJS[bool](t, ctx, trainedFact) {
		t.Errorf("after the reconnect the page shows %q, want the model trained before the drop",
			evalJS[string](t, ctx, `document.querySelector('[data-testid=facts-model]').textContent`))
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=step-forward]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "stepping after the reconnect", stepReadJS+` === 3`)

	// The trained model is in the URL: a fresh tab on it trains the same model again.
	waitForJS(t, ctx, "trained=5 and step=3 in the URL", `(q => q.get("trained") === "5" && q.get("step") === "3")(new URLSearchParams(location.search))`)
	shared := evalJS[string](t, ctx, `location.href`)
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	if err := chromedp.Do(tab, chromedp.Navigate(shared)); err != nil {
		t.Fatalf("opening the shared URL: %v", err)
	}
	waitForJS(t, tab, "the shared URL's trained model", `document.body.dataset.stream === "live" && `+trainedFact+` && `+stepReadJS+` === 3`)
	for _, e := range errs.list() {
		if !strings.Contains(e, "WebSocket") { // Chromium logs the dropped connection itself
			t.Errorf("console error: %s", e)
		}
	}
}

// hijacked remembers the connections the server took over (the websockets).
type hijacked struct {
	mu    sync.Mutex
	conns []net.Conn
}

// closeAll drops every remembered connection without a close frame, as a network
// failure would, and reports how many there were.
func (h *hijacked) closeAll() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.conns)
	for _, c := range h.conns {
		c.Close()
	}
	h.conns = nil
	return n
}

// hijackRecorder passes a hijack through and remembers the connection.
type hijackRecorder struct {
	http.ResponseWriter
	into *hijacked
}

func (r *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err == nil {
		r.into.mu.Lock()
		r.into.conns = append(r.into.conns, c)
		r.into.mu.Unlock()
	}
	return c, rw, err
}

func (r *hijackRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// TestBrowserDecodesGoldenMessages rebuilds the exact bytes of each golden message of
// sim/testdata (a readable dump: header text, padding, float32 arrays) and checks that
// the page's decoder (static/js/socket.js) reads the same header and every array's
// name, shape and float32 values exactly.
func TestBrowserDecodesGoldenMessages(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("loading /: %v", err)
	}
	files, err := filepath.Glob(filepath.Join("..", "sim", "testdata", "*.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden messages in sim/testdata (%v)", err)
	}
	type array struct {
		Name  string    `json:"name"`
		Shape []int     `json:"shape"`
		Data  []float32 `json:"data"`
	}
	type golden struct {
		HeaderLength int     `json:"header_length"`
		Padding      int     `json:"padding"`
		TotalBytes   int     `json:"total_bytes"`
		HeaderText   string  `json:"header_text"`
		Arrays       []array `json:"arrays"`
	}
	type decoded struct {
		Header string  `json:"header"` // the decoded header, re-encoded by the page
		Arrays []array `json:"arrays"`
	}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var g golden
		if err := json.Unmarshal(text, &g); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		raw := binary.LittleEndian.AppendUint32(nil, uint32(g.HeaderLength))
		raw = append(raw, g.HeaderText...)
		raw = append(raw, make([]byte, g.Padding)...)
		for _, a := range g.Arrays {
			for _, f := range a.Data {
				raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(f))
			}
		}
		if len(raw) != g.TotalBytes {
			t.Fatalf("%s: rebuilt %d bytes, the dump says %d", file, len(raw), g.TotalBytes)
		}
		js := fmt.Sprintf(`(async () => {
			const {decode} = await import("/static/js/socket.js");
			const bytes = Uint8Array.from(atob(%q), (c) => c.charCodeAt(0));
			const m = decode(bytes.buffer);
			return {header: JSON.stringify(m.header),
				arrays: [...m.arrays].map(([name, a]) => ({name, shape: a.shape, data: Array.from(a.data)}))};
		})()`, base64.StdEncoding.EncodeToString(raw))
		got, err := chromedp.Run(ctx, chromedp.Evaluate[decoded](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: decoding in the page: %v", file, err)
		}
		var gotHeader, wantHeader any
		if err := json.Unmarshal([]byte(got.Header), &gotHeader); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := json.Unmarshal([]byte(g.HeaderText), &wantHeader); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if !reflect.DeepEqual(gotHeader, wantHeader) {
			t.Errorf("%s: page read header %s, want %s", file, got.Header, g.HeaderText)
		}
		if !reflect.DeepEqual(got.Arrays, g.Arrays) && !(len(got.Arrays) == 0 && len(g.Arrays) == 0) {
			t.Errorf("%s: page read arrays %v, want %v", file, got.Arrays, g.Arrays)
		}
	}
}

// TestBrowserBadInput: a value the server refuses is explained next to its field and
// changes nothing else — not the panels, not the URL, not the history; a speed chosen
// while paused survives a reset.
func TestBrowserBadInput(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/gru?step=2")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && `+stepReadJS+` === 2`)
	url, hist := evalJS[string](t, ctx, `location.href`), evalJS[int](t, ctx, `history.length`)
	seq := evalJS[int](t, ctx, `Number(document.body.dataset.seq)`)

	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`[data-testid=param-input]`), "@@ garbage")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the refusal", `!document.querySelector('[data-testid=error]').hidden`)
	waitForJS(t, ctx, "the note under the field", `(n => n && !n.hidden && n.textContent.length > 0)(document.querySelector('[data-testid=note-input]'))`)
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=param-input]').getAttribute("aria-invalid")`); got != "true" {
		t.Errorf("the refused field: aria-invalid = %q, want true", got)
	}
	if got := evalJS[string](t, ctx, `location.href`); got != url {
		t.Errorf("after a refused value the URL is %s, want it unchanged: %s", got, url)
	}
	if got := evalJS[int](t, ctx, `history.length`); got != hist {
		t.Errorf("after a refused value history has %d entries, want %d", got, hist)
	}
	if got := evalJS[int](t, ctx, stepReadJS); got != 2 {
		t.Errorf("after a refused value the page is at step %d, want 2", got)
	}
	if got := evalJS[int](t, ctx, `Number(document.body.dataset.seq)`); got != seq {
		t.Errorf("after a refused value the page drew seq %d, want %d still (no new state)", got, seq)
	}
	// Leaving the field keeps the typed text, to be fixed; a refused seed is noted under the seed.
	evalJS[chromedp.Void](t, ctx, `document.activeElement.blur()`)
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`[data-testid=param-seed]`), "0"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=param-seed]').dispatchEvent(new Event("change"))`)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the note under the seed", `(n => n && !n.hidden && /between 1 and 1000000/.test(n.textContent))(document.querySelector('[data-testid=note-seed]'))`)
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=param-input]').value`); got != "@@ garbage" {
		t.Errorf("after leaving the refused field it holds %q, want the typed %q", got, "@@ garbage")
	}
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=note-input]').textContent`); strings.Contains(got, "seed") {
		t.Errorf("the seed's refusal landed under the input field: %q", got)
	}

	// A speed chosen while paused is the speed after a reset.
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`[data-testid=speed]`), "20"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=speed]').dispatchEvent(new Event("input"))`),
		chromedp.Click(chromedp.CSS(`[data-testid=reset]`))); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the reset", stepReadJS+` === 0`)
	if got := evalJS[string](t, ctx, `document.querySelector('[data-testid=speed]').value`); got != "20" {
		t.Errorf("speed after a reset: got %s, want the 20 chosen before it", got)
	}
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}

// TestBrowserReplayKeepsURL: a shared URL with trained=N is trained again on opening;
// while it trains the page says so and the URL keeps trained=N (a reload then still
// asks for the trained model).
func TestBrowserReplayKeepsURL(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/gru?task=skip&trained=3000")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the replay's progress", `document.querySelector('[data-testid=train-status]').textContent.startsWith("training again, as the URL says")`)
	if got := evalJS[string](t, ctx, `new URLSearchParams(location.search).get("trained")`); got != "3000" {
		t.Errorf("while training again: the URL says trained=%q, want 3000", got)
	}
	waitForJS(t, ctx, "the trained model", `document.querySelector('[data-testid=facts-model]').textContent.includes("trained from scratch for 3000 steps")`)
	if got := evalJS[string](t, ctx, `new URLSearchParams(location.search).get("trained")`); got != "3000" {
		t.Errorf("after training again: the URL says trained=%q, want 3000", got)
	}
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}
