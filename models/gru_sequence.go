package models

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The sequence-level GRU pass: the GRU's ForwardSequence and BackwardSequence
// (SequenceCell), which Forward and Backward use. For a lecture-form GRU over a
// whole sequence it computes the numbers of Step and StepBack (up to the order of
// floating-point sums) with fewer, larger matrix products:
//
//   - the input terms X_t W_x* of every step and every gate come from one product
//     [X_1; …; X_T] [W_xr | W_xz | W_xh], before the time loop;
//   - per step, H_{t-1} [W_hr | W_hz] gives both gates' recurrent terms at once;
//   - backward, the time loop only carries ∂L/∂H_t back and stores every step's
//     pre-activation gradients ∂L/∂A; the weight gradients and ∂L/∂X_t are
//     products over stacked steps (e.g. ∂L/∂W_x = [X_1; …; X_T]ᵀ ∂L/∂A), which a
//     helper goroutine starts on while the loop is still running;
//   - batch rows are independent in the recurrence, so a large batch is split
//     between goroutines, each running the whole time loop for its rows.
//
// Every goroutine is started and joined inside one call.

// minRowsPerWorker is the fewest matrix rows worth a goroutine of their own;
// below it the hand-off costs more than the products save.
const minRowsPerWorker = 8

// Work sizes, counted as T·B·d·h (a third of the multiply-adds of X [W_xr|W_xz|W_xh]),
// below which extra goroutines cost more than they save: waking a parked thread
// takes tens of microseconds, and a product of this size about as long.
const (
	minOverlapWork  = 1 << 14 // a helper running beside the time loop
	minParallelWork = 1 << 17 // a product split between goroutines
)

// pieceRows is about how many stacked rows (steps × batch rows) the backward loop
// hands over at a time: few enough that the helper starts while the loop still
// runs, enough that each aᵀ·b product has a useful depth.
const pieceRows = 16

// gruSequence holds the buffers of one sequence-level forward pass; the trace's
// steps are views into them. Every buffer is T (or T+1) blocks of B×h, row-major.
type gruSequence struct {
	cell     *GRU
	T, B     int
	hs       []float64 // H_0, H_1, …, H_T
	r, z, ht []float64 // R_t, Z_t, H̃_t for t = 1..T
	rh       []float64 // R_t ⊙ H_{t-1}
}

// gruScratch recycles the temporary buffers of sequence passes.
var gruScratch = sync.Pool{New: func() any { return new([]float64) }}

// takeScratch returns a pooled buffer of length n (contents undefined) and its
// handle for gruScratch.Put.
func takeScratch(n int) ([]float64, *[]float64) {
	p := gruScratch.Get().(*[]float64)
	if cap(*p) < n {
		*p = make([]float64, n)
	}
	return (*p)[:n], p
}

// carve splits buf into consecutive slices of the given lengths.
func carve(buf []float64, lens ...int) [][]float64 {
	out := make([][]float64, len(lens))
	for i, n := range lens {
		out[i], buf = buf[:n:n], buf[n:]
	}
	return out
}

// rowWorkers is how many goroutines splitRows uses for n rows.
func rowWorkers(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/minRowsPerWorker))
}

// splitRows runs work(w, lo, hi) over row ranges that partition [0, n), one per
// worker w < rowWorkers(n), concurrently; it returns when all are done.
func splitRows(n int, work func(w, lo, hi int)) {
	workers := rowWorkers(n)
	if workers == 1 {
		work(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { work(w, w*n/workers, (w+1)*n/workers) })
	}
	wg.Wait()
}

// owner is the GRU whose pass it is.
func (s *gruSequence) owner() Cell { return s.cell }

// ForwardSequence is the fused pass for the lecture-form GRU (see the top of this
// file); the reset-after form and a GRU with a clamped gate run the per-step loop.
func (c *GRU) ForwardSequence(xs []*mat.Dense, s0 State) *Trace {
	if c.resetAfter || c.clamp.Gate != "" {
		return forwardSteps(c, xs, s0)
	}
	return c.forwardSequence(xs, stepInput(c, xs[0], s0))
}

// BackwardSequence is the fused backward pass on a trace of the fused forward pass
// of this GRU, and the per-step loop of StepBack on any other trace.
func (c *GRU) BackwardSequence(tr *Trace, dH []*mat.Dense) *Grads {
	if s, ok := tr.fused.(*gruSequence); ok && s.cell == c {
		return s.backward(tr, dH)
	}
	return backwardFull(c, tr, dH)
}

// forwardSequence is the fused forward pass of a lecture-form GRU; s0.H is set.
func (c *GRU) forwardSequence(xs []*mat.Dense, s0 State) *Trace {
	T := len(xs)
	B, _ := xs[0].Dims()
	d, h := c.InputSize(), c.HiddenSize()
	n, bh := T*B, B*h
	s := &gruSequence{cell: c, T: T, B: B}
	s.hs = make([]float64, (T+1)*bh)
	s.r, s.z, s.ht, s.rh = make([]float64, n*h), make([]float64, n*h), make([]float64, n*h), make([]float64, n*h)
	copyRows(s.hs, s0.H)

	buf, handle := takeScratch(n*d + n*3*h + d*3*h + h*2*h + 3*h)
	defer gruScratch.Put(handle)
	ws := carve(buf, n*d, n*3*h, d*3*h, h*2*h, 3*h)
	xAll, pre, wx, whrz, bias := ws[0], ws[1], ws[2], ws[3], ws[4]
	for t, x := range xs {
		copyRows(xAll[t*B*d:], x)
	}
	packColumns(wx, c.Wxr.Value, c.Wxz.Value, c.Wxh.Value)
	packColumns(whrz, c.Whr.Value, c.Whz.Value)
	packColumns(bias, c.Br.Value, c.Bz.Value, c.Bh.Value)
	// [A_r | A_z | A_h] = [b_r | b_z | b_h] + X_t [W_xr | W_xz | W_xh] for all steps.
	inputTerms := func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			copy(pre[i*3*h:][:3*h], bias)
		}
		addMul(general(hi-lo, d, d, xAll[lo*d:]), general(d, 3*h, 3*h, wx), general(hi-lo, 3*h, 3*h, pre[lo*3*h:]))
	}
	// One worker: the input terms of the later steps are computed by a helper
	// while the time loop runs the first steps.
	workers := rowWorkers(B)
	var laterSteps chan struct{}
	half := (T / 2) * B
	switch {
	case workers == 1 && runtime.GOMAXPROCS(0) > 1 && T >= 2 && n*d*h >= minOverlapWork:
		laterSteps = make(chan struct{})
		go func() {
			defer close(laterSteps)
			inputTerms(0, half, n)
		}()
		inputTerms(0, 0, half)
	case n*d*h < minParallelWork:
		inputTerms(0, 0, n)
	default:
		splitRows(n, inputTerms)
	}

	rec := &gruRecurrent{whrz: general(h, 2*h, 2*h, whrz), whh: c.Whh.Value.RawMatrix()}
	loop := func(_, lo, hi int) {
		m := hi - lo
		for t := range T {
			row := t*B + lo // first row of this slice in the stacked T·B rows
			if laterSteps != nil && t*B == half {
				<-laterSteps
			}
			gruStepRows(m, h, pre[row*3*h:], s.hs[row*h:], s.r[row*h:], s.z[row*h:], s.ht[row*h:], s.rh[row*h:], s.hs[(row+B)*h:], rec)
		}
	}
	splitRows(B, loop)
	return s.trace(xs)
}

// gruRecurrent is a lecture-form GRU's recurrent weights as the time loops use them:
// [W_hr | W_hz] packed (h×2h) and W_hh (h×h). With blocked set the products are
// blockedMul's, with the transposes whrzT and whhT for the backward pass; without,
// one matrix–vector product per row (addMul, addMulT).
type gruRecurrent struct {
	whrz, whh, whrzT, whhT blas64.General
	blocked                bool
}

// mul sets c += a·b.
func (w *gruRecurrent) mul(a, b, c blas64.General) {
	if w.blocked {
		blockedMul(a, b, c)
	} else {
		addMul(a, b, c)
	}
}

// mulT sets c += a·bᵀ, where bT is bᵀ.
func (w *gruRecurrent) mulT(a, b, bT, c blas64.General) {
	if w.blocked {
		blockedMul(a, bT, c)
	} else {
		addMulT(a, b, c)
	}
}

// gruStepRows is one forward step of the lecture-form GRU for m batch rows, each
// buffer m consecutive rows from its start: p holds [A_r | A_z | A_h] (m×3h) with
// the input terms and biases already in; from H_{t-1} = hp it adds the recurrent
// terms and sets R_t, Z_t, H̃_t, R_t ⊙ H_{t-1} and H_t = hn (each m×h).
func gruStepRows(m, h int, p, hp, r, z, ht, rh, hn []float64, w *gruRecurrent) {
	p, hp, hn = p[:m*3*h], hp[:m*h], hn[:m*h]
	r, z, ht, rh = r[:m*h], z[:m*h], ht[:m*h], rh[:m*h]
	// [A_r | A_z] += H_{t-1} [W_hr | W_hz]
	w.mul(general(m, h, h, hp), w.whrz, general(m, 2*h, 3*h, p))
	for i := range m {
		pr, k := p[i*3*h:], i*h
		gruGates(pr[:h], pr[h:2*h], hp[k:k+h], r[k:k+h], z[k:k+h], rh[k:k+h])
	}
	// A_h += (R_t ⊙ H_{t-1}) W_hh
	w.mul(general(m, h, h, rh), w.whh, general(m, h, 3*h, p[2*h:]))
	for i := range m {
		k := i * h
		gruCandidate(p[i*3*h+2*h:][:h], hp[k:k+h], z[k:k+h], ht[k:k+h], hn[k:k+h])
	}
}

// gruStepBackRows is one backward step of the lecture-form GRU for m batch rows
// (buffers as in gruStepRows): it takes G = ∂L/∂H_t in g, sets
// da = [∂L/∂A_r | ∂L/∂A_z | ∂L/∂A_h] (m×3h) and leaves ∂L/∂H_{t-1} in g.
// dRH (m×h) is scratch for ∂L/∂(R_t ⊙ H_{t-1}).
func gruStepBackRows(m, h int, g, hp, r, z, ht, da, dRH []float64, w *gruRecurrent) {
	g, hp, da, dRH = g[:m*h], hp[:m*h], da[:m*3*h], dRH[:m*h]
	r, z, ht = r[:m*h], z[:m*h], ht[:m*h]
	for i := range m {
		dar, k := da[i*3*h:], i*h
		gruBackOutput(g[k:k+h], hp[k:k+h], z[k:k+h], ht[k:k+h], dar[h:2*h], dar[2*h:3*h])
	}
	// ∂L/∂(R_t ⊙ H_{t-1}) = ∂L/∂A_h W_hhᵀ
	clear(dRH)
	w.mulT(general(m, h, 3*h, da[2*h:]), w.whh, w.whhT, general(m, h, h, dRH))
	for i := range m {
		k := i * h
		gruBackReset(dRH[k:k+h], hp[k:k+h], r[k:k+h], da[i*3*h:][:h], g[k:k+h])
	}
	// G_{t-1} += [∂L/∂A_r | ∂L/∂A_z] [W_hr | W_hz]ᵀ
	w.mulT(general(m, 2*h, 3*h, da), w.whrz, w.whrzT, general(m, h, h, g))
}

// gruGates sets, for one batch row, R_t = σ(A_r), Z_t = σ(A_z) and R_t ⊙ H_{t-1}.
func gruGates(ar, az, hp, r, z, rh []float64) {
	n := len(hp)
	ar, az, r, z, rh = ar[:n], az[:n], r[:n], z[:n], rh[:n]
	for j, hv := range hp {
		rv := sigmoid(ar[j])
		r[j], z[j], rh[j] = rv, sigmoid(az[j]), rv*hv
	}
}

// gruCandidate sets, for one batch row, H̃_t = tanh(A_h) and
// H_t = Z_t ⊙ H_{t-1} + (1 − Z_t) ⊙ H̃_t.
func gruCandidate(ah, hp, z, ht, hn []float64) {
	n := len(hp)
	ah, z, ht, hn = ah[:n], z[:n], ht[:n], hn[:n]
	for j, hv := range hp {
		htv := math.Tanh(ah[j])
		ht[j], hn[j] = htv, z[j]*hv+(1-z[j])*htv
	}
}

// gruBackOutput takes G = ∂L/∂H_t for one batch row and sets ∂L/∂A_z =
// G ⊙ (H_{t-1} − H̃_t) ⊙ Z_t ⊙ (1 − Z_t), ∂L/∂A_h = G ⊙ (1 − Z_t) ⊙ (1 − H̃_t²), and
// G ← G ⊙ Z_t, the direct part of ∂L/∂H_{t-1}.
func gruBackOutput(g, hp, z, ht, daz, dah []float64) {
	n := len(g)
	hp, z, ht, daz, dah = hp[:n], z[:n], ht[:n], daz[:n], dah[:n]
	for j, gv := range g {
		zv, htv := z[j], ht[j]
		daz[j] = gv * (hp[j] - htv) * zv * (1 - zv)
		dah[j] = gv * (1 - zv) * (1 - htv*htv)
		g[j] = gv * zv
	}
}

// gruBackReset takes D = ∂L/∂(R_t ⊙ H_{t-1}) for one batch row and sets
// ∂L/∂A_r = D ⊙ H_{t-1} ⊙ R_t ⊙ (1 − R_t) and G += D ⊙ R_t.
func gruBackReset(dRH, hp, r, dar, g []float64) {
	n := len(dRH)
	hp, r, dar, g = hp[:n], r[:n], dar[:n], g[:n]
	for j, dv := range dRH {
		rv := r[j]
		dar[j] = dv * hp[j] * rv * (1 - rv)
		g[j] += dv * rv
	}
}

// trace builds the per-step view of the buffers.
func (s *gruSequence) trace(xs []*mat.Dense) *Trace {
	T, h := s.T, s.cell.HiddenSize()
	bh := s.B * h
	steps := make([]StepTrace, T)
	views := make([]mat.Dense, 5*T+1)
	named := make([]Named, 3*T)
	aux := make([]*mat.Dense, T)
	view := func(k int, buf []float64, t int) *mat.Dense {
		views[k].SetRawMatrix(general(s.B, h, h, buf[t*bh:]))
		return &views[k]
	}
	tr := &Trace{Steps: make([]*StepTrace, T), fused: s}
	prev := view(0, s.hs, 0)
	for t := range T {
		next := view(5*t+1, s.hs, t+1)
		named[3*t] = Named{"R", view(5*t+2, s.r, t)}
		named[3*t+1] = Named{"Z", view(5*t+3, s.z, t)}
		named[3*t+2] = Named{"H_tilde", view(5*t+4, s.ht, t)}
		aux[t] = view(5*t+5, s.rh, t)
		steps[t] = StepTrace{X: xs[t], Prev: State{H: prev}, Next: State{H: next}, Gates: named[3*t : 3*t+3 : 3*t+3], aux: aux[t : t+1 : t+1]}
		tr.Steps[t] = &steps[t]
		prev = next
	}
	return tr
}

// stackedProduct names one of the backward pass's products over stacked steps.
type stackedProduct int

const (
	inputWeightGrads     stackedProduct = iota // ∂L/∂[W_xr | W_xz | W_xh] += X_Rᵀ ∂L/∂A_R
	inputGrads                                 // ∂L/∂X_R = ∂L/∂A_R [W_xr | W_xz | W_xh]ᵀ
	gateWeightGrads                            // ∂L/∂[W_hr | W_hz] += H_{R−1}ᵀ [∂L/∂A_r | ∂L/∂A_z]_R
	candidateWeightGrads                       // ∂L/∂W_hh += (R ⊙ H_{t-1})_Rᵀ ∂L/∂A_h,R
	stackedProducts
)

// stackedRows is one piece of work: one product over rows [lo, hi) of the T·B
// stacked matrices.
type stackedRows struct {
	lo, hi  int
	product stackedProduct
	piece   int // 0, 1, … in hand-over order: where its partial sum goes
}

// gruStackedSums hold one partial weight-gradient sum per piece. Pieces of the same
// product may run on different goroutines in any order, so each writes its own
// partial, and the partials are added up in piece order after the join: the same
// inputs always give bit-identical gradients.
type gruStackedSums struct {
	wx   []float64 // piece k: ∂L/∂[W_xr | W_xz | W_xh] over its rows, d×3h at k·d·3h
	whrz []float64 // piece k: ∂L/∂[W_hr | W_hz], h×2h
	whh  []float64 // piece k: ∂L/∂W_hh, h×h
}

// backward is full BPTT over the sequence (see Backward).
func (s *gruSequence) backward(tr *Trace, dH []*mat.Dense) *Grads {
	c, T, B := s.cell, s.T, s.B
	d, h := c.InputSize(), c.HiddenSize()
	n := T * B
	out := carve(make([]float64, n*d+B*h), n*d, B*h)
	dxAll, ds0 := out[0], out[1] // ∂L/∂X_t for every t; ∂L/∂H_0, the carry during the loop

	workers := rowWorkers(B)
	consumers := max(1, runtime.GOMAXPROCS(0))
	if workers == 1 && n*d*h < minOverlapWork {
		consumers = 1
	}
	// The stacked products are done piece by piece: by consumers−1 helper
	// goroutines from the start, and by this goroutine after the time loop.
	pieceSteps := max(1, (pieceRows+B-1)/B)
	if workers > 1 { // the pieces are handed over after the loop: one per consumer
		pieceSteps = (T + consumers - 1) / consumers
	}
	maxPieces := T/pieceSteps + 1

	buf, handle := takeScratch(n*3*h + n*d + d*3*h + h*2*h + B*h + workers*T + maxPieces*(d*3*h+h*2*h+h*h))
	defer gruScratch.Put(handle)
	ws := carve(buf, n*3*h, n*d, d*3*h, h*2*h, B*h, workers*T, maxPieces*d*3*h, maxPieces*h*2*h, maxPieces*h*h)
	dA, xAll, wx, whrz, dRHAll, normSq := ws[0], ws[1], ws[2], ws[3], ws[4], ws[5]
	sums := &gruStackedSums{wx: ws[6], whrz: ws[7], whh: ws[8]}
	clear(normSq)
	packColumns(wx, c.Wxr.Value, c.Wxz.Value, c.Wxh.Value)
	packColumns(whrz, c.Whr.Value, c.Whz.Value)
	for t, st := range tr.Steps {
		copyRows(xAll[t*B*d:], st.X)
	}

	pieces := make(chan stackedRows, int(stackedProducts)*maxPieces)
	consume := func() {
		for p := range pieces {
			s.stackedProduct(p, dA, xAll, wx, dxAll, sums)
		}
	}
	var helpers sync.WaitGroup
	for range consumers - 1 {
		helpers.Go(consume)
	}
	handed := 0                              // pieces handed over so far; only the handing goroutine counts
	handOver := func(fromStep, toStep int) { // steps [fromStep, toStep) are done
		for p := range stackedProducts {
			pieces <- stackedRows{fromStep * B, toStep * B, p, handed}
		}
		handed++
	}

	rec := &gruRecurrent{whrz: general(h, 2*h, 2*h, whrz), whh: c.Whh.Value.RawMatrix()}
	loop := func(w, lo, hi int) {
		m := hi - lo
		g := ds0[lo*h:][:m*h] // G = ∂L/∂H_t for rows lo..hi, carried back
		dRH := dRHAll[lo*h:][:m*h]
		sq := normSq[w*T:][:T]
		done := T // steps [done, T) have been handed over
		for t := T - 1; t >= 0; t-- {
			if up := upstream(dH, t); up != nil {
				raw := up.RawMatrix()
				for i := range m {
					for j, v := range raw.Data[(lo+i)*raw.Stride:][:h] {
						g[i*h+j] += v
					}
				}
			}
			for _, v := range g {
				sq[t] += v * v
			}
			row := t*B + lo
			gruStepBackRows(m, h, g, s.hs[row*h:], s.r[row*h:], s.z[row*h:], s.ht[row*h:], dA[row*3*h:], dRH, rec)
			if workers == 1 && ((T-t)%pieceSteps == 0 || t == 0) {
				handOver(t, done)
				done = t
			}
		}
	}
	if workers == 1 {
		loop(0, 0, B)
	} else {
		splitRows(B, loop)
		for t := 0; t < T; t += pieceSteps {
			handOver(t, min(t+pieceSteps, T))
		}
	}
	close(pieces)
	consume()
	helpers.Wait()
	for k := range handed { // partial sums in piece order, whoever computed them
		addColumnBlocks(sums.wx[k*d*3*h:][:d*3*h], c.Wxr.Grad, c.Wxz.Grad, c.Wxh.Grad)
		addColumnBlocks(sums.whrz[k*h*2*h:][:h*2*h], c.Whr.Grad, c.Whz.Grad)
		addColumnBlocks(sums.whh[k*h*h:][:h*h], c.Whh.Grad)
	}
	for k, p := range []*Param{c.Br, c.Bz, c.Bh} {
		var cols mat.Dense
		cols.SetRawMatrix(general(n, h, 3*h, dA[k*h:]))
		addColumnSums(p.Grad, &cols)
	}

	grads := &Grads{DX: make([]*mat.Dense, T), DS0: State{H: mat.NewDense(B, h, ds0)}, HNorm: make([]float64, T)}
	dxViews := make([]mat.Dense, T)
	for t := range T {
		var sum float64
		for w := range workers {
			sum += normSq[w*T+t]
		}
		grads.HNorm[t] = math.Sqrt(sum)
		dxViews[t].SetRawMatrix(general(B, d, d, dxAll[t*B*d:]))
		grads.DX[t] = &dxViews[t]
	}
	return grads
}

// stackedProduct computes one piece of a product over stacked steps (see
// stackedProduct's constants).
func (s *gruSequence) stackedProduct(p stackedRows, dA, xAll, wx, dxAll []float64, sums *gruStackedSums) {
	d, h := s.cell.InputSize(), s.cell.HiddenSize()
	m := p.hi - p.lo
	da := dA[p.lo*3*h:]
	if p.product == inputGrads { // rows of ∂L/∂X are this piece's own: no lock
		addMulT(general(m, 3*h, 3*h, da), general(d, 3*h, 3*h, wx), general(m, d, d, dxAll[p.lo*d:]))
		return
	}
	switch p.product { // each piece owns its partial sum: no lock
	case inputWeightGrads:
		part := sums.wx[p.piece*d*3*h:][:d*3*h]
		clear(part)
		addTMul(general(m, d, d, xAll[p.lo*d:]), general(m, 3*h, 3*h, da), general(d, 3*h, 3*h, part))
	case gateWeightGrads:
		part := sums.whrz[p.piece*h*2*h:][:h*2*h]
		clear(part)
		addTMul(general(m, h, h, s.hs[p.lo*h:]), general(m, 2*h, 3*h, da), general(h, 2*h, 2*h, part))
	case candidateWeightGrads:
		part := sums.whh[p.piece*h*h:][:h*h]
		clear(part)
		addTMul(general(m, h, h, s.rh[p.lo*h:]), general(m, h, 3*h, da[2*h:]), general(h, h, h, part))
	}
}
