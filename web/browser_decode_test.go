package web

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// equationTeX is the data-tex attribute of the page's equation n as the server wrote it.
func equationTeX(t *testing.T, body string, n int) string {
	t.Helper()
	re := regexp.MustCompile(`<div class="equation" data-tex="([^"]*)"[^>]*data-testid="equation-` + fmt.Sprint(n) + `"`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no equation-%d in the page", n)
	}
	return html.UnescapeString(m[1])
}

// TestEquationFollowsParamServer: the server renders an equation that depends on a
// parameter in its form for the URL's value (deep-rnn's layer step for the cell).
func TestEquationFollowsParamServer(t *testing.T) {
	srv := browserServer(t)
	for cell, want := range map[string]string{"rnn": `\tanh(H_t^{(l-1)} W_{xh}^{(l)}`, "gru": `Z_t^{(l)}`, "lstm": `C_t^{(l)}`} {
		res, err := http.Get(srv.URL + "/lessons/deep-rnn?cell=" + cell)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if tex := equationTeX(t, string(body), 1); !strings.Contains(tex, want) {
			t.Errorf("cell=%s: equation 1 is %q, want it to contain %q", cell, tex, want)
		}
	}
}

// TestBrowserEquationFollowsParam: switching deep-rnn's cell switches the displayed
// layer equation (rendered by KaTeX, its symbol H still a button) without a reload.
func TestBrowserEquationFollowsParam(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	errs := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/lessons/deep-rnn?cell=lstm")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	const eq = `document.querySelector('[data-testid=equation-1]')`
	if !evalJS[bool](t, ctx, eq+`.dataset.tex.includes("C_t^{(l)}") && !!`+eq+`.querySelector(".katex")`) {
		t.Fatalf("cell=lstm: equation 1 is %q", evalJS[string](t, ctx, eq+`.dataset.tex`))
	}
	evalJS[chromedp.Void](t, ctx, `window.__samePage = true`) // gone if the page reloads
	for _, c := range []struct{ cell, has, hasNot string }{
		{"rnn", `\\tanh(H_t^{(l-1)} W_{xh}^{(l)}`, `C_t^{(l)}`},
		{"gru", `Z_t^{(l)}`, `C_t^{(l)}`},
		{"lstm", `C_t^{(l)}`, `Z_t^{(l)}`},
	} {
		evalJS[chromedp.Void](t, ctx, fmt.Sprintf(`(s => { s.value = %q; s.dispatchEvent(new Event("change")); })(document.querySelector('[data-testid=param-cell]'))`, c.cell))
		waitForJS(t, ctx, "the "+c.cell+" equation", fmt.Sprintf(`new URLSearchParams(location.search).get("cell") === %q && %s.dataset.tex.includes(%q) && !%s.dataset.tex.includes(%q)`,
			c.cell, eq, strings.ReplaceAll(c.has, `\\`, `\`), eq, c.hasNot))
		if !evalJS[bool](t, ctx, `window.__samePage === true`) {
			t.Fatal("the page reloaded")
		}
		if got := evalJS[string](t, ctx, eq+`.querySelector(".katex-mathml annotation")?.textContent || ""`); got != evalJS[string](t, ctx, eq+`.dataset.tex`) {
			t.Errorf("%s: KaTeX shows %q, want the new TeX", c.cell, got)
		}
		if n := evalJS[int](t, ctx, eq+`.querySelectorAll('.sym-H[role=button]').length`); n != 1 {
			t.Errorf("%s: %d H buttons in the equation, want 1", c.cell, n)
		}
		if bad := evalJS[[]string](t, ctx, `[...document.querySelectorAll('.katex-error')].map(e => e.title || e.textContent)`); len(bad) > 0 {
			t.Errorf("%s: KaTeX errors %q", c.cell, bad)
		}
		screenshot(ctx, "deep-rnn-equation-"+c.cell)
	}
	for _, e := range errs.list() {
		t.Errorf("console error: %s", e)
	}
}

// TestBrowserAttentionDateRefused: a date that is not in the calendar or not a date is
// refused with the reason, and the page keeps its date and state.
func TestBrowserAttentionDateRefused(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+"/lessons/attention")); err != nil {
		t.Fatal(err)
	}
	waitForJS(t, ctx, "the first frame", `document.body.dataset.stream === "live" && document.body.dataset.math === "rendered"`)
	url, seq := evalJS[string](t, ctx, `location.href`), evalJS[int](t, ctx, `Number(document.body.dataset.seq)`)
	for _, c := range []struct{ typed, want string }{
		{"31 February 2026", "is not a date in the calendar"},
		{"hello world", "is not a date in any of the 15 trained forms"},
	} {
		typeInto(t, ctx, "param-date", c.typed)
		waitForJS(t, ctx, "the refusal of "+c.typed, fmt.Sprintf(`(n => !!n && !n.hidden && n.textContent.includes(%q))(document.querySelector('[data-testid=note-date]'))`, c.want))
		if got := evalJS[string](t, ctx, `location.href`); got != url {
			t.Errorf("%q: the URL changed to %s", c.typed, got)
		}
		if got := evalJS[int](t, ctx, `Number(document.body.dataset.seq)`); got != seq {
			t.Errorf("%q: the page drew seq %d, want %d still", c.typed, got, seq)
		}
		screenshot(ctx, "attention-date-refused")
	}
}
