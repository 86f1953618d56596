package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserClampValueApplies: the gru page's clamped value applies only when a gate
// is clamped (sim.ParamSpec.When): with clamp = none its slider is disabled, out of
// the keyboard's Tab order, and says why; clamping a gate enables it, and the keyboard
// then moves it (the server takes the value); unclamping disables it again.
func TestBrowserClampValueApplies(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/gru")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the page going live", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	const slider, note = `document.querySelector('[data-testid=param-clamp_value]')`, `document.querySelector('[data-testid=applies-clamp_value]')`
	disabledJS := slider + `.disabled && !` + note + `.hidden && ` + slider + `.getAttribute("aria-describedby") === ` + note + `.id`
	if !evalJS[bool](t, ctx, disabledJS) {
		t.Fatalf("clamp = none: the clamped value is enabled or says nothing")
	}
	if got := evalJS[string](t, ctx, note+`.textContent`); !strings.Contains(got, "applies when a gate is clamped") {
		t.Errorf("the note says %q, want why the control is off", got)
	}
	// Keyboard: Tab from the clamp select skips the disabled slider.
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=param-clamp]`)), chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	if got := evalJS[string](t, ctx, `document.activeElement.dataset.param || document.activeElement.tagName`); got == "clamp_value" {
		t.Errorf("Tab from the clamp select reached the disabled clamped value")
	}

	// Clamp R: the slider comes alive, and the keyboard moves it.
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`[data-testid=param-clamp]`), "R"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=param-clamp]').dispatchEvent(new Event("change"))`)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the slider enabled", `new URLSearchParams(location.search).get("clamp") === "R" && !`+slider+`.disabled && `+note+`.hidden && !`+slider+`.hasAttribute("aria-describedby")`)
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=param-clamp]`)), chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	if got := evalJS[string](t, ctx, `document.activeElement.dataset.param || document.activeElement.tagName`); got != "clamp_value" {
		t.Errorf("Tab from the clamp select reached %q, want the enabled clamped value", got)
	}
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`[data-testid=param-clamp_value]`)), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the server taking the keyboard's value", `new URLSearchParams(location.search).get("clamp_value") === "0.05"`)

	// Back to none: disabled again.
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`[data-testid=param-clamp]`), "none"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=param-clamp]').dispatchEvent(new Event("change"))`)); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the slider disabled again", `new URLSearchParams(location.search).get("clamp") === "none" && `+disabledJS)
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}

// TestBrowserGRUConvention003: switching the gru page to seed 003's convention hides the
// update gate Z_t's panel and equations and shows Γ_u = 1 − Z_t's, with the same
// numbers read the other way round; switching back restores them.
func TestBrowserGRUConvention003(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/gru?step=3")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && `+stepReadJS+` === 3`)
	const z, g = `document.querySelector('[data-testid=panel-Z]')`, `document.querySelector('[data-testid=panel-Gamma_u]')`
	eqShown := func(sub string) string {
		return `[...document.querySelectorAll('.equation')].some(e => !e.hidden && e.dataset.tex.includes(String.raw` + "`" + sub + "`" + `))`
	}
	lectureJS := `!` + z + `.hidden && ` + g + `.hidden && ` + eqShown(`Z_t \odot H_{t-1}`) + ` && !` + eqShown(`\Gamma_u \odot \tilde H_t`)
	if !evalJS[bool](t, ctx, lectureJS) {
		t.Fatalf("by default the page should show the lecture's Z_t and not Γ_u")
	}
	set := func(v string) {
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`[data-testid=param-convention]`), v),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=param-convention]').dispatchEvent(new Event("change"))`)); err != nil {
			t.Fatal(err)
		}
	}
	set("lecture-003")
	waitForJS(t, ctx, "seed 003's convention", `new URLSearchParams(location.search).get("convention") === "lecture-003" && `+z+`.hidden && !`+g+`.hidden && `+
		eqShown(`\Gamma_u \odot \tilde H_t`)+` && !`+eqShown(`Z_t \odot H_{t-1}`))
	if got := evalJS[string](t, ctx, g+`.querySelector('figcaption, h3, .panel-title')?.textContent || `+g+`.textContent`); !strings.Contains(got, "Γ") {
		t.Errorf("the seed-003 panel's title %q does not name Γ_u", got)
	}
	set("lecture")
	waitForJS(t, ctx, "the lecture's convention again", `new URLSearchParams(location.search).get("convention") === "lecture" && `+lectureJS)
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}

// TestBrowserLSTMPeephole: switching the lstm page to the peephole form shows the
// peephole equations and loads the peephole LSTM (the facts name it as shown);
// switching back hides them again.
func TestBrowserLSTMPeephole(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/lstm?step=2")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && `+stepReadJS+` === 2`)
	const peepEq = `[...document.querySelectorAll('.equation')].filter(e => e.dataset.tex.includes("peephole"))`
	if n := evalJS[int](t, ctx, peepEq+`.filter(e => !e.hidden).length`); n != 0 {
		t.Fatalf("the plain form shows %d peephole equations", n)
	}
	set := func(v string) {
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`[data-testid=param-variant]`), v),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid=param-variant]').dispatchEvent(new Event("change"))`)); err != nil {
			t.Fatal(err)
		}
	}
	set("peephole")
	waitForJS(t, ctx, "the peephole form", `new URLSearchParams(location.search).get("variant") === "peephole" && `+peepEq+`.filter(e => !e.hidden).length === 3 && `+
		`document.querySelector('[data-testid=facts-model]').textContent.includes("peephole LSTM (shown)")`)
	set("lstm")
	waitForJS(t, ctx, "the plain form again", `new URLSearchParams(location.search).get("variant") === "lstm" && `+peepEq+`.every(e => e.hidden)`)
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}
