package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// axePath is axe-core, vendored for these tests only (web/testdata/axe/README.md).
var axePath = filepath.Join("testdata", "axe", "axe.min.js")

// maxTabs bounds the Tab presses that look for a symbol and a panel on a page: the
// header's links, the controls and every symbol come first (about a hundred).
const maxTabs = 400

// playedSteps is how long the live-region test plays, and maxLiveChanges how often a
// live region may change meanwhile: the press of play and the pause, with one spare.
const (
	playedSteps    = 20
	maxLiveChanges = 3
)

// axeViolation is the part of axe-core's result the test reports.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// lessonSlugs lists the lessons as the API does (GET /api/v1/lessons), those a
// catalog-walking test visits (walked).
func lessonSlugs(t *testing.T, base string) []string {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/lessons")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ls []struct {
		Slug string `json:"slug"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ls); err != nil {
		t.Fatalf("decoding the lesson list: %v", err)
	}
	if len(ls) == 0 {
		t.Fatal("the API lists no lessons")
	}
	var out []string
	for _, l := range ls {
		if walked(l.Slug) {
			out = append(out, l.Slug)
		}
	}
	return out
}

// runAxe injects axe-core into the tab's page and returns its serious and critical
// violations.
func runAxe(t *testing.T, ctx context.Context, src string) []axeViolation {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
		t.Fatalf("injecting axe-core: %v", err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("running axe-core: %v", err)
	}
	var all []axeViolation
	if err := json.Unmarshal([]byte(raw), &all); err != nil {
		t.Fatalf("decoding axe-core's result: %v", err)
	}
	var bad []axeViolation
	for _, v := range all {
		if v.Impact == "serious" || v.Impact == "critical" {
			bad = append(bad, v)
		}
	}
	return bad
}

func reportViolations(t *testing.T, page string, vs []axeViolation) {
	t.Helper()
	for _, v := range vs {
		var nodes []string
		for _, n := range v.Nodes {
			nodes = append(nodes, fmt.Sprint(n.Target))
		}
		t.Errorf("%s: axe %s (%s): %s; nodes %s", page, v.ID, v.Impact, v.Help, strings.Join(nodes, ", "))
	}
}

// TestBrowserAxe runs axe-core on the index and fails on any violation of impact
// serious or critical; TestBrowserPanelTables runs it on every lesson page, in the same
// visit as its other checks (live, after two steps, with every panel's table shown).
func TestBrowserAxe(t *testing.T) {
	src, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatalf("reading axe-core: %v", err)
	}
	root := startBrowser(t)
	srv := browserServer(t)
	t.Run("index", func(t *testing.T) {
		ctx, cancel := chromedp.NewContext(root)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lesson-list]`))); err != nil {
			t.Fatalf("loading /: %v", err)
		}
		waitForJS(t, ctx, "the page to load", `document.readyState === "complete"`)
		settle(t, ctx)
		reportViolations(t, "/", runAxe(t, ctx, string(src)))
	})
}

// checkKeyboard: on a lesson page just loaded, the first Tab lands on the skip link,
// and Tab then reaches an equation's symbol (its readout shows, its panels light up,
// Esc hides it) and a panel's drawing (its description shows where the tooltip would).
// TestBrowserPanelTables runs it first in its visit of each lesson, at 1280×720 (a
// projector's screen).
func checkKeyboard(t *testing.T, ctx context.Context, slug string) {
	t.Helper()
	tab := func() string {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatalf("pressing Tab: %v", err)
		}
		return evalJS[string](t, ctx, `(el => el.matches('.equation [role=button][class*="sym-"]') ? "symbol" : el.matches('.panel canvas') ? "panel" : el.dataset.testid || el.tagName)(document.activeElement)`)
	}
	if first := tab(); first != "skip-link" {
		t.Errorf("the first Tab lands on %q, want the skip link", first)
	}
	if !evalJS[bool](t, ctx, `(r => r.top >= 0 && r.height > 0)(document.activeElement.getBoundingClientRect())`) {
		t.Error("the focused skip link is not visible")
	}
	var sawSymbol, sawPanel bool
	for i := 0; i < maxTabs && !(sawSymbol && sawPanel); i++ {
		switch tab() {
		case "symbol":
			if sawSymbol {
				continue
			}
			sawSymbol = true
			waitForJS(t, ctx, "the focused symbol's readout", `(r => !r.hidden && /at (step|t =)/.test(r.textContent))(document.querySelector('[data-testid=symbol-readout]'))`)
			if !evalJS[bool](t, ctx, `getComputedStyle(document.activeElement).outlineStyle !== "none"`) {
				t.Error("the focused symbol has no focus ring")
			}
			if evalJS[bool](t, ctx, `(id => document.querySelector('.panel[data-symbol="' + id + '"]') !== null)([...document.activeElement.classList].find(c => c.startsWith('sym-') && c !== 'sym-hot' && c !== 'sym-away').slice(4))`) {
				waitForJS(t, ctx, "the focused symbol's panel to light up", `!!document.querySelector('.panel.panel-hot')`)
			}
			shoot(t, ctx, "a11y-"+slug+"-symbol.png")
			press(t, ctx, kb.Escape)
			waitForJS(t, ctx, "Esc to hide the readout", `document.querySelector('[data-testid=symbol-readout]').hidden`)
		case "panel":
			if sawPanel {
				continue
			}
			sawPanel = true
			waitForJS(t, ctx, "the focused panel's description", `(tip => !tip.hidden && tip.textContent.length > 10)(document.querySelector('[data-testid=tooltip]'))`)
			shoot(t, ctx, "a11y-"+slug+"-panel.png")
			label := evalJS[string](t, ctx, `document.activeElement.getAttribute('aria-label')`)
			if role := evalJS[string](t, ctx, `document.activeElement.getAttribute('role')`); role != "img" || len(label) < 10 || strings.Contains(label, `\(`) {
				t.Errorf("the focused canvas has role %q and label %q, want an image described in words", role, label)
			}
		}
	}
	if !sawSymbol {
		t.Errorf("%d Tabs reached no equation symbol", maxTabs)
	}
	if !sawPanel {
		t.Errorf("%d Tabs reached no panel", maxTabs)
	}
}

// liveRegionsJS counts the changes to the page's live regions from now on
// (window.liveChanges): a region is what a screen reader reads out when it changes.
const liveRegionsJS = `(() => {
	const live = '[aria-live]:not([aria-live="off"]), [role=status]:not([aria-live="off"]), [role=alert], [role=log], output:not([aria-live="off"])';
	window.liveChanges = 0;
	window.liveTexts = [];
	new MutationObserver((records) => {
		const hit = new Set();
		for (const r of records) { const el = (r.target.nodeType === 1 ? r.target : r.target.parentElement)?.closest(live); if (el) hit.add(el); }
		window.liveChanges += hit.size;
		for (const el of hit) window.liveTexts.push((el.dataset.testid || el.tagName) + ": " + el.textContent);
	}).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden"]});
})()`

// TestBrowserLiveRegion: playing 20 steps changes the live regions at most a few
// times (the page announces a pause, not every step), a step by hand is announced,
// and so is the pause.
func TestBrowserLiveRegion(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	chosen := ""
	for _, slug := range lessonSlugs(t, srv.URL) {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/"+slug)); err != nil {
			t.Fatalf("loading the page: %v", err)
		}
		waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
		if evalJS[int](t, ctx, `Number(document.querySelector('[data-testid=steps]').textContent)`) > playedSteps+1 {
			chosen = slug
			break
		}
	}
	if chosen == "" {
		t.Fatalf("no lesson has more than %d steps", playedSteps+1)
	}
	t.Logf("playing %s", chosen)
	if evalJS[int](t, ctx, stepReadJS) != 0 {
		evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=reset]').click()`)
		waitForJS(t, ctx, "reset", stepReadJS+` === 0`)
	}
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=step-forward]').click()`)
	waitForJS(t, ctx, "a step by hand to be announced", `/Step 1 of/.test(document.querySelector('[data-testid=announce]').textContent)`)
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=speed]').value = document.querySelector('[data-testid=speed]').max; document.querySelector('[data-testid=speed]').dispatchEvent(new Event('input', {bubbles: true})); document.querySelector('[data-testid=speed]').dispatchEvent(new Event('change', {bubbles: true}))`)
	settle(t, ctx)
	evalJS[chromedp.Void](t, ctx, liveRegionsJS)
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=play]').click()`)
	waitForJS(t, ctx, fmt.Sprintf("%d steps played", playedSteps), fmt.Sprintf(`%s >= %d`, stepReadJS, 1+playedSteps))
	during := evalJS[int](t, ctx, `window.liveChanges`)
	texts := evalJS[[]string](t, ctx, `window.liveTexts`)
	evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=play]').click()`)
	waitForJS(t, ctx, "the pause to be announced", `/(Paused|End) at step/.test(document.querySelector('[data-testid=announce]').textContent)`)
	if during > maxLiveChanges {
		t.Errorf("the live regions changed %d times while playing %d steps, want at most %d: %q", during, playedSteps, maxLiveChanges, texts)
	}
	t.Logf("live changes while playing: %d; after the pause: %q", during, evalJS[string](t, ctx, `document.querySelector('[data-testid=announce]').textContent`))

	// training: quiet while it runs, announced when it ends
	if !evalJS[bool](t, ctx, `!!document.querySelector('[data-testid=train]')`) {
		t.Logf("%s does not train", chosen)
		return
	}
	time.Sleep(300 * time.Millisecond) // a tick already on its way may still land
	evalJS[chromedp.Void](t, ctx, liveRegionsJS)
	evalJS[chromedp.Void](t, ctx, `(f => { f.value = "20"; f.dispatchEvent(new Event('input', {bubbles: true})); f.dispatchEvent(new Event('change', {bubbles: true})); })(document.querySelector('[data-testid=train-steps]')); document.querySelector('[data-testid=train]').click()`)
	waitForJS(t, ctx, "the end of training to be announced", `/Training finished: \d+ steps/.test(document.querySelector('[data-testid=announce]').textContent)`)
	if n := evalJS[int](t, ctx, `window.liveChanges`); n > maxLiveChanges {
		t.Errorf("the live regions changed %d times while training, want at most %d: %q", n, maxLiveChanges, evalJS[[]string](t, ctx, `window.liveTexts`))
	}
}

// TestBrowserPanelTables: every panel kind says what it shows in its canvas's label
// (no TeX left in it) and its table has a caption and headers, and the table follows
// the step; with every table shown, axe-core finds no serious or critical violation
// on the page (TestBrowserAxe's check, run in this visit rather than in a load of its
// own). The visit starts with checkKeyboard.
func TestBrowserPanelTables(t *testing.T) {
	axeSrc, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatalf("reading axe-core: %v", err)
	}
	root := startBrowser(t)
	srv := browserServer(t)
	kinds, onPages := map[string]bool{}, map[string]bool{}
	for _, slug := range lessonSlugs(t, srv.URL) {
		t.Run(slug, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(root)
			defer cancel()
			errs := watchConsole(ctx)
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(srv.URL+"/lessons/"+slug+"?step=2")); err != nil { // a projector's screen
				t.Fatalf("loading the page: %v", err)
			}
			waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
			settle(t, ctx)
			checkKeyboard(t, ctx, slug)
			bad := evalJS[[]string](t, ctx, `[...document.querySelectorAll('.panel canvas')].filter(c => c.getAttribute('role') !== 'img' || !/: ./.test(c.getAttribute('aria-label') || '') || /\\\(/.test(c.getAttribute('aria-label'))).map(c => c.dataset.testid + ' ' + c.getAttribute('aria-label'))`)
			for _, b := range bad {
				t.Errorf("canvas not described in words: %s", b)
			}
			evalJS[chromedp.Void](t, ctx, `document.querySelectorAll('.table-toggle').forEach(b => b.click())`)
			settle(t, ctx)
			shown := evalJS[[]string](t, ctx, `[...document.querySelectorAll('.panel')].filter(p => p.querySelector('.panel-table table')).map(p => p.dataset.kind)`)
			for _, k := range shown {
				kinds[k] = true
			}
			if n := evalJS[int](t, ctx, `[...document.querySelectorAll('.panel-table table')].filter(t => !t.caption || !t.caption.textContent || !t.querySelector('th[scope=col]')).length`); n > 0 {
				t.Errorf("%d tables lack a caption or column headers", n)
			}
			waitForJS(t, ctx, "the panels' tables", `[...document.querySelectorAll('.panel-table')].every(t => !t.hidden && t.querySelector(':is(table, .table-note)'))`)
			reportViolations(t, "/lessons/"+slug, runAxe(t, ctx, string(axeSrc)))
			t.Logf("labels and open tables rebuilt in %s ms; labels alone %s ms", evalJS[string](t, ctx, `document.body.dataset.a11yMs`), func() string {
				evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=step-back]').click()`)
				waitForJS(t, ctx, "step 1", stepReadJS+` === 1`)
				settle(t, ctx)
				evalJS[chromedp.Void](t, ctx, `document.querySelectorAll('.table-toggle[aria-expanded=true]').forEach(b => b.click())`)
				evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=step-forward]').click()`)
				waitForJS(t, ctx, "step 2", stepReadJS+` === 2`)
				settle(t, ctx)
				ms := evalJS[string](t, ctx, `document.body.dataset.a11yMs`)
				evalJS[chromedp.Void](t, ctx, `document.querySelectorAll('.table-toggle').forEach(b => b.click())`)
				settle(t, ctx)
				return ms
			}())
			before := evalJS[string](t, ctx, `[...document.querySelectorAll('.panel-table')].map(t => t.textContent).join('|')`)
			labels := evalJS[string](t, ctx, `[...document.querySelectorAll('.panel canvas')].map(c => c.getAttribute('aria-label')).join('|')`)
			evalJS[chromedp.Void](t, ctx, `document.querySelector('[data-testid=step-forward]').click()`)
			waitForJS(t, ctx, "step 3", stepReadJS+` === 3`)
			settle(t, ctx)
			if after := evalJS[string](t, ctx, `[...document.querySelectorAll('.panel-table')].map(t => t.textContent).join('|')`); after == before && evalJS[int](t, ctx, `Number(document.querySelector('[data-testid=steps]').textContent)`) >= 3 {
				if evalJS[string](t, ctx, `[...document.querySelectorAll('.panel canvas')].map(c => c.getAttribute('aria-label')).join('|')`) == labels {
					t.Error("neither a table nor a label changed with the step")
				}
			}
			if n := evalJS[int](t, ctx, `Number(document.body.dataset.undeclared || 0)`); n != 0 {
				t.Errorf("%d undeclared reads: %s", n, evalJS[string](t, ctx, `document.body.dataset.undeclaredKeys`))
			}
			for _, e := range errs.list() {
				t.Errorf("console error: %s", e)
			}
			if slug == "gru" { // a table as a person sees it, on a projector's screen
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720)); err != nil {
					t.Fatal(err)
				}
				evalJS[chromedp.Void](t, ctx, `document.querySelector('.panel-table:not([hidden])').closest('.panel').scrollIntoView({block: "start"})`)
				settle(t, ctx)
				shoot(t, ctx, "a11y-gru-table.png")
			}
			// the last step: what waits for the decoder or the search's end has its numbers now
			last := evalJS[int](t, ctx, `Number(document.querySelector('[data-testid=steps]').textContent)`)
			evalJS[chromedp.Void](t, ctx, `document.querySelectorAll('.table-toggle[aria-expanded=false]').forEach(b => b.click())`)
			seekTo(t, ctx, last)
			settle(t, ctx)
			for _, k := range evalJS[[]string](t, ctx, `[...document.querySelectorAll('.panel')].filter(p => p.querySelector('.panel-table table')).map(p => p.dataset.kind)`) {
				kinds[k] = true
			}
			for _, k := range evalJS[[]string](t, ctx, `[...document.querySelectorAll('.panel[data-kind]:not([data-source=train])')].map(p => p.dataset.kind)`) {
				onPages[k] = true
			}
		})
	}
	for k := range onPages {
		if !kinds[k] {
			t.Errorf("no panel of kind %s showed a table, at step 2 or the last", k)
		}
	}
	t.Logf("panel kinds with a table: %d of %d on the pages", len(kinds), len(onPages))
}
