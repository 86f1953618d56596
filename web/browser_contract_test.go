package web

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
)

// codeName: a facts label written as code (snake_case words).
var codeName = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)+$`)

// TestBrowserContract visits every lesson at its first, middle and last steps (and at
// the middle one checkReadsAsWords), steps forward and back, hovers every equation
// symbol, and requires that no panel (nor the symbol readout) read an array or a meta
// key its contract does not declare: the page's accessor (static/js/contract.js)
// counts such reads in document.body.dataset.undeclared. It also requires the facts
// region to list only the lesson's labelled facts: no code names (codeName).
func TestBrowserContract(t *testing.T) {
	root := startBrowser(t)
	srv := browserServer(t)
	for _, l := range walkedLessons() {
		t.Run(l.Slug, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(root)
			defer cancel()
			errs := watchConsole(ctx)
			m, err := l.Model(l.Params.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			n := m.Steps()
			// The page opens at step 1 (a snapshot), then the scrubber takes it to the middle
			// and the end (frames, and the snapshot that fills the gap): one load a lesson.
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(fmt.Sprintf("%s/lessons/%s?step=1", srv.URL, l.Slug))); err != nil {
				t.Fatalf("loading the page: %v", err)
			}
			waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
			read := false
			for _, step := range []int{1, n / 2, n} {
				seekTo(t, ctx, step)
				if step == max(1, n/2) && !read {
					checkReadsAsWords(t, ctx, l)
					read = true
				}
				if step < n {
					if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=step-forward]`))); err != nil {
						t.Fatal(err)
					}
					waitForJS(t, ctx, "a step forward", fmt.Sprintf(`%s === %d && %s`, stepReadJS, step+1, drawnStepJS))
				}
				// every equation symbol's readout, and a pointer over every panel
				evalJS[chromedp.Void](t, ctx, `(() => {
					for (const e of document.querySelectorAll('.equation [class*="sym-"]')) e.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
					for (const c of document.querySelectorAll('.panel canvas')) {
						const r = c.getBoundingClientRect();
						for (const [fx, fy] of [[0.3, 0.3], [0.6, 0.5], [0.9, 0.8]])
							c.dispatchEvent(new MouseEvent("mousemove", {bubbles: true, clientX: r.left + fx * r.width, clientY: r.top + fy * r.height}));
						c.dispatchEvent(new MouseEvent("mouseleave"));
					}
				})()`)
				if bad := evalJS[string](t, ctx, `document.body.dataset.undeclaredKeys || ""`); bad != "" {
					t.Errorf("at step %d the page read undeclared data: %s", step, bad)
				}
				labels := evalJS[[]string](t, ctx, `[...document.querySelectorAll('[data-testid=facts] dt:not(.head)')].map(d => d.textContent)`)
				for _, label := range labels {
					if codeName.MatchString(label) {
						t.Errorf("at step %d the facts show the code name %q", step, label)
					}
				}
			}
			if got := evalJS[string](t, ctx, `document.body.dataset.undeclared || "0"`); got != "0" {
				t.Errorf("%s undeclared reads", got)
			}
			for _, e := range errs.list() {
				t.Errorf("console error: %s", e)
			}
		})
	}
}
