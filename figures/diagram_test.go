package figures

import (
	"bytes"
	"testing"
	unrollpalette "unroll/palette"
)

// TestDiagram: a diagram is drawn in every format, the same PNG each time; its node
// strips take the pages' colours at the ends of the scale (RdBu's blue at Lo, red at
// Hi); a diagram larger than the figure is scaled down to fit, one smaller grows to
// at most maxScale.
func TestDiagram(t *testing.T) {
	d := &Diagram{Width: 200, Height: 80, Lo: -1, Hi: 1,
		Bands:  []Band{{X: 0, Y: 0, W: 60, H: 80, Mark: Current}},
		Nodes:  []Node{{X: 30, Y: 40, W: 50, H: 26, Text: "x1", Mark: Current}, {X: 120, Y: 40, W: 80, H: 26, Strip: []float64{-1, 1}, Mark: Done}},
		Edges:  []Edge{{Points: [][2]float64{{55, 40}, {80, 40}}, Arrow: true}, {Points: [][2]float64{{30, 10}, {120, 70}}, Curve: true, Style: EdgeBest}},
		Labels: []Label{{X: 100, Y: 75, Text: "t = 1", Small: true, Mark: Current}},
		Key:    []KeyEntry{{Mark: Current, Text: "now"}}}
	f := Figure{Title: "a diagram", Diagram: d}
	img := drawPNG(t, f)
	lo, hi := unrollpalette.BlueOrange[0].RGBA(), unrollpalette.BlueOrange[len(unrollpalette.BlueOrange)-1].RGBA()
	if countNear(img, lo) < 1000 || countNear(img, hi) < 1000 {
		t.Errorf("the strip's ends are not drawn in the diverging map's end colours")
	}
	a, _ := Draw(f, PNG, Options{})
	b, _ := Draw(f, PNG, Options{})
	if !bytes.Equal(a, b) {
		t.Errorf("two drawings of the same diagram differ")
	}
	for _, format := range []Format{SVG, PDF} {
		if _, err := Draw(f, format, Options{}); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
	if s, ok := fitScale(2000, 100, room.w, room.h); !(s*2000 <= float64(room.w)+1e-9) || ok {
		t.Errorf("a 2000 pt wide diagram: scale %v (fits with readable type: %v), want it to fit and report type below minimum", s, ok)
	}
	if s, _ := fitScale(100, 50, room.w, room.h); s != maxScale {
		t.Errorf("a small diagram: scale %v, want %v", s, maxScale)
	}
}
