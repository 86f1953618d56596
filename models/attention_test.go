package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// attentionFDStep is the central-difference step: the truncation error h² and the
// round-off ε/h balance near 1e-5…1e-6 for losses of order 1.
const attentionFDStep = 1e-6

// attentionRandom returns an r×c matrix of U(−1, 1) draws.
func attentionRandom(r, c int, rng *rand.Rand) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m.Set(i, j, 2*rng.Float64()-1)
		}
	}
	return m
}

// attentionInner is ⟨G, X⟩ = Σ G ⊙ X, a loss whose gradient w.r.t. X is G.
func attentionInner(g, x *mat.Dense) float64 {
	var e mat.Dense
	e.MulElem(g, x)
	return mat.Sum(&e)
}

func TestAdditiveAttentionGradients(t *testing.T) {
	for _, tc := range []struct {
		name         string
		batch, steps int
		q, k, a      int
		validLen     []int
		rel, abs     float64
	}{
		{"padded batch", 2, 3, 4, 3, 5, []int{3, 1}, 1e-6, 1e-9},
		{"all valid", 3, 4, 2, 2, 3, nil, 1e-6, 1e-9},
		{"one key", 1, 1, 3, 2, 2, []int{1}, 1e-6, 1e-9},
		{"empty example", 2, 2, 2, 3, 4, []int{0, 2}, 1e-6, 1e-9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			att := NewAdditiveAttention(tc.q, tc.k, tc.a, rng)
			query := attentionRandom(tc.batch, tc.q, rng)
			keys := make([]*mat.Dense, tc.steps)
			for j := range keys {
				keys[j] = attentionRandom(tc.batch, tc.k, rng)
			}
			upstream := attentionRandom(tc.batch, tc.k, rng)
			loss := func() float64 {
				return attentionInner(upstream, att.Forward(query, keys, tc.validLen).Context)
			}

			att.Params().ZeroGrad()
			dQuery, dKeys := att.Backward(att.Forward(query, keys, tc.validLen), upstream)
			for _, p := range att.Params() {
				if msg := gradMismatch(p.Name, p.Grad, numericGrad(p.Value, loss, attentionFDStep), tc.rel, tc.abs); msg != "" {
					t.Error(msg)
				}
			}
			if msg := gradMismatch("query", dQuery, numericGrad(query, loss, attentionFDStep), tc.rel, tc.abs); msg != "" {
				t.Error(msg)
			}
			for j := range keys {
				if msg := gradMismatch(fmt.Sprintf("key %d", j+1), dKeys[j], numericGrad(keys[j], loss, attentionFDStep), tc.rel, tc.abs); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

func TestAdditiveAttentionMasking(t *testing.T) {
	const tol = 1e-12
	for _, tc := range []struct {
		name     string
		validLen []int
	}{
		{"mixed lengths", []int{4, 2, 1}},
		{"all full", []int{4, 4, 4}},
		{"one empty", []int{3, 0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			const batch, steps, q, k, a = 3, 4, 3, 2, 3
			att := NewAdditiveAttention(q, k, a, rng)
			query := attentionRandom(batch, q, rng)
			keys := make([]*mat.Dense, steps)
			for j := range keys {
				keys[j] = attentionRandom(batch, k, rng)
			}
			tr := att.Forward(query, keys, tc.validLen)
			for b, n := range tc.validLen {
				var sum float64
				for j := 0; j < steps; j++ {
					w := tr.Weights.At(b, j)
					if j >= n && w != 0 {
						t.Errorf("example %d key %d (padding): got weight %v want exactly 0", b, j+1, w)
					}
					sum += w
				}
				want := 1.0
				if n == 0 {
					want = 0
				}
				if math.Abs(sum-want) > tol {
					t.Errorf("example %d: got Σ_j α = %.15g want %v", b, sum, want)
				}
			}

			// Changing padding keys must not change any context, bit for bit.
			for j := range keys {
				for b, n := range tc.validLen {
					if j >= n {
						keys[j].SetRow(b, []float64{100, -100})
					}
				}
			}
			again := att.Forward(query, keys, tc.validLen)
			if !mat.Equal(again.Context, tr.Context) {
				t.Errorf("padding keys changed the context: got %v want %v", mat.Formatted(again.Context), mat.Formatted(tr.Context))
			}
			// …and they receive no gradient.
			_, dKeys := att.Backward(tr, attentionRandom(batch, k, rng))
			for j := range keys {
				for b, n := range tc.validLen {
					if j >= n {
						if row := dKeys[j].RawRowView(b); row[0] != 0 || row[1] != 0 {
							t.Errorf("example %d padding key %d: got gradient %v want 0", b, j+1, row)
						}
					}
				}
			}
		})
	}
}

func TestScaledDotProductWorkedExample(t *testing.T) {
	// One query q = (1, 0) over keys (1, 0) and (0, 1), d_k = 2: the scores are
	// 1/√2 and 0, so α = (σ(1/√2), 1 − σ(1/√2)) and out = α_1 v_1 + α_2 v_2.
	const tol = 1e-12
	Q := mat.NewDense(1, 2, []float64{1, 0})
	K := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	V := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	out, weights := ScaledDotProduct(Q, K, V, nil)
	a1 := 1 / (1 + math.Exp(-1/math.Sqrt2))
	wantW := []float64{a1, 1 - a1}
	wantOut := []float64{a1*1 + (1-a1)*3, a1*2 + (1-a1)*4}
	for j, w := range wantW {
		if got := weights.At(0, j); math.Abs(got-w) > tol {
			t.Errorf("α_%d: got %.15g want %.15g", j+1, got, w)
		}
		if got := out.At(0, j); math.Abs(got-wantOut[j]) > tol {
			t.Errorf("out_%d: got %.15g want %.15g", j+1, got, wantOut[j])
		}
	}

	// With the second key masked all weight goes to the first: out = v_1.
	out, weights = ScaledDotProduct(Q, K, V, PaddingMask(1))
	if weights.At(0, 0) != 1 || weights.At(0, 1) != 0 {
		t.Errorf("masked weights: got %v want [1 0]", weights.RawRowView(0))
	}
	if out.At(0, 0) != 1 || out.At(0, 1) != 2 {
		t.Errorf("masked out: got %v want [1 2]", out.RawRowView(0))
	}
}

func TestScaledDotProductMaskAndGradients(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, m     int
		dk, dv   int
		mask     KeyMask
		allowed  func(i, j int) bool
		rel, abs float64
	}{
		{"no mask", 3, 4, 2, 3, nil, func(_, _ int) bool { return true }, 1e-6, 1e-9},
		{"padding", 2, 4, 3, 2, PaddingMask(2), func(_, j int) bool { return j < 2 }, 1e-6, 1e-9},
		{"causal", 4, 4, 2, 2, CausalMask, func(i, j int) bool { return j <= i }, 1e-6, 1e-9},
		{"nothing allowed", 2, 3, 2, 2, PaddingMask(0), func(_, _ int) bool { return false }, 1e-6, 1e-9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			Q := attentionRandom(tc.n, tc.dk, rng)
			K := attentionRandom(tc.m, tc.dk, rng)
			V := attentionRandom(tc.m, tc.dv, rng)
			upstream := attentionRandom(tc.n, tc.dv, rng)

			_, weights := ScaledDotProduct(Q, K, V, tc.mask)
			for i := 0; i < tc.n; i++ {
				var sum float64
				any := false
				for j := 0; j < tc.m; j++ {
					w := weights.At(i, j)
					if !tc.allowed(i, j) && w != 0 {
						t.Errorf("query %d key %d (masked): got weight %v want exactly 0", i, j, w)
					}
					any = any || tc.allowed(i, j)
					sum += w
				}
				want := 0.0
				if any {
					want = 1
				}
				if math.Abs(sum-want) > 1e-12 {
					t.Errorf("query %d: got Σ_j A_ij = %.15g want %v", i, sum, want)
				}
			}

			loss := func() float64 {
				out, _ := ScaledDotProduct(Q, K, V, tc.mask)
				return attentionInner(upstream, out)
			}
			dQ, dK, dV := ScaledDotProductBackward(Q, K, V, weights, upstream)
			for _, c := range []struct {
				what     string
				got, wrt *mat.Dense
			}{{"Q", dQ, Q}, {"K", dK, K}, {"V", dV, V}} {
				if msg := gradMismatch(c.what, c.got, numericGrad(c.wrt, loss, attentionFDStep), tc.rel, tc.abs); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}
