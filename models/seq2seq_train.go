package models

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
)

// The fused training pass of a Seq2Seq (lecture 4.6, no attention), which
// LossAndGrad runs: the loss and gradients of the step-by-step forward and
// backward passes of seq2seq.go (LossAndGradSteps), up to the order of
// floating-point sums, with fewer and larger products and no garbage:
//
//   - each side's rows are taken longest sentence first, so that at step t the rows
//     still inside their sentence are the first n_t, and only those are computed (as
//     cuDNN's packed sequences do): a padded position adds nothing to the loss — the
//     encoder's later states are never read and the decoder's are masked — so
//     skipping it drops only terms that are exactly zero;
//   - a side's per-row buffers stack the steps: step t's n_t rows follow step
//     t−1's, N = Σ_t n_t = Σ_b length_b rows in all;
//   - each GRU computes the input terms of every step with one product, runs the
//     time loop for the recurrent terms only (gruStepRows, gruStepBackRows), and
//     gets its weight gradients and ∂L/∂X as products over the stacked steps;
//   - the decoder's input [embedding(y_{t'−1}); c] splits: c W_x,c is the same at
//     every step and is computed once per sentence, and its backward sums
//     ∂L/∂A_t' over the steps before the two products;
//   - the output layer and the softmax cross-entropy of every real label are one
//     (N×h)(h×V) product and one pass over its rows; their backward is two more
//     products;
//   - the buffers come from a pool and only grow: in steady state a pass
//     allocates nothing.
//
// Everything runs on the calling goroutine: a server trains many pages at once.

// seq2seqPasses recycles the buffers of fused training passes.
var seq2seqPasses = sync.Pool{New: func() any { return new(seq2seqPass) }}

// fusedTraining reports whether LossAndGrad can run the fused pass on m: no
// attention, and both cells lecture-form GRUs without a clamped gate.
func (m *EncoderDecoder) fusedTraining() bool {
	lecture := func(c Cell) bool {
		g, ok := c.(*GRU)
		return ok && !g.resetAfter && g.clamp.Gate == ""
	}
	return m.Attention == nil && lecture(m.Encoder) && lecture(m.Decoder)
}

// seq2seqPass holds the buffers of one fused training pass.
type seq2seqPass struct {
	enc, dec packedGRU
	// The batch rows in each side's order (longest first) and their lengths;
	// encRank[b] is the position of example b in the encoder's order.
	encOrder, encLens, decOrder, decLens, encRank []int
	srcIDs, inIDs, labels                         []int     // per stacked row: x_t, y_{t'−1}, y_t'
	ctx, dCtx                                     []float64 // B×h: c and ∂L/∂c, decoder order
	ctxIn, dASum                                  []float64 // B×3h: c W_x,c and Σ_t' ∂L/∂A_t'
	logits                                        []float64 // N×V: o_t', then ∂L/∂o_t'
	wOutT                                         []float64 // V×h: Wᵀ of the output layer
	dS                                            []float64 // N×h: ∂L/∂s_t' from the output layer
	dEnc                                          []float64 // N_enc×h: ∂L/∂c at each row's last step
}

// lossAndGrad is LossAndGrad's fused pass (see the top of this file); m is
// fusable (fusedTraining).
func (p *seq2seqPass) lossAndGrad(m *EncoderDecoder, b Batch) float64 {
	if err := b.Validate(m.Config.SrcVocab, m.Config.TgtVocab); err != nil {
		panic(err.Error())
	}
	B, e, h, V := b.Size(), m.Config.Embed, m.Config.Hidden, m.Config.TgtVocab
	p.encOrder, p.encLens = longestFirst(p.encOrder, p.encLens, b.SrcLen)
	p.decOrder, p.decLens = longestFirst(p.decOrder, p.decLens, b.TgtLen)
	p.encRank = grow(p.encRank, B)
	for i, ex := range p.encOrder {
		p.encRank[ex] = i
	}
	enc, dec := &p.enc, &p.dec
	enc.setup(m.Encoder.(*GRU), e, p.encLens, B)
	dec.setup(m.Decoder.(*GRU), e, p.decLens, B)

	// Encoder: h_t = GRU(embedding(x_t), h_{t−1}), h_0 = 0.
	p.srcIDs = grow(p.srcIDs, enc.rows)
	for t, n := range enc.n {
		for i, ex := range p.encOrder[:n] {
			p.srcIDs[enc.off[t]+i] = b.Src[ex][t]
		}
	}
	gatherRows(enc.x, m.SrcEmbed.E.Value.RawMatrix(), p.srcIDs)
	enc.forward(nil, nil)

	// c = h at each source's own length, in the decoder's order; c W_x,c once.
	p.ctx, p.ctxIn = grow(p.ctx, B*h), grow(p.ctxIn, B*3*h)
	for j, ex := range p.decOrder {
		copy(p.ctx[j*h:][:h], enc.hn[p.encLast(ex)*h:][:h])
	}
	clear(p.ctxIn)
	blockedMul(general(B, h, h, p.ctx), general(h, 3*h, 3*h, dec.wx[e*3*h:]), general(B, 3*h, 3*h, p.ctxIn))

	// Decoder: s_t' = GRU([embedding(y_{t'−1}); c], s_{t'−1}), s_0 = c, y_0 = <bos>.
	p.inIDs, p.labels = grow(p.inIDs, dec.rows), grow(p.labels, dec.rows)
	for t, n := range dec.n {
		for j, ex := range p.decOrder[:n] {
			row := dec.off[t] + j
			p.inIDs[row], p.labels[row] = BosID, b.Tgt[ex][t]
			if t > 0 {
				p.inIDs[row] = b.Tgt[ex][t-1]
			}
		}
	}
	gatherRows(dec.x, m.TgtEmbed.E.Value.RawMatrix(), p.inIDs)
	dec.forward(p.ctx, p.ctxIn)

	// o_t' = s_t' W + b and the loss of every real label; then ∂L/∂o in place.
	N := dec.rows
	p.logits = grow(p.logits, N*V)
	bias := m.Out.B.Value.RawRowView(0)
	for r := range N {
		copy(p.logits[r*V:][:V], bias)
	}
	states := general(N, h, h, dec.hn)
	blockedMul(states, m.Out.W.Value.RawMatrix(), general(N, V, V, p.logits))
	scale := 1 / float64(N) // N = Σ_b TgtLen[b], the number of real labels
	loss := softmaxCrossEntropyRows(p.logits, V, p.labels, scale)

	// Output layer backward: ∂L/∂W += Sᵀ ∂L/∂O, ∂L/∂b += Σ_rows ∂L/∂O, ∂L/∂S = ∂L/∂O Wᵀ.
	dO := general(N, V, V, p.logits)
	blockedTMul(states, dO, m.Out.W.Grad.RawMatrix())
	addRowSums(m.Out.B.Grad.RawRowView(0), p.logits, N, V)
	p.dS, p.wOutT = grow(p.dS, N*h), grow(p.wOutT, h*V)
	clear(p.dS)
	blockedMul(dO, transposeInto(p.wOutT, m.Out.W.Value.RawMatrix()), general(N, h, h, p.dS))

	// Decoder backward; ∂L/∂c = ∂L/∂s_0 + (Σ_t' ∂L/∂A_t') W_x,cᵀ.
	dec.backward(p.dS)
	dec.weightGrads()
	p.dASum, p.dCtx = grow(p.dASum, B*3*h), grow(p.dCtx, B*h)
	clear(p.dASum)
	for t, n := range dec.n {
		addInto(p.dASum, dec.pre[dec.off[t]*3*h:][:n*3*h])
	}
	dASum := general(B, 3*h, 3*h, p.dASum)
	blockedTMul(general(B, h, h, p.ctx), dASum, general(h, 3*h, 3*h, dec.gwx[e*3*h:]))
	copy(p.dCtx, dec.g[:B*h])
	blockedMul(dASum, general(3*h, h, dec.in, dec.wxT[e:]), general(B, h, h, p.dCtx))
	dec.flush()
	scatterRows(m.TgtEmbed.E.Grad.RawMatrix(), dec.dx, p.inIDs)

	// Encoder backward from ∂L/∂c, which reaches h at each source's own length.
	p.dEnc = grow(p.dEnc, enc.rows*h)
	clear(p.dEnc)
	for j, ex := range p.decOrder {
		copy(p.dEnc[p.encLast(ex)*h:][:h], p.dCtx[j*h:][:h])
	}
	enc.backward(p.dEnc)
	enc.weightGrads()
	enc.flush()
	scatterRows(m.SrcEmbed.E.Grad.RawMatrix(), enc.dx, p.srcIDs)
	return loss * scale
}

// encLast is the encoder's stacked row of example ex at its last source step.
func (p *seq2seqPass) encLast(ex int) int {
	i := p.encRank[ex]
	return p.enc.off[p.encLens[i]-1] + i
}

// packedGRU is one lecture-form GRU run over a batch whose rows are sorted by
// length, longest first: step t computes only its first n[t] rows. Every N×·
// buffer stacks the steps (see the top of this file).
type packedGRU struct {
	cell      *GRU
	d, h      int // d is the width of x (the cell's first d inputs)
	in        int // the cell's inputs, d and the caller's
	n, off    []int
	rows      int // N = Σ_t n[t]
	x, dx     []float64
	pre       []float64 // N×3h: [A_r | A_z | A_h], then ∂L/∂A after backward
	hp, hn    []float64 // N×h: H_{t-1} and H_t of each row
	r, z, ht  []float64 // N×h: R_t, Z_t, H̃_t
	rh        []float64 // N×h: R_t ⊙ H_{t-1}
	g, dRH    []float64 // B×h: ∂L/∂H_t carried back, and scratch
	wx, whrz  []float64 // [W_xr | W_xz | W_xh] (all inputs × 3h) and [W_hr | W_hz] (h×2h)
	wxT       []float64 // wxᵀ, 3h × all inputs
	whrzT     []float64 // [W_hr | W_hz]ᵀ (2h×h)
	whhT      []float64 // W_hhᵀ
	rec       gruRecurrent
	bias      []float64 // [b_r | b_z | b_h]
	gwx, gwhh []float64 // gradients of wx and W_hh
	gwhrz, gb []float64 // gradients of whrz and bias
}

// setup sizes the buffers for B rows of the given lengths (sorted, longest first)
// and packs the cell's weights; x holds the cell's first d inputs (the embedding:
// the decoder's other inputs, the context, are the caller's rowTerms).
func (g *packedGRU) setup(c *GRU, d int, lens []int, B int) {
	in, h := c.InputSize(), c.HiddenSize()
	g.cell, g.d, g.h, g.in = c, d, h, in
	T := lens[0]
	g.n, g.off = grow(g.n, T), grow(g.off, T)
	g.rows = 0
	active := B
	for t := range T {
		for active > 0 && lens[active-1] <= t {
			active--
		}
		g.n[t], g.off[t] = active, g.rows
		g.rows += active
	}
	N := g.rows
	g.x, g.dx, g.pre = grow(g.x, N*d), grow(g.dx, N*d), grow(g.pre, N*3*h)
	g.hp, g.hn, g.r, g.z, g.ht, g.rh = grow(g.hp, N*h), grow(g.hn, N*h), grow(g.r, N*h), grow(g.z, N*h), grow(g.ht, N*h), grow(g.rh, N*h)
	g.g, g.dRH = grow(g.g, B*h), grow(g.dRH, B*h)
	g.wx, g.wxT, g.whrz, g.bias = grow(g.wx, in*3*h), grow(g.wxT, 3*h*in), grow(g.whrz, h*2*h), grow(g.bias, 3*h)
	g.gwx, g.gwhrz, g.gwhh, g.gb = grow(g.gwx, in*3*h), grow(g.gwhrz, h*2*h), grow(g.gwhh, h*h), grow(g.gb, 3*h)
	packColumns(g.wx, c.Wxr.Value, c.Wxz.Value, c.Wxh.Value)
	packColumns(g.whrz, c.Whr.Value, c.Whz.Value)
	packColumns(g.bias, c.Br.Value, c.Bz.Value, c.Bh.Value)
	transposeInto(g.wxT, general(in, 3*h, 3*h, g.wx))
	g.whrzT, g.whhT = grow(g.whrzT, 2*h*h), grow(g.whhT, h*h)
	whrz, whh := general(h, 2*h, 2*h, g.whrz), c.Whh.Value.RawMatrix()
	g.rec = gruRecurrent{whrz: whrz, whh: whh, whrzT: transposeInto(g.whrzT, whrz), whhT: transposeInto(g.whhT, whh), blocked: true}
}

// release drops what points into the model, so that the pool keeps buffers, not
// models.
func (g *packedGRU) release() {
	g.cell, g.rec = nil, gruRecurrent{}
}

// forward runs the time loop from H_0 = h0 (B×h; nil is zero) on the inputs in x;
// rowTerms (B×3h, may be nil) is added to every step's pre-activations of each row.
func (g *packedGRU) forward(h0, rowTerms []float64) {
	d, h, N := g.d, g.h, g.rows
	for t, n := range g.n {
		for j := range n {
			p := g.pre[(g.off[t]+j)*3*h:][:3*h]
			copy(p, g.bias)
			if rowTerms != nil {
				addInto(p, rowTerms[j*3*h:][:3*h])
			}
		}
	}
	blockedMul(general(N, d, d, g.x), general(d, 3*h, 3*h, g.wx), general(N, 3*h, 3*h, g.pre))
	for t, n := range g.n {
		row := g.off[t]
		hp := g.hp[row*h:][:n*h]
		switch {
		case t > 0:
			copy(hp, g.hn[g.off[t-1]*h:])
		case h0 != nil:
			copy(hp, h0)
		default:
			clear(hp)
		}
		gruStepRows(n, h, g.pre[row*3*h:], hp, g.r[row*h:], g.z[row*h:], g.ht[row*h:], g.rh[row*h:], g.hn[row*h:], &g.rec)
	}
}

// backward is BPTT for the upstream gradients dOut (N×h, ∂L/∂H_t of every stacked
// row): it leaves ∂L/∂A in pre and ∂L/∂H_0 in g.
func (g *packedGRU) backward(dOut []float64) {
	h := g.h
	clear(g.g) // a row joins the carry, at zero, at its last step
	for t := len(g.n) - 1; t >= 0; t-- {
		n, row := g.n[t], g.off[t]
		carry := g.g[:n*h]
		addInto(carry, dOut[row*h:][:n*h])
		gruStepBackRows(n, h, carry, g.hp[row*h:], g.r[row*h:], g.z[row*h:], g.ht[row*h:], g.pre[row*3*h:], g.dRH, &g.rec)
	}
}

// weightGrads sets the packed gradients from ∂L/∂A over the stacked steps,
// ∂L/∂W_x = Xᵀ ∂L/∂A (the first d rows of gwx), ∂L/∂[W_hr | W_hz] = H_{t-1}ᵀ
// [∂L/∂A_r | ∂L/∂A_z], ∂L/∂W_hh = (R ⊙ H_{t-1})ᵀ ∂L/∂A_h, ∂L/∂b = Σ_rows ∂L/∂A,
// and dx = ∂L/∂X = ∂L/∂A W_xᵀ.
func (g *packedGRU) weightGrads() {
	d, h, N := g.d, g.h, g.rows
	clear(g.gwx)
	clear(g.gwhrz)
	clear(g.gwhh)
	clear(g.gb)
	clear(g.dx)
	dA := general(N, 3*h, 3*h, g.pre)
	blockedTMul(general(N, d, d, g.x), dA, general(d, 3*h, 3*h, g.gwx))
	blockedTMul(general(N, h, h, g.hp), general(N, 2*h, 3*h, g.pre), general(h, 2*h, 2*h, g.gwhrz))
	blockedTMul(general(N, h, h, g.rh), general(N, h, 3*h, g.pre[2*h:]), general(h, h, h, g.gwhh))
	addRowSums(g.gb, g.pre, N, 3*h)
	blockedMul(dA, general(3*h, d, g.in, g.wxT), general(N, d, d, g.dx))
}

// flush adds the packed gradients to the cell's parameters.
func (g *packedGRU) flush() {
	c := g.cell
	addColumnBlocks(g.gwx, c.Wxr.Grad, c.Wxz.Grad, c.Wxh.Grad)
	addColumnBlocks(g.gwhrz, c.Whr.Grad, c.Whz.Grad)
	addColumnBlocks(g.gwhh, c.Whh.Grad)
	addColumnBlocks(g.gb, c.Br.Grad, c.Bz.Grad, c.Bh.Grad)
}

// softmaxCrossEntropyRows takes the logits o (rows×V, row-major) and a label per
// row, and returns Σ_rows −log softmax(o)[y] = Σ_rows −((o_y − m) − log Σ_k
// exp(o_k − m)), m = max_k o_k, as SoftmaxCrossEntropy computes it. It replaces each
// row by scale·(softmax(o) − onehot(y)), the gradient of scale times that sum
// (scale·softmax(o)_k computed as exp(o_k − m)·(scale/Σ), within a rounding of
// SoftmaxCrossEntropy's).
func softmaxCrossEntropyRows(logits []float64, V int, labels []int, scale float64) float64 {
	var loss float64
	for r, y := range labels {
		o := logits[r*V:][:V]
		top := logitMax(o)
		oy := o[y]
		var sum float64
		for k, v := range o {
			ev := math.Exp(v - top)
			o[k] = ev
			sum += ev
		}
		loss -= (oy - top) - math.Log(sum)
		ey, f := o[y], scale/sum // one division a row, not one an entry
		for k, ev := range o {
			o[k] = ev * f
		}
		o[y] = (ey/sum - 1) * scale
	}
	return loss
}

// longestFirst returns the indices 0…len(lens)−1 sorted by lens, longest first
// (equal lengths keep their order), and the sorted lengths, in order and sorted
// (reused).
func longestFirst(order, sorted, lens []int) ([]int, []int) {
	order, sorted = grow(order, len(lens)), grow(sorted, len(lens))
	for i, n := range lens { // insertion sort: a batch has tens of rows
		j := i
		for ; j > 0 && sorted[j-1] < n; j-- {
			order[j], sorted[j] = order[j-1], sorted[j-1]
		}
		order[j], sorted[j] = i, n
	}
	return order, sorted
}

// gatherRows sets row r of dst (len(ids) rows of table's width) to table's row ids[r].
func gatherRows(dst []float64, table blas64.General, ids []int) {
	w := table.Cols
	for r, id := range ids {
		copy(dst[r*w:][:w], table.Data[id*table.Stride:][:w])
	}
}

// scatterRows adds row r of src to row ids[r] of table: the embedding's backward.
func scatterRows(table blas64.General, src []float64, ids []int) {
	w := table.Cols
	for r, id := range ids {
		addInto(table.Data[id*table.Stride:][:w], src[r*w:][:w])
	}
}

// addRowSums adds the sum of the rows of m (rows×cols, row-major) to dst.
func addRowSums(dst, m []float64, rows, cols int) {
	dst = dst[:cols]
	for r := range rows {
		for k, v := range m[r*cols:][:cols] {
			dst[k] += v
		}
	}
}

// addInto adds src to dst entry by entry, over src's length.
func addInto(dst, src []float64) {
	dst = dst[:len(src)]
	for k, v := range src {
		dst[k] += v
	}
}

// grow returns buf resized to n, reallocated only when its capacity is short
// (contents undefined).
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}
