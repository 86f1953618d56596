package exports

import (
	"bytes"
	"context"
	"image/png"
	"strings"
	"testing"

	"unroll/figures"
	"unroll/lessons"
)

// TestBPTTCutColumnsHatched: the gradient heatmap's export hatches exactly the time
// steps truncation cut off that the backward pass has reached, as the page does, says
// so in its axis label, and draws the hatch: a cut column of the PNG has both ink and
// ground pixels, where a column not computed yet is ground alone.
func TestBPTTCutColumnsHatched(t *testing.T) {
	l, ok := lessons.Find("bptt")
	if !ok {
		t.Fatal("no bptt lesson")
	}
	const T, k = 30, 10
	vals, err := l.Params.Apply(l.Params.Defaults(), map[string]string{"T": "30", "truncate": "10"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := l.Build(vals)
	if err != nil {
		t.Fatal(err)
	}
	var panel lessons.Panel
	for _, p := range l.Panels {
		if p.ID == "dH" {
			panel = p
		}
	}
	for _, step := range []int{T + 5, T + 25, 2 * T} {
		v, err := NewView(context.Background(), l, m, step)
		if err != nil {
			t.Fatal(err)
		}
		f, err := heatmapFigure(v, panel)
		if err != nil {
			t.Fatal(err)
		}
		reached := 2*T + 1 - step // the backward pass has reached t ≥ reached
		for c := range T {
			tt := c + 1
			want := tt <= T-k && tt >= reached
			if got := c < len(f.Grid.Hatched) && f.Grid.Hatched[c]; got != want {
				t.Errorf("step %d, t = %d: hatched %v want %v", step, tt, got, want)
			}
		}
		if want := strings.Contains(f.XLabel, "hatched: cut by truncation"); !want {
			t.Errorf("step %d: the axis label %q does not say what the hatch means", step, f.XLabel)
		}
		if step != 2*T {
			continue
		}
		// dark pixels along a row through the middle of the cut columns (the left third
		// of the figure): the hatch's lines, none without them (a cut step's ∂L/∂H_t is
		// 0, the scale's light middle)
		dark := func(f figures.Figure) int {
			b, err := figures.Draw(f, figures.PNG, pngOptions())
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			n, bnd := 0, img.Bounds()
			y := bnd.Min.Y + bnd.Dy()/2
			for x := bnd.Min.X + bnd.Dx()/8; x < bnd.Min.X+bnd.Dx()/3; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r < 0x6000 && g < 0x6000 && bl < 0x6000 {
					n++
				}
			}
			return n
		}
		f.Grid.Mark = 0 // no frame around the current column (t = 1) in either
		plain := f
		plainGrid := *f.Grid
		plainGrid.Hatched = nil
		plain.Grid = &plainGrid
		// The hatch's lines cross the row 14 times at figures.MinWidth (the width under
		// -race) and more at the default width; the cells' frame a pixel or two.
		if got, without := dark(f), dark(plain); got < 10 || without > 4 {
			t.Errorf("dark pixels across the cut columns: %d hatched, %d without the hatch; want the hatch's lines (10 or more) and next to none without", got, without)
		}
	}
}
