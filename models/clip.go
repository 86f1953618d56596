package models

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Update is one training step of the parameters ps: zero their gradients, lossAndGrad
// (the loss of a batch, its gradient added to ps), then ClipAndStep. It returns the
// loss, the gradient norm before clipping and whether it clipped.
func Update(ps Params, opt Optimizer, clip float64, lossAndGrad func() float64) (loss, gradNorm float64, clipped bool) {
	ps.ZeroGrad()
	loss = lossAndGrad()
	gradNorm, clipped = ClipAndStep(ps, opt, clip)
	return loss, gradNorm, clipped
}

// ClipAndStep ends a training step whose gradients are in ps: it clips their global
// norm at clip (ClipGradNorm; clip ≤ 0 measures the norm and clips nothing), then
// takes opt's step. A NaN or infinite norm skips the step, since it would ruin every
// weight. It returns the norm before clipping and whether it clipped.
func ClipAndStep(ps Params, opt Optimizer, clip float64) (gradNorm float64, clipped bool) {
	if clip > 0 {
		gradNorm, clipped = ClipGradNorm(ps, clip)
	} else {
		gradNorm = ps.GradNorm()
	}
	if math.IsNaN(gradNorm) || math.IsInf(gradNorm, 0) {
		return gradNorm, false
	}
	opt.Step(ps)
	return gradNorm, clipped
}

// ClipGradNorm is gradient clipping by the global norm, the remedy for exploding
// gradients: with ‖g‖ = √(Σ_p ‖∂L/∂p‖²_F) over every parameter in ps, it scales each
// gradient g ← min(1, θ/‖g‖) · g, so the clipped gradient keeps its direction and has
// norm at most θ. It returns ‖g‖ before clipping and whether it scaled (‖g‖ > θ).
//
// A gradient shared by several entries of ps (Params.WithPrefix copies) is counted
// and scaled once. The norm is computed with scaling, so gradients near the float64
// limit do not overflow it. If ‖g‖ is NaN or +∞ the gradients are left untouched and
// clipped is false: the caller should skip that update. θ must be > 0.
func ClipGradNorm(ps Params, theta float64) (norm float64, clipped bool) {
	if !(theta > 0) || math.IsInf(theta, 1) {
		panic(fmt.Sprintf("models: clipping threshold θ = %v, want a finite θ > 0", theta))
	}
	grads := distinctGrads(ps)
	norms := make([]float64, len(grads))
	var largest float64
	for i, g := range grads {
		norms[i] = mat.Norm(g, 2) // Frobenius norm, computed with scaling
		if norms[i] > largest || math.IsNaN(norms[i]) {
			largest = norms[i]
		}
	}
	switch {
	case math.IsNaN(largest) || math.IsInf(largest, 1):
		return largest, false
	case largest == 0:
		return 0, false
	}
	var sum float64
	for _, n := range norms {
		r := n / largest
		sum += r * r
	}
	norm = largest * math.Sqrt(sum)
	if math.IsInf(norm, 1) || norm <= theta {
		return norm, false
	}
	scale := theta / norm
	for _, g := range grads {
		g.Scale(scale, g)
	}
	return norm, true
}

// distinctGrads lists the gradients of ps, each matrix once.
func distinctGrads(ps Params) []*mat.Dense {
	seen := make(map[*mat.Dense]bool, len(ps))
	out := make([]*mat.Dense, 0, len(ps))
	for _, p := range ps {
		if !seen[p.Grad] {
			seen[p.Grad] = true
			out = append(out, p.Grad)
		}
	}
	return out
}
