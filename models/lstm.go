package models

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// LSTM is the long short-term memory cell of lecture 4.4:
//
//	I_t = σ(X_t W_xi + H_{t-1} W_hi + b_i)    input gate
//	F_t = σ(X_t W_xf + H_{t-1} W_hf + b_f)    forget gate
//	O_t = σ(X_t W_xo + H_{t-1} W_ho + b_o)    output gate
//	C̃_t = tanh(X_t W_xc + H_{t-1} W_hc + b_c) candidate memory cell
//	C_t = F_t ⊙ C_{t-1} + I_t ⊙ C̃_t            memory cell
//	H_t = O_t ⊙ tanh(C_t)                      hidden state
//
// These are torch.nn.LSTM's equations with b_* = bias_ih + bias_hh and the
// weights transposed (PyTorch stacks the gates in the order i, f, g = C̃, o).
//
// An LSTM made by NewPeepholeLSTM has peephole connections (Gers and Schmidhuber,
// 2000; seed 003): the gates also see the memory cell through diagonal weights, row
// vectors p_* (1×h) multiplied element-wise,
//
//	I_t = σ(X_t W_xi + H_{t-1} W_hi + C_{t-1} ⊙ p_i + b_i)
//	F_t = σ(X_t W_xf + H_{t-1} W_hf + C_{t-1} ⊙ p_f + b_f)
//	O_t = σ(X_t W_xo + H_{t-1} W_ho + C_t ⊙ p_o + b_o)    (the new cell, so O_t comes after C_t)
type LSTM struct {
	Wxi, Whi, Bi *Param // input gate: W_xi d×h, W_hi h×h, b_i 1×h
	Wxf, Whf, Bf *Param // forget gate
	Wxo, Who, Bo *Param // output gate
	Wxc, Whc, Bc *Param // candidate memory cell
	Pi, Pf, Po   *Param // peephole weights p_i, p_f, p_o 1×h (NewPeepholeLSTM); nil otherwise

	clamp GateClamp // I, F or O fixed to a value (WithClamp)
}

// NewLSTM returns an LSTM with input size d and hidden size h, every parameter
// drawn from U(−1/√h, 1/√h).
func NewLSTM(d, h int, rng *rand.Rand) *LSTM {
	c := lstmWeights(d, h)
	initUniform(c.Params(), h, rng)
	return c
}

// NewPeepholeLSTM returns an LSTM with peephole connections (see LSTM), input size d
// and hidden size h: the parameters of NewLSTM followed by p_i, p_f, p_o, every one
// drawn from U(−1/√h, 1/√h).
func NewPeepholeLSTM(d, h int, rng *rand.Rand) *LSTM {
	c := lstmWeights(d, h)
	c.Pi, c.Pf, c.Po = NewBias("p_i", h), NewBias("p_f", h), NewBias("p_o", h)
	initUniform(c.Params(), h, rng)
	return c
}

// lstmWeights allocates the gates' and the candidate's weights, all zero.
func lstmWeights(d, h int) *LSTM {
	mustSizes(d, h)
	return &LSTM{
		Wxi: NewParam("W_xi", d, h), Whi: NewParam("W_hi", h, h), Bi: NewBias("b_i", h),
		Wxf: NewParam("W_xf", d, h), Whf: NewParam("W_hf", h, h), Bf: NewBias("b_f", h),
		Wxo: NewParam("W_xo", d, h), Who: NewParam("W_ho", h, h), Bo: NewBias("b_o", h),
		Wxc: NewParam("W_xc", d, h), Whc: NewParam("W_hc", h, h), Bc: NewBias("b_c", h),
	}
}

// Peephole reports whether the gates see the memory cell (NewPeepholeLSTM).
func (c *LSTM) Peephole() bool { return c.Pi != nil }

// WithClamp returns an LSTM that shares c's parameters with one gate fixed,
// I_t = v, F_t = v or O_t = v at every step (g.Gate "I", "F" or "O", g.Value v; see
// GateClamp); the zero GateClamp gives the unclamped cell. It panics on any other
// gate.
func (c *LSTM) WithClamp(g GateClamp) *LSTM {
	g.mustClampable(KindLSTM, "I", "F", "O")
	out := *c
	out.clamp = g
	return &out
}

// Clamp is the gate fixed by WithClamp (the zero GateClamp for none).
func (c *LSTM) Clamp() GateClamp { return c.clamp }

// Kind is KindLSTM.
func (c *LSTM) Kind() Kind { return KindLSTM }

// InputSize is d.
func (c *LSTM) InputSize() int { d, _ := c.Wxi.Value.Dims(); return d }

// HiddenSize is h.
func (c *LSTM) HiddenSize() int { _, h := c.Whi.Value.Dims(); return h }

// Params is W_xi W_hi b_i W_xf W_hf b_f W_xo W_ho b_o W_xc W_hc b_c, then p_i p_f p_o
// with peepholes.
func (c *LSTM) Params() Params {
	ps := Params{c.Wxi, c.Whi, c.Bi, c.Wxf, c.Whf, c.Bf, c.Wxo, c.Who, c.Bo, c.Wxc, c.Whc, c.Bc}
	if c.Peephole() {
		ps = append(ps, c.Pi, c.Pf, c.Po)
	}
	return ps
}

// Step computes I_t, F_t, O_t, C̃_t, C_t and H_t (see LSTM) for a batch; a nil
// prev.H or prev.C is zero. The trace's gates are "I", "F", "O", "C_tilde".
func (c *LSTM) Step(x *mat.Dense, prev State) *StepTrace {
	B, h := stepBatch(c, x), c.HiddenSize()
	s, ms := newGatedStep(7, B, h)
	i, f, o, ct, cNew, tanhC, hNew := &ms[0], &ms[1], &ms[2], &ms[3], &ms[4], &ms[5], &ms[6]
	prev = stepPrev(c, B, prev)
	hp := prev.H
	if c.Peephole() {
		c.peepholeStep(x, prev, i, f, o, ct, cNew, tanhC, hNew)
		return s.trace(x, prev, State{H: hNew, C: cNew}, tanhC, Named{"I", i}, Named{"F", f}, Named{"O", o}, Named{"C_tilde", ct})
	}
	c.clamp.sigmoidGate("I", i, x, c.Wxi, hp, c.Whi, c.Bi)
	c.clamp.sigmoidGate("F", f, x, c.Wxf, hp, c.Whf, c.Bf)
	c.clamp.sigmoidGate("O", o, x, c.Wxo, hp, c.Who, c.Bo)
	affineInto(ct, x, c.Wxc, hp, c.Whc, c.Bc)
	applyEach(ct, math.Tanh)

	ir, fr, or, ctr, cpr := i.RawMatrix(), f.RawMatrix(), o.RawMatrix(), ct.RawMatrix(), prev.C.RawMatrix()
	cnr, tnr, hnr := cNew.RawMatrix(), tanhC.RawMatrix(), hNew.RawMatrix()
	for r := range B {
		fv, cp, iv, ctv, ov := rowOf(fr, r), rowOf(cpr, r), rowOf(ir, r), rowOf(ctr, r), rowOf(or, r)
		cn, tn, hn := rowOf(cnr, r), rowOf(tnr, r), rowOf(hnr, r)
		for j, fj := range fv {
			cv := fj*cp[j] + iv[j]*ctv[j]
			tc := math.Tanh(cv)
			cn[j], tn[j], hn[j] = cv, tc, ov[j]*tc
		}
	}
	return s.trace(x, prev, State{H: hNew, C: cNew}, tanhC, Named{"I", i}, Named{"F", f}, Named{"O", o}, Named{"C_tilde", ct})
}

// peepholeStep is Step with peepholes: the pre-activations of I_t and F_t get
// C_{t-1} ⊙ p_i and C_{t-1} ⊙ p_f, then C_t is computed, then O_t's gets C_t ⊙ p_o.
func (c *LSTM) peepholeStep(x *mat.Dense, prev State, i, f, o, ct, cNew, tanhC, hNew *mat.Dense) {
	hp := prev.H
	B, _ := hp.Dims()
	affineInto(i, x, c.Wxi, hp, c.Whi, c.Bi)
	affineInto(f, x, c.Wxf, hp, c.Whf, c.Bf)
	affineInto(o, x, c.Wxo, hp, c.Who, c.Bo)
	affineInto(ct, x, c.Wxc, hp, c.Whc, c.Bc)
	pi, pf, po := c.Pi.Value.RawRowView(0), c.Pf.Value.RawRowView(0), c.Po.Value.RawRowView(0)
	for r := range B {
		cp, ir, fr, or, ctr := prev.C.RawRowView(r), i.RawRowView(r), f.RawRowView(r), o.RawRowView(r), ct.RawRowView(r)
		cn, tn, hn := cNew.RawRowView(r), tanhC.RawRowView(r), hNew.RawRowView(r)
		for j := range cp {
			ir[j] = sigmoid(ir[j] + cp[j]*pi[j])
			fr[j] = sigmoid(fr[j] + cp[j]*pf[j])
			ctr[j] = math.Tanh(ctr[j])
		}
		// the clamp fixes I or F before C_t is computed (O after it, below)
		c.clampRow("I", ir)
		c.clampRow("F", fr)
		for j := range cp {
			cn[j] = fr[j]*cp[j] + ir[j]*ctr[j]
			tn[j] = math.Tanh(cn[j])
			or[j] = sigmoid(or[j] + cn[j]*po[j])
		}
		c.clampRow("O", or)
		for j := range cp {
			hn[j] = or[j] * tn[j]
		}
	}
}

// clampRow sets one row of gate name to the clamped value, if that gate is clamped.
func (c *LSTM) clampRow(name string, row []float64) {
	if c.clamp.Gate == name {
		for j := range row {
			row[j] = c.clamp.Value
		}
	}
}

// StepBack is the backward pass of Step. With G_H = ∂L/∂H_t and G_C = ∂L/∂C_t
// (from the next step):
//
//	∂L/∂O_t = G_H ⊙ tanh(C_t),  D = G_C + G_H ⊙ O_t ⊙ (1 − tanh²(C_t))   (total ∂L/∂C_t),
//	∂L/∂F_t = D ⊙ C_{t-1},  ∂L/∂I_t = D ⊙ C̃_t,  ∂L/∂C̃_t = D ⊙ I_t,  ∂L/∂C_{t-1} = D ⊙ F_t,
//
// through σ' = σ(1 − σ) and tanh' = 1 − tanh² to the pre-activations, whose
// products with the weights give ∂L/∂X_t, ∂L/∂H_{t-1} and the weight gradients.
// A gate clamped by WithClamp is a constant: its ∂L/∂A is 0. A nil dH or dC is zero.
func (c *LSTM) StepBack(tr *StepTrace, dH, dC *mat.Dense) (*mat.Dense, State) {
	return c.backward(tr, dH, dC, true)
}

// backward is StepBack; with accumulate false it leaves every Param.Grad alone.
func (c *LSTM) backward(tr *StepTrace, dH, dC *mat.Dense, accumulate bool) (*mat.Dense, State) {
	hp, cp := tr.Prev.H, tr.Prev.C
	B, h := hp.Dims()
	_, d := tr.X.Dims()
	i, f, o, ct, tanhC := tr.Gate("I"), tr.Gate("F"), tr.Gate("O"), tr.Gate("C_tilde"), tr.aux[0]
	if dH != nil {
		mustDims("dH", dH, B, h)
	}
	if dC != nil {
		mustDims("dC", dC, B, h)
	}
	m := make([]mat.Dense, 7)
	dAi, dAf, dAo, dAc, dPrevC, dPrevH, dX := &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &m[6]
	carveDense(carveDense(make([]float64, 6*B*h+B*d), B, h, dAi, dAf, dAo, dAc, dPrevC, dPrevH), B, d, dX)
	peep := c.Peephole()
	var pi, pf, po, gpi, gpf, gpo []float64
	if peep {
		pi, pf, po = c.Pi.Value.RawRowView(0), c.Pf.Value.RawRowView(0), c.Po.Value.RawRowView(0)
		gpi, gpf, gpo = c.Pi.Grad.RawRowView(0), c.Pf.Grad.RawRowView(0), c.Po.Grad.RawRowView(0)
	}
	ir, fr, or, ctr, tcr, cpr := i.RawMatrix(), f.RawMatrix(), o.RawMatrix(), ct.RawMatrix(), tanhC.RawMatrix(), cp.RawMatrix()
	air, afr, aor, acr, pcr := dAi.RawMatrix(), dAf.RawMatrix(), dAo.RawMatrix(), dAc.RawMatrix(), dPrevC.RawMatrix()
	for r := range B {
		var gHr, gCr []float64
		if dH != nil {
			gHr = dH.RawRowView(r)
		}
		if dC != nil {
			gCr = dC.RawRowView(r)
		}
		iRow, fRow, oRow, ctRow, tcRow, cpRow := rowOf(ir, r), rowOf(fr, r), rowOf(or, r), rowOf(ctr, r), rowOf(tcr, r), rowOf(cpr, r)
		ai, af, ao, ac, pc := rowOf(air, r), rowOf(afr, r), rowOf(aor, r), rowOf(acr, r), rowOf(pcr, r)
		for j := range h {
			var gH, gC float64
			if gHr != nil {
				gH = gHr[j]
			}
			if gCr != nil {
				gC = gCr[j]
			}
			iv, fv, ov, ctv, tc := iRow[j], fRow[j], oRow[j], ctRow[j], tcRow[j]
			ao[j] = gH * tc * ov * (1 - ov)
			if c.clamp.Gate == "O" { // a clamped gate is a constant
				ao[j] = 0
			}
			d := gC + gH*ov*(1-tc*tc)
			if peep {
				d += ao[j] * po[j] // O_t sees C_t
			}
			af[j] = d * cpRow[j] * fv * (1 - fv)
			ai[j] = d * ctv * iv * (1 - iv)
			switch c.clamp.Gate {
			case "I":
				ai[j] = 0
			case "F":
				af[j] = 0
			}
			ac[j] = d * iv * (1 - ctv*ctv)
			pc[j] = d * fv
			if peep {
				pc[j] += ai[j]*pi[j] + af[j]*pf[j] // I_t and F_t see C_{t-1}
				if accumulate {
					gpi[j] += ai[j] * cpRow[j]
					gpf[j] += af[j] * cpRow[j]
					gpo[j] += ao[j] * (fv*cpRow[j] + iv*ctv) // C_t
				}
			}
		}
	}
	affineBack(dAi, tr.X, c.Wxi, hp, c.Whi, c.Bi, dX, dPrevH, accumulate)
	affineBack(dAf, tr.X, c.Wxf, hp, c.Whf, c.Bf, dX, dPrevH, accumulate)
	affineBack(dAo, tr.X, c.Wxo, hp, c.Who, c.Bo, dX, dPrevH, accumulate)
	affineBack(dAc, tr.X, c.Wxc, hp, c.Whc, c.Bc, dX, dPrevH, accumulate)
	return dX, State{H: dPrevH, C: dPrevC}
}

// ForwardSequence is the per-step loop state_t = Step(X_t, state_{t-1}) (see
// SequenceCell).
func (c *LSTM) ForwardSequence(xs []*mat.Dense, s0 State) *Trace { return forwardSteps(c, xs, s0) }

// BackwardSequence is StepBack for t = T..1, carrying ∂L/∂state_t back (see
// SequenceCell).
func (c *LSTM) BackwardSequence(tr *Trace, dH []*mat.Dense) *Grads { return backwardFull(c, tr, dH) }
