package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// randomGeneral is an r×c matrix with entries in [−1, 1) and a stride of c+pad.
func randomGeneral(rng *rand.Rand, r, c, pad int) blas64.General {
	m := general(r, c, c+pad, make([]float64, r*(c+pad)))
	for i := range m.Data {
		m.Data[i] = 2*rng.Float64() - 1
	}
	return m
}

// naiveProduct is Σ_l a(i, l) b(l, j) by three loops, a(i, l) = at(i, l).
func naiveProduct(rows, cols, k int, at func(i, l int) float64, b blas64.General, c blas64.General) []float64 {
	out := make([]float64, rows*cols)
	for i := range rows {
		for j := range cols {
			s := c.Data[i*c.Stride+j]
			for l := range k {
				s += at(i, l) * b.Data[l*b.Stride+j]
			}
			out[i*cols+j] = s
		}
	}
	return out
}

// TestBlockedProducts checks blockedMul and blockedTMul against three loops, on
// sizes that are and are not multiples of the 4×8 block, with padded strides.
func TestBlockedProducts(t *testing.T) {
	t.Logf("AVX2 and FMA kernel: %v", haveGemmKernel)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{1, 1, 1}, {4, 8, 3}, {5, 9, 7}, {32, 192, 64}, {37, 508, 64}, {13, 64, 508}, {3, 5, 0}, {0, 8, 4}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, pad := range []int{0, 3} {
			t.Run(fmt.Sprintf("%d×%d·%d×%d pad %d", m, k, k, n, pad), func(t *testing.T) {
				a, at := randomGeneral(rng, m, k, pad), randomGeneral(rng, k, m, pad)
				b := randomGeneral(rng, k, n, pad)
				for _, tc := range []struct {
					name string
					mul  func(a, b, c blas64.General)
					a    blas64.General
					at   func(i, l int) float64
				}{
					{"a·b", blockedMul, a, func(i, l int) float64 { return a.Data[i*a.Stride+l] }},
					{"aᵀ·b", blockedTMul, at, func(i, l int) float64 { return at.Data[l*at.Stride+i] }},
				} {
					c := randomGeneral(rng, m, n, pad)
					want := naiveProduct(m, n, k, tc.at, b, c)
					before := slices.Clone(c.Data)
					tc.mul(tc.a, b, c)
					for i := range m {
						for j := range n {
							if got := c.Data[i*c.Stride+j]; math.Abs(got-want[i*n+j]) > 1e-13*float64(k+1) {
								t.Fatalf("%s: c[%d][%d] got %v want %v", tc.name, i, j, got, want[i*n+j])
							}
						}
					}
					for i := range m { // the stride's padding is left alone
						for j := n; j < c.Stride && i*c.Stride+j < len(c.Data); j++ {
							if c.Data[i*c.Stride+j] != before[i*c.Stride+j] {
								t.Fatalf("%s: wrote the padding at row %d column %d", tc.name, i, j)
							}
						}
					}
				}
			})
		}
	}
}

// BenchmarkBlockedProducts times the output layer's three products at the corpus
// translator's sizes (210 labels, h = 64, V = 508), blocked and per row.
func BenchmarkBlockedProducts(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const rows, h, V = 210, 64, 508
	s, w, wt, o := randomGeneral(rng, rows, h, 0), randomGeneral(rng, h, V, 0), randomGeneral(rng, V, h, 0), randomGeneral(rng, rows, V, 0)
	dw, ds := randomGeneral(rng, h, V, 0), randomGeneral(rng, rows, h, 0)
	for _, tc := range []struct {
		name string
		run  func()
	}{
		{"S·W/blocked", func() { blockedMul(s, w, o) }}, {"S·W/per-row", func() { addMul(s, w, o) }},
		{"Sᵀ·dO/blocked", func() { blockedTMul(s, o, dw) }}, {"Sᵀ·dO/per-row", func() { addTMul(s, o, dw) }},
		{"dO·Wᵀ/blocked", func() { blockedMul(o, wt, ds) }}, {"dO·Wᵀ/per-row", func() { addMulT(o, w, ds) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				tc.run()
			}
			b.ReportMetric(2*rows*h*V*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
