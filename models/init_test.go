package models

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestOrthogonal(t *testing.T) {
	cases := []struct {
		name   string
		r, c   int
		radius float64
		tol    float64
	}{
		{"1×1", 1, 1, 0.9, 1e-9},
		{"2×2 unit", 2, 2, 1, 1e-9},
		{"5×5 vanishing", 5, 5, 0.5, 1e-9},
		{"16×16 exploding", 16, 16, 1.5, 1e-9},
		{"32×32", 32, 32, 1.1, 1e-9},
		{"tall 7×3", 7, 3, 2, 1e-9},
		{"wide 3×7", 3, 7, 0.8, 1e-9},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParam("W_hh", tc.r, tc.c)
			Orthogonal(p, tc.radius, rand.New(rand.NewPCG(1, uint64(i))))
			w := p.Value

			var svd mat.SVD
			if !svd.Factorize(w, mat.SVDNone) {
				t.Fatal("SVD failed")
			}
			for k, s := range svd.Values(nil) {
				if math.Abs(s-tc.radius) > tc.tol {
					t.Errorf("singular value %d: got %.15g want %v", k, s, tc.radius)
				}
			}

			// Orthonormal columns (tall/square) or rows (wide), scaled: WᵀW or WWᵀ = radius² I.
			var gram mat.Dense
			n := min(tc.r, tc.c)
			if tc.r >= tc.c {
				gram.Mul(w.T(), w)
			} else {
				gram.Mul(w, w.T())
			}
			ident := mat.NewDiagDense(n, nil)
			for k := 0; k < n; k++ {
				ident.SetDiag(k, tc.radius*tc.radius)
			}
			if !mat.EqualApprox(&gram, ident, tc.tol) {
				t.Errorf("Gram matrix: got %v want %v·I", mat.Formatted(&gram), tc.radius*tc.radius)
			}

			if tc.r != tc.c {
				return
			}
			var eig mat.Eigen
			if !eig.Factorize(w, mat.EigenNone) {
				t.Fatal("eigendecomposition failed")
			}
			rho := 0.0
			for k, lambda := range eig.Values(nil) {
				if m := cmplx.Abs(lambda); math.Abs(m-tc.radius) > tc.tol {
					t.Errorf("|λ_%d|: got %.15g want %v", k, m, tc.radius)
				}
				rho = math.Max(rho, cmplx.Abs(lambda))
			}
			if math.Abs(rho-tc.radius) > tc.tol {
				t.Errorf("spectral radius ρ(W): got %.15g want %v", rho, tc.radius)
			}
		})
	}
}

func TestOrthogonalDeterministic(t *testing.T) {
	a, b := NewParam("W", 6, 6), NewParam("W", 6, 6)
	Orthogonal(a, 1, rand.New(rand.NewPCG(1, 1)))
	Orthogonal(b, 1, rand.New(rand.NewPCG(1, 1)))
	if !mat.Equal(a.Value, b.Value) {
		t.Errorf("same seed: got different matrices %v and %v", mat.Formatted(a.Value), mat.Formatted(b.Value))
	}
	Orthogonal(b, 1, rand.New(rand.NewPCG(1, 2)))
	if mat.Equal(a.Value, b.Value) {
		t.Errorf("different seeds: got the same matrix twice")
	}
}

// TestOrthogonalHaar checks the sign fix: for a Haar-distributed Q, each entry has mean
// 0 (without the fix, QR's positive-diagonal convention would bias the diagonal of Q).
func TestOrthogonalHaar(t *testing.T) {
	const trials = 4000
	const tol = 0.05 // std error of the mean of Q_00 over 4000 draws is √(1/3)/√4000 ≈ 0.009
	rng := rand.New(rand.NewPCG(1, 1))
	p := NewParam("W", 3, 3)
	var diag float64
	for k := 0; k < trials; k++ {
		Orthogonal(p, 1, rng)
		diag += p.Value.At(0, 0)
	}
	if mean := diag / trials; math.Abs(mean) > tol {
		t.Errorf("mean of Q_00: got %.4f want 0 ± %v", mean, tol)
	}
}

func TestXavierAndNormalStatistics(t *testing.T) {
	cases := []struct {
		name     string
		r, c     int
		fill     func(p *Param, rng *rand.Rand)
		bound    float64 // |W_ij| ≤ bound (0: unbounded)
		variance float64
		tol      float64 // on the sample variance; 60000 draws give a std error ≈ 0.6% of it
	}{
		{"xavier 200×300", 200, 300, Xavier, math.Sqrt(6.0 / 500), 2.0 / 500, 0.03 * 2.0 / 500},
		{"xavier 300×200", 300, 200, Xavier, math.Sqrt(6.0 / 500), 2.0 / 500, 0.03 * 2.0 / 500},
		{"normal std 0.1", 200, 300, func(p *Param, rng *rand.Rand) { Normal(p, 0.1, rng) }, 0, 0.01, 0.03 * 0.01},
		{"normal std 2", 300, 200, func(p *Param, rng *rand.Rand) { Normal(p, 2, rng) }, 0, 4, 0.03 * 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParam("W", tc.r, tc.c)
			tc.fill(p, rand.New(rand.NewPCG(1, 1)))
			n := float64(tc.r * tc.c)
			var sum, sq, largest float64
			for i := 0; i < tc.r; i++ {
				for _, x := range p.Value.RawRowView(i) {
					sum += x
					sq += x * x
					largest = math.Max(largest, math.Abs(x))
				}
			}
			mean := sum / n
			variance := sq/n - mean*mean
			if math.Abs(variance-tc.variance) > tc.tol || math.Abs(mean) > 5*math.Sqrt(tc.variance/n) {
				t.Errorf("got mean %.5g variance %.5g want 0 and %.5g", mean, variance, tc.variance)
			}
			if tc.bound > 0 && largest > tc.bound {
				t.Errorf("max |W_ij|: got %v want ≤ %v", largest, tc.bound)
			}
			again := NewParam("W", tc.r, tc.c)
			tc.fill(again, rand.New(rand.NewPCG(1, 1)))
			if !mat.Equal(p.Value, again.Value) {
				t.Errorf("same seed: got different draws")
			}
		})
	}
}
