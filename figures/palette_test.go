package figures

import (
	"bytes"
	"image/png"
	"testing"

	"unroll/palette"
)

// TestCurvesTakeRoles: an export draws a role in its colour wherever the series comes
// in the figure: an RNN curve first is the RNN's bluish green, not the first
// categorical colour (blue, the LSTM's), and an unnamed curve after it takes blue, the
// first colour no role of the figure holds, not the second (orange).
func TestCurvesTakeRoles(t *testing.T) {
	f := Figure{Title: "‖∂L/∂H_t‖", XLabel: "t", YLabel: "norm", Series: []Series{
		{Label: "RNN ‖∂L/∂H_t‖", X: []float64{1, 2, 3}, Y: []float64{1, 2, 3}},
		{Label: "bound", X: []float64{1, 2, 3}, Y: []float64{3, 2, 1}},
	}}
	b, err := Draw(f, PNG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	count := map[palette.RGB]int{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			count[palette.RGB{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8)}]++
		}
	}
	// a 2 pt line over a 1600 px figure is thousands of pixels; antialiased edges aside
	const minPixels = 1000
	if count[palette.BluishGreen] < minPixels {
		t.Errorf("%d pixels of the RNN's bluish green %s, want ≥ %d", count[palette.BluishGreen], palette.BluishGreen.Hex(), minPixels)
	}
	if count[palette.Blue] < minPixels {
		t.Errorf("%d pixels of blue %s for the second curve, want ≥ %d", count[palette.Blue], palette.Blue.Hex(), minPixels)
	}
	if n := count[palette.Orange]; n > 0 {
		t.Errorf("%d pixels of orange: no series should take it", n)
	}
}
