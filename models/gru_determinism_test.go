package models

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGRUSequenceBackwardIsDeterministic: the sequence-level pass spreads work over
// goroutines, but the same inputs must give bit-identical gradients every time
// (same seed + same commands = same frames: docs/architecture.md, "The page contract").
func TestGRUSequenceBackwardIsDeterministic(t *testing.T) {
	for _, B := range []int{1, 4, 32} {
		t.Run(fmt.Sprintf("B=%d", B), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			const T, d, h = 32, 8, 16
			c := NewGRU(d, h, rng)
			xs := make([]*mat.Dense, T)
			dH := make([]*mat.Dense, T)
			for i := range xs {
				xs[i] = mat.NewDense(B, d, nil)
				dH[i] = mat.NewDense(B, h, nil)
				for j := range B {
					for k := range d {
						xs[i].Set(j, k, rng.NormFloat64())
					}
					for k := range h {
						dH[i].Set(j, k, rng.NormFloat64())
					}
				}
			}
			run := func() []float64 {
				c.Params().ZeroGrad()
				tr, err := Forward(c, xs, State{})
				if err != nil {
					t.Fatal(err)
				}
				g := Backward(c, tr, dH, BPTTOptions{})
				var out []float64
				for _, p := range c.Params() {
					out = append(out, mat.DenseCopyOf(p.Grad).RawMatrix().Data...)
				}
				return append(out, g.DS0.H.RawMatrix().Data...)
			}
			want := run()
			for i := range 200 {
				got := run()
				for k := range want {
					if got[k] != want[k] {
						t.Fatalf("run %d: gradient entry %d = %v, first run %v: not bit-identical", i+2, k, got[k], want[k])
					}
				}
			}
		})
	}
}
