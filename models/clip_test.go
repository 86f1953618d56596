package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// clipParams returns two parameters whose gradients are g1 (1×len) and g2 (a bias).
func clipParams(g1, g2 []float64) Params {
	a := NewParam("W", 1, len(g1))
	a.Grad = mat.NewDense(1, len(g1), append([]float64(nil), g1...))
	b := NewBias("b", len(g2))
	b.Grad = mat.NewDense(1, len(g2), append([]float64(nil), g2...))
	return Params{a, b}
}

func TestClipGradNorm(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name        string
		g1, g2      []float64
		theta       float64
		wantNorm    float64
		wantClipped bool
		want1       []float64 // gradients afterwards
		want2       []float64
		tol         float64
	}{
		{"below θ untouched", []float64{3}, []float64{4}, 10, 5, false, []float64{3}, []float64{4}, 0},
		{"exactly θ untouched", []float64{3}, []float64{4}, 5, 5, false, []float64{3}, []float64{4}, 0},
		{"above θ scaled", []float64{3}, []float64{4}, 1, 5, true, []float64{0.6}, []float64{0.8}, 1e-15},
		{"several entries", []float64{1, 2, 2}, []float64{4, 0}, 2.5, 5, true, []float64{0.5, 1, 1}, []float64{2, 0}, 1e-15},
		{"zero gradient", []float64{0, 0}, []float64{0}, 1, 0, false, []float64{0, 0}, []float64{0}, 0},
		{"huge but finite", []float64{3e200}, []float64{4e200}, 1, 5e200, true, []float64{0.6}, []float64{0.8}, 1e-15},
		{"tiny", []float64{3e-200}, []float64{4e-200}, 1, 5e-200, false, []float64{3e-200}, []float64{4e-200}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := clipParams(tc.g1, tc.g2)
			norm, clipped := ClipGradNorm(ps, tc.theta)
			if math.Abs(norm-tc.wantNorm) > 1e-15*tc.wantNorm || clipped != tc.wantClipped {
				t.Errorf("got norm %v clipped %v want %v %v", norm, clipped, tc.wantNorm, tc.wantClipped)
			}
			for i, w := range tc.want1 {
				if got := ps[0].Grad.At(0, i); math.Abs(got-w) > tc.tol {
					t.Errorf("W grad[%d]: got %v want %v", i, got, w)
				}
			}
			for i, w := range tc.want2 {
				if got := ps[1].Grad.At(0, i); math.Abs(got-w) > tc.tol {
					t.Errorf("b grad[%d]: got %v want %v", i, got, w)
				}
			}
			if clipped {
				if after := ps.GradNorm(); math.Abs(after-tc.theta) > 1e-12*tc.theta {
					t.Errorf("norm after clipping: got %.17g want θ = %v", after, tc.theta)
				}
			}
		})
	}
	t.Run("NaN left alone", func(t *testing.T) {
		ps := clipParams([]float64{nan, 1}, []float64{1})
		norm, clipped := ClipGradNorm(ps, 1)
		if !math.IsNaN(norm) || clipped || ps[0].Grad.At(0, 1) != 1 || ps[1].Grad.At(0, 0) != 1 {
			t.Errorf("got norm %v clipped %v grads %v %v want NaN, false, untouched", norm, clipped, ps[0].Grad.RawRowView(0), ps[1].Grad.RawRowView(0))
		}
	})
	t.Run("Inf left alone", func(t *testing.T) {
		ps := clipParams([]float64{math.Inf(-1)}, []float64{1})
		norm, clipped := ClipGradNorm(ps, 1)
		if !math.IsInf(norm, 1) || clipped || ps[1].Grad.At(0, 0) != 1 {
			t.Errorf("got norm %v clipped %v b grad %v want +Inf, false, untouched", norm, clipped, ps[1].Grad.At(0, 0))
		}
	})
}

func TestClipGradNormRandom(t *testing.T) {
	cases := []struct {
		name     string
		fraction float64 // θ as a fraction of the norm
		tol      float64
	}{
		{"half", 0.5, 1e-12},
		{"hundredth", 0.01, 1e-12},
		{"double", 2, 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(i)))
			ps := Params{NewParam("W_xh", 3, 4), NewParam("W_hh", 4, 4), NewBias("b_h", 4)}
			for _, p := range ps {
				p.Grad.Copy(layersRandom(p.Grad.RawMatrix().Rows, p.Grad.RawMatrix().Cols, rng))
			}
			before := make([]*mat.Dense, len(ps))
			for k, p := range ps {
				before[k] = mat.DenseCopyOf(p.Grad)
			}
			want := ps.GradNorm()
			theta := tc.fraction * want
			norm, clipped := ClipGradNorm(ps, theta)
			if math.Abs(norm-want) > 1e-12*want || clipped != (tc.fraction < 1) {
				t.Fatalf("got norm %v clipped %v want %v %v", norm, clipped, want, tc.fraction < 1)
			}
			if after := ps.GradNorm(); math.Abs(after-math.Min(theta, want)) > 1e-12*want {
				t.Errorf("norm after: got %.17g want %.17g", after, math.Min(theta, want))
			}
			scale := math.Min(1, theta/want) // the direction is kept: every entry scaled alike
			for k, p := range ps {
				var expect mat.Dense
				expect.Scale(scale, before[k])
				if !mat.EqualApprox(p.Grad, &expect, 1e-12) {
					t.Errorf("%s: got %v want %v", p.Name, mat.Formatted(p.Grad), mat.Formatted(&expect))
				}
			}
		})
	}
}

func TestClipGradNormSharedGradient(t *testing.T) {
	ps := clipParams([]float64{3}, []float64{4})
	both := append(ps, ps.WithPrefix("copy.")...) // same matrices listed twice
	norm, clipped := ClipGradNorm(both, 1)
	if norm != 5 || !clipped {
		t.Errorf("got norm %v clipped %v want 5 (each gradient once) true", norm, clipped)
	}
	if got := ps[0].Grad.At(0, 0); math.Abs(got-0.6) > 1e-15 {
		t.Errorf("shared gradient: got %v want 0.6 (scaled once)", got)
	}
}

func TestClipGradNormBadThreshold(t *testing.T) {
	for _, theta := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		layersExpectPanic(t, "models: clipping threshold", func() { ClipGradNorm(clipParams([]float64{1}, []float64{1}), theta) })
	}
}
