package exports

import (
	"bytes"
	"context"
	"image/png"
	"testing"

	"unroll/figures"
	"unroll/lessons"
)

// TestCausalMaskHatched (seed 002, masked decoder self-attention): the transformer's
// export hatches exactly the cells the causal mask removes, j > t′, as the page does,
// so a masked weight (exactly 0) is told from a small one and from a row not computed
// yet; the drawing has the hatch's lines there, and none without the mask's cells.
func TestCausalMaskHatched(t *testing.T) {
	l, ok := lessons.Find("transformer")
	if !ok {
		t.Fatal("no transformer lesson")
	}
	m, err := l.Build(l.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var panel lessons.Panel
	for _, p := range l.Panels {
		if p.ID == "dec-self" {
			panel = p
		}
	}
	v, err := NewView(context.Background(), l, m, 3)
	if err != nil {
		t.Fatal(err)
	}
	f, err := alignmentFigure(v, panel)
	if err != nil {
		t.Fatal(err)
	}
	g := f.Grid
	if len(g.HatchedCells) != len(g.Values) || len(g.Values) < 4 {
		t.Fatalf("%d hatched rows for %d rows", len(g.HatchedCells), len(g.Values))
	}
	for r, row := range g.HatchedCells {
		for c, h := range row {
			if want := c > r; h != want {
				t.Fatalf("row t′ = %d, column j = %d: hatched %v, want %v (j > t′)", r+1, c+1, h, want)
			}
		}
	}
	// dark pixels right of the diagonal (rows not computed yet, later columns: masked)
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
		for y := bnd.Min.Y + bnd.Dy()*45/100; y < bnd.Min.Y+bnd.Dy()*52/100; y++ { // rows t′ ≈ 6, 7
			for x := bnd.Min.X + bnd.Dx()*75/100; x < bnd.Min.X+bnd.Dx()*86/100; x++ { // columns j ≈ 9, 10
				if r, g, b, _ := img.At(x, y).RGBA(); r < 0x6000 && g < 0x6000 && b < 0x6000 {
					n++
				}
			}
		}
		return n
	}
	with := dark(f)
	f.Grid.HatchedCells = nil
	if without := dark(f); with == 0 || without != 0 {
		t.Errorf("dark pixels in the masked corner: %d with the hatch, %d without; want some, then none", with, without)
	}
}
