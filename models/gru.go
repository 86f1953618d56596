package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// GRU is the gated recurrent unit of lecture 4.3:
//
//	R_t = σ(X_t W_xr + H_{t-1} W_hr + b_r)           reset gate
//	Z_t = σ(X_t W_xz + H_{t-1} W_hz + b_z)           update gate
//	H̃_t = tanh(X_t W_xh + (R_t ⊙ H_{t-1}) W_hh + b_h)  candidate hidden state
//	H_t = Z_t ⊙ H_{t-1} + (1 − Z_t) ⊙ H̃_t
//
// A GRU made by NewGRUResetAfter uses instead the form of PyTorch's torch.nn.GRU
// and cuDNN, in which the reset gate acts after the product with W_hh:
//
//	H̃_t = tanh(X_t W_xh + b_h + R_t ⊙ (H_{t-1} W_hh + b_hn))
//
// with one extra bias b_hn (1×h). With h hidden units, PyTorch's weights map to
// ours by transposing and splitting into thirds (rows 0:h, h:2h, 2h:3h are r, z, n):
//
//	W_xr = weight_ih_l0[0:h]ᵀ   W_hr = weight_hh_l0[0:h]ᵀ   b_r = bias_ih_l0[0:h] + bias_hh_l0[0:h]
//	W_xz = weight_ih_l0[h:2h]ᵀ  W_hz = weight_hh_l0[h:2h]ᵀ  b_z = bias_ih_l0[h:2h] + bias_hh_l0[h:2h]
//	W_xh = weight_ih_l0[2h:3h]ᵀ W_hh = weight_hh_l0[2h:3h]ᵀ b_h = bias_ih_l0[2h:3h]
//	b_hn = bias_hh_l0[2h:3h]
//
// and then H_t equals torch.nn.GRU's output h_t (PyTorch's n_t is our H̃_t).
type GRU struct {
	Wxr, Whr, Br *Param // reset gate: W_xr d×h, W_hr h×h, b_r 1×h
	Wxz, Whz, Bz *Param // update gate: W_xz d×h, W_hz h×h, b_z 1×h
	Wxh, Whh, Bh *Param // candidate: W_xh d×h, W_hh h×h, b_h 1×h
	Bhn          *Param // b_hn 1×h in the reset-after form; nil otherwise

	resetAfter bool
	clamp      GateClamp // R or Z fixed to a value (WithClamp)
}

// NewGRU returns a lecture-4.3 GRU with input size d and hidden size h, every
// parameter drawn from U(−1/√h, 1/√h).
func NewGRU(d, h int, rng *rand.Rand) *GRU {
	return newGRU(d, h, false, rng)
}

// NewGRUResetAfter returns a GRU in PyTorch's reset-after form,
// H̃_t = tanh(X_t W_xh + b_h + R_t ⊙ (H_{t-1} W_hh + b_hn)), whose parameters are
// those of NewGRU followed by b_hn.
func NewGRUResetAfter(d, h int, rng *rand.Rand) *GRU {
	return newGRU(d, h, true, rng)
}

func newGRU(d, h int, resetAfter bool, rng *rand.Rand) *GRU {
	mustSizes(d, h)
	c := &GRU{
		Wxr: NewParam("W_xr", d, h), Whr: NewParam("W_hr", h, h), Br: NewBias("b_r", h),
		Wxz: NewParam("W_xz", d, h), Whz: NewParam("W_hz", h, h), Bz: NewBias("b_z", h),
		Wxh: NewParam("W_xh", d, h), Whh: NewParam("W_hh", h, h), Bh: NewBias("b_h", h),
		resetAfter: resetAfter,
	}
	if resetAfter {
		c.Bhn = NewBias("b_hn", h)
	}
	initUniform(c.Params(), h, rng)
	return c
}

// ResetAfter reports whether the cell uses PyTorch's reset-after candidate
// H̃_t = tanh(X_t W_xh + b_h + R_t ⊙ (H_{t-1} W_hh + b_hn)).
func (c *GRU) ResetAfter() bool { return c.resetAfter }

// WithClamp returns a GRU that shares c's parameters with one gate fixed, R_t = v
// or Z_t = v at every step (g.Gate "R" or "Z", g.Value v; see GateClamp); the zero
// GateClamp gives the unclamped cell. It panics on any other gate.
func (c *GRU) WithClamp(g GateClamp) *GRU {
	g.mustClampable(KindGRU, "R", "Z")
	out := *c
	out.clamp = g
	return &out
}

// Clamp is the gate fixed by WithClamp (the zero GateClamp for none).
func (c *GRU) Clamp() GateClamp { return c.clamp }

// Kind is KindGRU.
func (c *GRU) Kind() Kind { return KindGRU }

// InputSize is d.
func (c *GRU) InputSize() int { d, _ := c.Wxr.Value.Dims(); return d }

// HiddenSize is h.
func (c *GRU) HiddenSize() int { _, h := c.Whr.Value.Dims(); return h }

// Params is W_xr W_hr b_r W_xz W_hz b_z W_xh W_hh b_h, then b_hn in the
// reset-after form.
func (c *GRU) Params() Params {
	ps := Params{c.Wxr, c.Whr, c.Br, c.Wxz, c.Whz, c.Bz, c.Wxh, c.Whh, c.Bh}
	if c.resetAfter {
		ps = append(ps, c.Bhn)
	}
	return ps
}

// Step computes R_t, Z_t, H̃_t and H_t (see GRU) for a batch; a nil prev.H is
// H_{t-1} = 0. The trace's gates are "R", "Z", "H_tilde".
func (c *GRU) Step(x *mat.Dense, prev State) *StepTrace {
	B, h := stepBatch(c, x), c.HiddenSize()
	s, ms := newGatedStep(5, B, h)
	r, z, ht, kept, hNew := &ms[0], &ms[1], &ms[2], &ms[3], &ms[4]
	prev = stepPrev(c, B, prev)
	hp := prev.H
	c.clamp.sigmoidGate("R", r, x, c.Wxr, hp, c.Whr, c.Br)
	c.clamp.sigmoidGate("Z", z, x, c.Wxz, hp, c.Whz, c.Bz)

	// kept: R_t ⊙ H_{t-1}, or N_t = H_{t-1} W_hh + b_hn when reset-after.
	rr, hr, kr, tr := r.RawMatrix(), hp.RawMatrix(), kept.RawMatrix(), ht.RawMatrix()
	if c.resetAfter {
		affineInto(kept, nil, nil, hp, c.Whh, c.Bhn)
		affineInto(ht, x, c.Wxh, nil, nil, c.Bh) // X_t W_xh + b_h
		for i := range B {
			out, rv, nv := rowOf(tr, i), rowOf(rr, i), rowOf(kr, i)
			for j, a := range out {
				out[j] = a + float64(rv[j]*nv[j]) // the product rounded first: no fused multiply–add
			}
		}
	} else {
		for i := range B {
			out, rv, hv := rowOf(kr, i), rowOf(rr, i), rowOf(hr, i)
			for j, v := range rv {
				out[j] = v * hv[j]
			}
		}
		affineInto(ht, x, c.Wxh, kept, c.Whh, c.Bh)
	}
	applyEach(ht, math.Tanh)

	zr, nr := z.RawMatrix(), hNew.RawMatrix()
	for i := range B {
		zv, hpr, htr, out := rowOf(zr, i), rowOf(hr, i), rowOf(tr, i), rowOf(nr, i)
		for j, zj := range zv {
			out[j] = zj*hpr[j] + (1-zj)*htr[j]
		}
	}
	// kept is R_t ⊙ H_{t-1} (or N_t), which the backward pass reads.
	return s.trace(x, prev, State{H: hNew}, kept, Named{"R", r}, Named{"Z", z}, Named{"H_tilde", ht})
}

// StepBack is the backward pass of Step. With A_r, A_z, A_h the pre-activations of
// R_t, Z_t, H̃_t and G = ∂L/∂H_t:
//
//	∂L/∂Z_t = G ⊙ (H_{t-1} − H̃_t),  ∂L/∂H̃_t = G ⊙ (1 − Z_t),
//	∂L/∂A_z = ∂L/∂Z_t ⊙ Z_t ⊙ (1 − Z_t),  ∂L/∂A_h = ∂L/∂H̃_t ⊙ (1 − H̃_t²),
//	∂L/∂(R_t ⊙ H_{t-1}) = ∂L/∂A_h W_hhᵀ,  ∂L/∂R_t = ∂L/∂(R_t ⊙ H_{t-1}) ⊙ H_{t-1},
//	∂L/∂A_r = ∂L/∂R_t ⊙ R_t ⊙ (1 − R_t),
//	∂L/∂H_{t-1} = G ⊙ Z_t + ∂L/∂(R_t ⊙ H_{t-1}) ⊙ R_t + ∂L/∂A_r W_hrᵀ + ∂L/∂A_z W_hzᵀ,
//
// and each weight's gradient is (its input)ᵀ ∂L/∂A (reset-after: ∂L/∂R_t =
// ∂L/∂A_h ⊙ N_t and W_hh, b_hn get ∂L/∂N_t = ∂L/∂A_h ⊙ R_t, with
// N_t = H_{t-1} W_hh + b_hn). A gate clamped by WithClamp is a constant:
// its ∂L/∂A is 0. A nil dH is zero; dC is ignored.
func (c *GRU) StepBack(tr *StepTrace, dH, dC *mat.Dense) (*mat.Dense, State) {
	return c.backward(tr, dH, dC, true)
}

// backward is StepBack; with accumulate false it leaves every Param.Grad alone.
func (c *GRU) backward(tr *StepTrace, dH, _ *mat.Dense, accumulate bool) (*mat.Dense, State) {
	hp := tr.Prev.H
	B, h := hp.Dims()
	_, d := tr.X.Dims()
	r, z, ht, kept := tr.Gate("R"), tr.Gate("Z"), tr.Gate("H_tilde"), tr.aux[0]
	// dMid is ∂L/∂N_t (reset-after) or ∂L/∂(R_t ⊙ H_{t-1}) (lecture form).
	m := make([]mat.Dense, 6)
	dAr, dAz, dAh, dMid, dPrev, dX := &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]
	carveDense(carveDense(make([]float64, 5*B*h+B*d), B, h, dAr, dAz, dAh, dMid, dPrev), B, d, dX)
	rr, zr, hr, tr2, kr := r.RawMatrix(), z.RawMatrix(), hp.RawMatrix(), ht.RawMatrix(), kept.RawMatrix()
	arr, azr, ahr, mr, pr := dAr.RawMatrix(), dAz.RawMatrix(), dAh.RawMatrix(), dMid.RawMatrix(), dPrev.RawMatrix()
	if dH != nil {
		mustDims("dH", dH, B, h)
		gr := dH.RawMatrix()
		for i := range B {
			gi, zi, hi, ti := rowOf(gr, i), rowOf(zr, i), rowOf(hr, i), rowOf(tr2, i)
			az, ah, dp := rowOf(azr, i), rowOf(ahr, i), rowOf(pr, i)
			for j, g := range gi {
				zv, hv, htv := zi[j], hi[j], ti[j]
				az[j] = g * (hv - htv) * zv * (1 - zv)
				ah[j] = g * (1 - zv) * (1 - htv*htv)
				dp[j] = g * zv
			}
		}
	}
	if c.clamp.clamped("Z") {
		dAz.Zero()
	}
	if c.resetAfter {
		// A_h = X W_xh + b_h + R ⊙ N with N = H_{t-1} W_hh + b_hn.
		for i := range B {
			ah, ri, ki, dn, ar := rowOf(ahr, i), rowOf(rr, i), rowOf(kr, i), rowOf(mr, i), rowOf(arr, i)
			for j, a := range ah {
				rv := ri[j]
				dn[j] = a * rv
				ar[j] = a * ki[j] * rv * (1 - rv)
			}
		}
		affineBack(dAh, tr.X, c.Wxh, nil, nil, c.Bh, dX, nil, accumulate)
		affineBack(dMid, nil, nil, hp, c.Whh, c.Bhn, nil, dPrev, accumulate)
	} else {
		// A_h = X W_xh + (R ⊙ H_{t-1}) W_hh + b_h.
		affineBack(dAh, tr.X, c.Wxh, kept, c.Whh, c.Bh, dX, dMid, accumulate)
		for i := range B {
			gi, ri, hi, ar, dp := rowOf(mr, i), rowOf(rr, i), rowOf(hr, i), rowOf(arr, i), rowOf(pr, i)
			for j, g := range gi {
				rv := ri[j]
				ar[j] = g * hi[j] * rv * (1 - rv)
				dp[j] = dp[j] + g*rv
			}
		}
	}
	if c.clamp.clamped("R") {
		dAr.Zero()
	}
	affineBack(dAr, tr.X, c.Wxr, hp, c.Whr, c.Br, dX, dPrev, accumulate)
	affineBack(dAz, tr.X, c.Wxz, hp, c.Whz, c.Bz, dX, dPrev, accumulate)
	return dX, State{H: dPrev}
}

// ResetGateCost is the cost C = λ · mean R_t of the reset gate over the batch rows,
// the steps and the units of the trace tr of c (B×h per step, T steps), a training
// penalty that makes reading the past cost a little. It returns C, adds ∂C/∂θ of the
// reset gate's parameters to their Grad and adds ∂C/∂H_{t-1} to dH[t-2] = ∂L/∂H_{t-1}
// (allocating a nil entry) for t ≥ 2; H_0 gets nothing. With A_r = X_t W_xr +
// H_{t-1} W_hr + b_r:
//
//	∂C/∂A_r = λ/(B·T·h) · R_t ⊙ (1 − R_t),
//	∂C/∂W_xr = Σ_t X_tᵀ ∂C/∂A_r,  ∂C/∂W_hr = Σ_t H_{t-1}ᵀ ∂C/∂A_r,
//	∂C/∂b_r = Σ_t Σ_rows ∂C/∂A_r,  ∂C/∂H_{t-1} = ∂C/∂A_r W_hrᵀ.
//
// Backward then carries dH through the recurrence. A clamped R_t (WithClamp) is a
// constant: C has no gradient.
func (c *GRU) ResetGateCost(lambda float64, tr *Trace, dH []*mat.Dense) float64 {
	T := tr.Len()
	if len(dH) != T {
		panic(fmt.Sprintf("models: dH has %d steps, want T = %d", len(dH), T))
	}
	B, h := tr.Steps[0].Prev.H.Dims()
	scale := lambda / float64(B*T*h)
	cost := 0.0
	var dA, g mat.Dense
	for t, st := range tr.Steps {
		r := st.Gate("R")
		cost += scale * mat.Sum(r)
		if c.clamp.clamped("R") {
			continue
		}
		dA.Apply(func(_, _ int, v float64) float64 { return scale * v * (1 - v) }, r)
		g.Mul(st.X.T(), &dA)
		c.Wxr.Grad.Add(c.Wxr.Grad, &g)
		g.Reset()
		g.Mul(st.Prev.H.T(), &dA)
		c.Whr.Grad.Add(c.Whr.Grad, &g)
		g.Reset()
		for j := range h {
			c.Br.Grad.Set(0, j, c.Br.Grad.At(0, j)+mat.Sum(dA.ColView(j)))
		}
		if t > 0 {
			if dH[t-1] == nil {
				dH[t-1] = mat.NewDense(B, h, nil)
			}
			g.Mul(&dA, c.Whr.Value.T())
			dH[t-1].Add(dH[t-1], &g)
			g.Reset()
		}
		dA.Reset()
	}
	return cost
}
