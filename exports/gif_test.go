package exports

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/gif"
	"testing"
	"unroll/figures"
)

// noTurn draws at once (the tests have no scheduler).
func noTurn() (func(), error) { return func() {}, nil }

// BenchmarkGIF: BPTT's ∂L/∂H_t heatmap through its 60 steps.
func BenchmarkGIF(b *testing.B) {
	l := lessonNamed(b, "bptt")
	m, err := l.Build(l.Params.Defaults())
	if err != nil {
		b.Fatal(err)
	}
	v, err := NewView(context.Background(), l, m, m.Steps())
	if err != nil {
		b.Fatal(err)
	}
	p, _ := Find(l, "dH")
	for b.Loop() {
		if _, err := GIF(context.Background(), v, p, figures.Options{Width: 1280}, noTurn); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGIFSize: a 30-step gate heatmap at 1280 px wide, the size a slide needs, is an
// animated GIF of 30 frames under 2 MB (issue 13), whose last frame is the panel at
// the last step.
func TestGIFSize(t *testing.T) {
	l := lessonNamed(t, "gru")
	v0, err := l.Params.Apply(l.Params.Defaults(), map[string]string{"input": "3 1 0 2 2 1 3 0 1 2 3 0 0 1 2 3 1 1 0 2 3 2 1 0 0 3 2 1 1 0"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := l.Build(v0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Steps() != 30 {
		t.Fatalf("%d steps, want 30", m.Steps())
	}
	v, err := NewView(context.Background(), l, m, m.Steps())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Find(l, "R")
	b, err := GIF(context.Background(), v, p, figures.Options{Width: 1280}, noTurn)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 30 || g.Config.Width != 1280 {
		t.Errorf("%d frames %d px wide, want 30 at 1280", len(g.Image), g.Config.Width)
	}
	// The frames, laid over each other, are the panel at the last step: its PNG's pixels.
	last := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	for _, fr := range g.Image {
		draw.Draw(last, fr.Bounds(), fr, fr.Bounds().Min, draw.Src)
	}
	f, err := Panel(v, p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := figures.Raster(f, figures.Options{Width: 1280})
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for i := 0; i < len(want.Pix); i += 4 {
		d := 0
		for c := range 3 {
			d = max(d, abs(int(want.Pix[i+c])-int(last.Pix[i+c])))
		}
		if d > 48 { // a colour the 256 of the palette cannot hold exactly is near one of them
			differ++
		}
	}
	if share := float64(differ) / float64(len(want.Pix)/4); share > 0.01 {
		t.Errorf("the GIF's last frame differs from the panel's drawing in %.1f %% of its pixels", 100*share)
	}
	if len(b) > 2<<20 {
		t.Errorf("the GIF is %d bytes, want under 2 MB", len(b))
	}
	t.Logf("30 frames at 1280 px: %d KB", len(b)>>10)
}

func abs(x int) int { return max(x, -x) }
