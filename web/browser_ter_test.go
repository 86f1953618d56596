package web

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserTERShift: on the bleu page, a candidate that needs a shift ("sat on the
// mat the cat" against "the cat sat on the mat") shows it at the last step: the ngrams
// panel draws violet shift marks and arrows (its pixels), says the shift in words
// (aria-label) and lists it in its table; WER's alignment stays above it. Screenshots
// of the panel at 1280×720 and 360 px wide are kept as artefacts.
func TestBrowserTERShift(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	console := watchConsole(ctx)
	q := url.Values{"example": {"typed"}, "candidate": {"sat on the mat the cat"}, "references": {"the cat sat on the mat"}, "step": {"5"}}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"1280", 1280, 720}, {"360", 360, 740}} {
		t.Run(size.name, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h), chromedp.Navigate(srv.URL+"/lessons/bleu?"+q.Encode())); err != nil {
				t.Fatal(err)
			}
			waitForJS(t, ctx, "the last step drawn", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && `+stepReadJS+` === 5 && `+drawnStepJS)
			const canvas = `document.querySelector('[data-testid=canvas-ngrams]')`
			waitForJS(t, ctx, "the TER description", canvas+`.getAttribute('aria-label').includes('TER')`)
			label := evalJS[string](t, ctx, canvas+`.getAttribute('aria-label')`)
			for _, want := range []string{"word error rate alignment: 0 substitutions, 2 deletions, 2 insertions", "TER: 1 edits, 1 shift (“the cat” from word 5 to 1), then 0 word edits"} {
				if !strings.Contains(label, want) {
					t.Errorf("the panel's description %q lacks %q", label, want)
				}
			}
			// the shift is drawn: pixels of its violet (#7c3aed) on the canvas
			violet := evalJS[int](t, ctx, `(() => { const c = `+canvas+`, d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
				for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 0x7c) < 12 && Math.abs(d[i+1] - 0x3a) < 12 && Math.abs(d[i+2] - 0xed) < 12) n++; return n; })()`)
			if violet < 100 {
				t.Errorf("the panel has %d violet pixels: no shift drawn", violet)
			}
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid=table-toggle-ngrams]`))); err != nil {
				t.Fatal(err)
			}
			waitForJS(t, ctx, "the tables", `document.querySelectorAll('[data-testid=table-ngrams] table').length === 3`)
			shifts := evalJS[string](t, ctx, `document.querySelectorAll('[data-testid=table-ngrams] table')[1].innerText`)
			if !strings.Contains(shifts, "the cat") || !strings.Contains(shifts, "TER: the shifts") {
				t.Errorf("the shifts table reads %q", shifts)
			}
			if shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`[data-testid=panel-ngrams]`))); err == nil && os.MkdirAll(screenshotDir, 0o755) == nil {
				_ = os.WriteFile(filepath.Join(screenshotDir, "bleu-ter-shift-"+size.name+".png"), shot, 0o644)
			}
			if errs := console.list(); len(errs) > 0 {
				t.Errorf("console errors: %v", errs)
			}
		})
	}

	// Snover et al. 2006's example: one shift, two substitutions and a deletion, 4 edits
	// over 13 words, where WER counts 6
	t.Run("paper", func(t *testing.T) {
		q := url.Values{"example": {"typed"}, "candidate": {"this week the saudis denied information published in the new york times"},
			"references": {"saudi arabia denied this week information published in the american new york times"}, "step": {"5"}}
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(srv.URL+"/lessons/bleu?"+q.Encode())); err != nil {
			t.Fatal(err)
		}
		waitForJS(t, ctx, "the last step drawn", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered" && `+stepReadJS+` === 5 && `+drawnStepJS)
		const canvas = `document.querySelector('[data-testid=canvas-ngrams]')`
		waitForJS(t, ctx, "the TER description", canvas+`.getAttribute('aria-label').includes('TER')`)
		if label := evalJS[string](t, ctx, canvas+`.getAttribute('aria-label')`); !strings.Contains(label, "TER: 4 edits, 1 shift (“this week” from word 1 to 4), then 3 word edits") {
			t.Errorf("the panel's description %q does not give the paper's edits", label)
		}
		facts := evalJS[string](t, ctx, `document.querySelector('[data-testid=facts]').innerText`)
		if !strings.Contains(facts, "(1 + 2 + 1 + 0)/13 = 0.3077") || !strings.Contains(facts, "(5 + 1 + 0)/13 = 0.4615") {
			t.Errorf("the facts do not give TER 4/13 beside WER 6/13: %q", facts)
		}
		if shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`[data-testid=panel-ngrams]`))); err == nil && os.MkdirAll(screenshotDir, 0o755) == nil {
			_ = os.WriteFile(filepath.Join(screenshotDir, "bleu-ter-paper-1280.png"), shot, 0o644)
		}
	})
}
