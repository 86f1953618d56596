package zoo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"unroll/data"
	"unroll/internal/machine"
)

// TestFillBlankGradient checks lossGrad's gather and scatter of the blank states by
// central differences on every parameter of small random models.
func TestFillBlankGradient(t *testing.T) {
	const tol = 1e-6 // relative
	for _, bi := range []bool{false, true} {
		m := NewFillBlank(bi, 3)
		rng := rand.New(rand.NewPCG(1, 1))
		for _, p := range m.Params() {
			p.Uniform(0.5, rng)
		}
		batch := []data.BlankSentence{data.DrawBlankSentence(rng), data.DrawBlankSentence(rng), data.DrawBlankSentence(rng)}
		ps := m.Params()
		ps.ZeroGrad()
		m.lossGrad(batch)
		for _, p := range ps {
			raw := p.Value.RawMatrix().Data
			grad := p.Grad.RawMatrix().Data
			for i := 0; i < len(raw); i += 1 + len(raw)/7 { // a spread of entries
				orig := raw[i]
				f := func(x []float64) float64 {
					raw[i] = x[0]
					defer func() { raw[i] = orig }()
					saved := make([][]float64, len(ps))
					for k, q := range ps {
						saved[k] = slices.Clone(q.Grad.RawMatrix().Data)
					}
					l, _ := m.lossGrad(batch)
					for k, q := range ps {
						copy(q.Grad.RawMatrix().Data, saved[k])
					}
					return l
				}
				want := fd.Derivative(func(x float64) float64 { return f([]float64{x}) }, orig, &fd.Settings{Formula: fd.Central, Step: 1e-5})
				if got := grad[i]; math.Abs(got-want) > tol*math.Max(1e-3, math.Abs(want)) {
					t.Errorf("bidirectional=%v %s[%d]: got %v want %v", bi, p.Name, i, got, want)
				}
			}
		}
	}
}

// TestFillBlankCheckpoints: the shipped models reproduce their recorded held-out
// scores; the bidirectional one fills every held-out blank right, the
// unidirectional one is near chance (measured values in docs/lessons.md).
func TestFillBlankCheckpoints(t *testing.T) {
	set := data.BlankEvalSet()
	chance := blankChance(set)
	for _, bi := range []bool{false, true} {
		m, meta, err := loadFillBlank(bi)
		if err != nil {
			t.Fatal(err)
		}
		acc, pa := m.Accuracy(set), m.MeanAnswerProb(set)
		for k, c := range map[string]struct{ got, tol float64 }{
			"accuracy": {acc, machine.RecordedCount}, "chance": {chance, machine.RecordedCount}, "p_answer": {pa, machine.RecordedSmooth},
		} {
			machine.CheckRecorded(t, fmt.Sprintf("bidirectional=%v %s", bi, k), c.got, meta.Float(k), c.tol)
		}
		if bi && (acc < 0.95 || pa < 0.9) {
			t.Errorf("bidirectional: held-out accuracy %v, mean p(answer) %v; want ≥ 0.95 and ≥ 0.9", acc, pa)
		}
		if !bi && (acc > chance+0.1 || math.Abs(pa-0.25) > 0.1) {
			t.Errorf("unidirectional: held-out accuracy %v (chance %v), mean p(answer) %v; want ≤ chance + 0.1 and ≈ 1/4", acc, chance, pa)
		}
	}
}
