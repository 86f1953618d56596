package web

import (
	"bytes"
	"strings"
	"testing"

	"unroll/lessons"
)

// TestPlotPoints: a Points plot (the embeddings map) draws dots and the non-empty
// labels, deterministically, in every format.
func TestPlotPoints(t *testing.T) {
	p := lessons.Plot{Name: "space", Title: "map", XLabel: "PC1", YLabel: "PC2", Points: true}
	series := []lessons.Series{
		{Label: "pronoun", X: []float64{-1, -0.8}, Y: []float64{0.2, 0.3}, Labels: []string{"he", "she"}},
		{Label: "verb", X: []float64{0.5, 0.7}, Y: []float64{-0.1, 0}, Labels: []string{"", "drinks"}},
	}
	svg, err := renderPlot(p, series, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">he<", ">she<", ">drinks<", ">pronoun<", ">verb<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG: got no text %s", want)
		}
	}
	a, err := renderPlot(p, series, "png")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := renderPlot(p, series, "png")
	if !bytes.Equal(a, b) {
		t.Errorf("two renders of the same points plot differ")
	}
	if _, err := renderPlot(p, series, "pdf"); err != nil {
		t.Errorf("pdf: %v", err)
	}
}
