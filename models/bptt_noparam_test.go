package models

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBackwardNoParamGrads checks that BPTTOptions.NoParamGrads gives the same DX,
// DS0 and norms as Backward, bit for bit, full and truncated, for every cell kind
// (the GRU through its sequence pass too), and leaves every Param.Grad as it was;
// and that concurrent calls on one cell are safe (run under -race).
func TestBackwardNoParamGrads(t *testing.T) {
	for _, kind := range cellKinds {
		for _, k := range []int{0, 2} {
			rng := rand.New(rand.NewPCG(1, 1))
			const T, B, d, h = 5, 2, 3, 4
			c := kind.make(d, h, rng)
			xs := cellSequence(T, B, d, rng)
			dH := cellSequence(T, B, h, rng)
			dH[1] = nil
			tr, err := Forward(c, xs, randomState(c, B, rng))
			if err != nil {
				t.Fatal(err)
			}
			ps := c.Params()
			for _, p := range ps {
				p.Grad.Copy(cellRandom(p.Grad.RawMatrix().Rows, p.Grad.RawMatrix().Cols, rng)) // not zero, so a write shows
			}
			before := make([]*mat.Dense, len(ps))
			for i, p := range ps {
				before[i] = mat.DenseCopyOf(p.Grad)
			}
			var wg sync.WaitGroup
			got := make([]*Grads, 4)
			for i := range got {
				wg.Go(func() { got[i] = Backward(c, tr, dH, BPTTOptions{Truncate: k, NoParamGrads: true}) })
			}
			wg.Wait()
			for i, p := range ps {
				if !mat.Equal(p.Grad, before[i]) {
					t.Errorf("%s k=%d: %s.Grad changed: got a write want none", kind.name, k, p.Name)
				}
			}
			want := Backward(c, stepwiseTrace(c, xs, tr.Steps[0].Prev), dH, BPTTOptions{Truncate: k})
			tol := 0.0 // the same products in the same order
			if tr.fused != nil {
				tol = 1e-12 // the sequence pass's forward states differ from Step's in rounding
			}
			for _, g := range got {
				for s := range T {
					if err := cellClose("DX", g.DX[s], want.DX[s], tol); err != nil {
						t.Errorf("%s k=%d step %d: %v", kind.name, k, s+1, err)
					}
					if math.Abs(g.HNorm[s]-want.HNorm[s]) > tol {
						t.Errorf("%s k=%d: HNorm[%d]: got %v want %v", kind.name, k, s, g.HNorm[s], want.HNorm[s])
					}
				}
				if err := cellClose("DS0.H", g.DS0.H, want.DS0.H, tol); err != nil {
					t.Errorf("%s k=%d: %v", kind.name, k, err)
				}
			}
		}
	}
}
