package exports

import (
	"context"
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
