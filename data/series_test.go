package data

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestMarketSeries: x_t = μ r_t + f_t (to one rounding: the generator and this test may
// each be fused into one FMA or not, as on arm64), the regime flips about once in 25
// days, and f_t has lag-one autocorrelation φ.
func TestMarketSeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	s := NewMarketSeries(rng, 20000)
	for i := range s.X {
		mr := RegimeDrift * s.Regime[i]
		if got, want := s.X[i], mr+s.Fast[i]; math.Abs(got-want) > 1e-15*(math.Abs(mr)+math.Abs(s.Fast[i])) {
			t.Fatalf("x_%d: got %v want μ r + f = %v", i+1, got, want)
		}
	}
	switches := 0
	for i := 1; i < len(s.Regime); i++ {
		if s.Regime[i] != s.Regime[i-1] {
			switches++
		}
	}
	flips := float64(switches) / float64(len(s.X)-1)
	ac := stat.Correlation(s.Fast[1:], s.Fast[:len(s.Fast)-1], nil)
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"flip rate", flips, regimeSwitch, 0.006},
		{"autocorrelation of f_t", ac, FastAR, 0.02},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s: got %v want %v ± %v", c.name, c.got, c.want, c.tol)
		}
	}
}
