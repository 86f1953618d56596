package models

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Xavier fills an in×out weight W with Glorot & Bengio's (2010) uniform draws
// W_ij ~ U(−a, a), a = √(6 / (in + out)), so Var(W_ij) = 2 / (in + out) and the
// variance of X W roughly matches that of X both forwards and backwards. With the
// row-vector convention X W, in is the number of rows and out the number of columns.
func Xavier(p *Param, rng *rand.Rand) {
	in, out := p.Value.Dims()
	p.Uniform(math.Sqrt(6/float64(in+out)), rng)
}

// Normal fills p with independent draws W_ij ~ N(0, std²).
func Normal(p *Param, std float64, rng *rand.Rand) {
	r, _ := p.Value.Dims()
	for i := 0; i < r; i++ {
		row := p.Value.RawRowView(i)
		for j := range row {
			row[j] = std * rng.NormFloat64()
		}
	}
}

// Orthogonal sets W = radius · Q with Q a random orthogonal matrix, drawn uniformly
// (Haar measure) as the Q of the QR factorisation G = QR of a Gaussian matrix G, each
// column of Q multiplied by sign(R_jj) so the draw does not depend on the QR
// algorithm's sign convention.
//
// For a square h×h recurrent weight W_hh every eigenvalue of Q has modulus 1, so the
// spectral radius is ρ(W) = radius and every singular value is radius: the lectures'
// knob between vanishing (ρ < 1) and exploding (ρ > 1) gradients. A non-square W gets
// orthonormal columns (rows ≥ cols) or orthonormal rows (rows < cols), scaled, so its
// singular values all equal radius.
func Orthogonal(p *Param, radius float64, rng *rand.Rand) {
	r, c := p.Value.Dims()
	tall, wide := r, c // the Gaussian is drawn tall: tall ≥ wide
	if r < c {
		tall, wide = c, r
	}
	gauss := mat.NewDense(tall, wide, nil)
	for i := 0; i < tall; i++ {
		row := gauss.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
	}
	var qr mat.QR
	qr.Factorize(gauss)
	var q, upper mat.Dense
	qr.QTo(&q)
	qr.RTo(&upper)
	basis := mat.NewDense(tall, wide, nil) // the first wide columns of Q, sign-fixed
	for j := 0; j < wide; j++ {
		s := radius
		if upper.At(j, j) < 0 {
			s = -radius
		}
		for i := 0; i < tall; i++ {
			basis.Set(i, j, s*q.At(i, j))
		}
	}
	if r < c {
		p.Value.Copy(basis.T())
	} else {
		p.Value.Copy(basis)
	}
}
