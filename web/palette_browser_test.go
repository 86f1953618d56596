package web

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"unroll/lessons"
	"unroll/palette"
)

// TestBrowserPaletteAssign: the pages' static/js/colors.js gives every line and bars
// panel of every lesson, and the hard cases of the role rules, the styles that package
// palette gives the exports, so a role (LSTM, GRU, RNN, …) looks the same in both.
func TestBrowserPaletteAssign(t *testing.T) {
	ctx := startBrowser(t)
	srv := browserServer(t)
	sets := [][]string{
		{"LSTM ‖∂L/∂H_t‖", "GRU ‖∂L/∂H_t‖", "RNN ‖∂L/∂H_t‖"},
		{"LSTM", "LSTM", "LSTM", "LSTM", "LSTM", "GRU"},
		{"ÉGRU", "gru-x", "x gru", "LSTMs", "Ünidirectional (bidirectional)", "GRU and LSTM"},
		{"loss", "greedy", "a", "b", "c", "d", "e", "f", "g", "h"},
	}
	for _, l := range lessons.Catalog() {
		for _, p := range l.Panels {
			if p.Kind != lessons.Line && p.Kind != lessons.Bars {
				continue
			}
			var labels []string
			for i, a := range p.Arrays {
				if i < len(p.Legend) && p.Legend[i] != "" {
					a = p.Legend[i]
				}
				labels = append(labels, a)
			}
			sets = append(sets, labels)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("loading /: %v", err)
	}
	in, err := json.Marshal(sets)
	if err != nil {
		t.Fatal(err)
	}
	type style struct {
		Colour       string
		Dash, Marker int
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[][]style](fmt.Sprintf(`import("/static/js/colors.js").then((m) => %s.map((l) => m.assign(l)))`, in), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("colors.js assign: %v", err)
	}
	if len(got) != len(sets) {
		t.Fatalf("colors.js gave %d sets of styles for %d", len(got), len(sets))
	}
	for i, labels := range sets {
		want := palette.Assign(labels)
		for j := range want {
			w := style{want[j].Colour.Hex(), want[j].Dash, want[j].Marker}
			if j >= len(got[i]) || got[i][j] != w {
				t.Errorf("%q: series %d styled %+v on the page, %+v in the exports", labels, j, got[i][j:min(j+1, len(got[i]))], w)
			}
		}
	}
}
