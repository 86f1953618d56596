package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The Transformer's building blocks (lecture 002, "Transformer architecture" and
// "Attention module"; Vaswani et al. 2017): sinusoidal positional encoding, multi-head
// attention, the position-wise feed-forward network and layer normalisation. Every
// block works on one sequence at a time, its positions as the rows of an n×d matrix:
// the positions are computed together by matrix products, with no recurrence.

// positionalBase is the 10000 of the sinusoids' wavelengths 2π·10000^{2i/d}.
const positionalBase = 10000

// PositionalEncoding is the n×d sinusoidal encoding added to the embeddings, so that
// attention, which ignores order, can tell positions apart:
//
//	PE[pos, 2i]   = sin(pos / 10000^{2i/d})
//	PE[pos, 2i+1] = cos(pos / 10000^{2i/d})
//
// for positions pos = 0 … n−1; the wavelengths grow geometrically from 2π to
// 2π·10000 along the dimensions.
func PositionalEncoding(n, d int) *mat.Dense {
	if n <= 0 || d <= 0 {
		panic(fmt.Sprintf("models: positional encoding needs n > 0 and d > 0, got %d and %d", n, d))
	}
	pe := mat.NewDense(n, d, nil)
	for pos := range n {
		row := pe.RawRowView(pos)
		for j := range row {
			angle := float64(pos) / math.Pow(positionalBase, float64(j-j%2)/float64(d))
			if j%2 == 0 {
				row[j] = math.Sin(angle)
			} else {
				row[j] = math.Cos(angle)
			}
		}
	}
	return pe
}

// MultiHeadAttention is lecture 002's
//
//	MultiHead(Q, K, V) = Concat(head_1, …, head_h) W^O,
//	head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V),
//
// with W_i^Q, W_i^K ∈ R^{d×d_k}, W_i^V ∈ R^{d×d_v} and W^O ∈ R^{h·d_v × d}. The
// queries come from X_q (n×d), the keys and values from X_kv (m×d): the same matrix
// for self-attention, the encoder's output for encoder-decoder attention.
type MultiHeadAttention struct {
	WQ, WK, WV []*Param // per head i: W_i^Q, W_i^K (d×d_k) and W_i^V (d×d_v)
	WO         *Param   // W^O, h·d_v × d
}

// NewMultiHeadAttention returns h heads of width d_k = d_v = d/h over a model of
// width d, every matrix Xavier-uniform. d must be a multiple of h.
func NewMultiHeadAttention(d, heads int, rng *rand.Rand) *MultiHeadAttention {
	if d <= 0 || heads <= 0 || d%heads != 0 {
		panic(fmt.Sprintf("models: multi-head attention needs d > 0 a multiple of h > 0, got d = %d, h = %d", d, heads))
	}
	dk := d / heads
	a := &MultiHeadAttention{WO: NewParam("W^O", heads*dk, d)}
	for i := range heads {
		a.WQ = append(a.WQ, NewParam(fmt.Sprintf("W_%d^Q", i+1), d, dk))
		a.WK = append(a.WK, NewParam(fmt.Sprintf("W_%d^K", i+1), d, dk))
		a.WV = append(a.WV, NewParam(fmt.Sprintf("W_%d^V", i+1), d, dk))
	}
	for _, p := range a.Params() {
		Xavier(p, rng)
	}
	return a
}

// Params lists W_1^Q, W_1^K, W_1^V, …, W_h^Q, W_h^K, W_h^V, then W^O.
func (a *MultiHeadAttention) Params() Params {
	var ps Params
	for i := range a.WQ {
		ps = append(ps, a.WQ[i], a.WK[i], a.WV[i])
	}
	return append(ps, a.WO)
}

// Heads is h.
func (a *MultiHeadAttention) Heads() int { return len(a.WQ) }

// MultiHeadTrace is one multi-head attention: its inputs and every intermediate.
type MultiHeadTrace struct {
	Xq, Xkv *mat.Dense   // the rows the queries come from, and those of the keys and values
	Q, K, V []*mat.Dense // per head: Q W_i^Q (n×d_k), K W_i^K (m×d_k), V W_i^V (m×d_v)
	Weights []*mat.Dense // per head: A_i = softmax(s · Q_i K_iᵀ + M) (n×m), row-stochastic
	Head    []*mat.Dense // per head: head_i = A_i V_i (n×d_v)
	Concat  *mat.Dense   // Concat(head_1, …, head_h), n × h·d_v
	Out     *mat.Dense   // Concat(…) W^O, n×d
	Scale   float64      // s: 1/√d_k, or 1 without the scaling
}

// Forward computes MultiHead for queries from xq (n×d) over keys and values from xkv
// (m×d). mask (nil: none) is applied to every head's scores; scaled picks s = 1/√d_k
// (the lecture's) or s = 1.
func (a *MultiHeadAttention) Forward(xq, xkv *mat.Dense, mask KeyMask, scaled bool) *MultiHeadTrace {
	d, dk := a.WQ[0].Value.Dims()
	n, _ := xq.Dims()
	m, _ := xkv.Dims()
	mustDims("attention queries' rows", xq, n, d)
	mustDims("attention keys' rows", xkv, m, d)
	h := a.Heads()
	tr := &MultiHeadTrace{Xq: xq, Xkv: xkv, Concat: mat.NewDense(n, h*dk, nil), Scale: 1}
	if scaled {
		tr.Scale = 1 / math.Sqrt(float64(dk))
	}
	for i := range h {
		q, k, v := new(mat.Dense), new(mat.Dense), new(mat.Dense)
		q.Mul(xq, a.WQ[i].Value)
		k.Mul(xkv, a.WK[i].Value)
		v.Mul(xkv, a.WV[i].Value)
		head, weights := DotProductAttention(q, k, v, mask, tr.Scale)
		tr.Q, tr.K, tr.V = append(tr.Q, q), append(tr.K, k), append(tr.V, v)
		tr.Weights, tr.Head = append(tr.Weights, weights), append(tr.Head, head)
		tr.Concat.Slice(0, n, i*dk, (i+1)*dk).(*mat.Dense).Copy(head)
	}
	tr.Out = mat.NewDense(n, d, nil)
	tr.Out.Mul(tr.Concat, a.WO.Value)
	return tr
}

// Backward takes ∂L/∂Out (n×d), adds ∂L/∂W_i^Q, ∂L/∂W_i^K, ∂L/∂W_i^V and ∂L/∂W^O
// to the gradients and returns ∂L/∂X_q (n×d) and ∂L/∂X_kv (m×d); for
// self-attention, where X_q = X_kv, the caller adds the two.
func (a *MultiHeadAttention) Backward(tr *MultiHeadTrace, dOut *mat.Dense) (dXq, dXkv *mat.Dense) {
	d, dk := a.WQ[0].Value.Dims()
	n, _ := tr.Xq.Dims()
	m, _ := tr.Xkv.Dims()
	mustDims("attention dOut", dOut, n, d)
	var dWO mat.Dense
	dWO.Mul(tr.Concat.T(), dOut)
	a.WO.Grad.Add(a.WO.Grad, &dWO)
	var dConcat mat.Dense
	dConcat.Mul(dOut, a.WO.Value.T())
	dXq, dXkv = mat.NewDense(n, d, nil), mat.NewDense(m, d, nil)
	var dW, dX mat.Dense
	for i := range a.WQ {
		dHead := dConcat.Slice(0, n, i*dk, (i+1)*dk)
		dq, dkk, dv := DotProductAttentionBackward(tr.Q[i], tr.K[i], tr.V[i], tr.Weights[i], mat.DenseCopyOf(dHead), tr.Scale)
		for _, g := range []struct {
			w      *Param
			x, dpr *mat.Dense
			into   *mat.Dense
		}{{a.WQ[i], tr.Xq, dq, dXq}, {a.WK[i], tr.Xkv, dkk, dXkv}, {a.WV[i], tr.Xkv, dv, dXkv}} {
			dW.Reset()
			dW.Mul(g.x.T(), g.dpr)
			g.w.Grad.Add(g.w.Grad, &dW)
			dX.Reset()
			dX.Mul(g.dpr, g.w.Value.T())
			g.into.Add(g.into, &dX)
		}
	}
	return dXq, dXkv
}

// LayerNormEps, ε, keeps 1/√(σ² + ε) finite for a row whose entries are all equal (the
// usual 10⁻⁵ of torch.nn.LayerNorm).
const LayerNormEps = 1e-5

// LayerNorm is layer normalisation over each row x (one position) of width d:
//
//	LN(x) = γ ⊙ (x − μ) / √(σ² + ε) + β,  μ = (1/d) Σ_j x_j,  σ² = (1/d) Σ_j (x_j − μ)²,
//
// with learned gain γ and bias β (1×d) and ε = 10⁻⁵.
type LayerNorm struct {
	Gamma, Beta *Param
}

// NewLayerNorm returns γ = 1, β = 0 of width d, named prefix+"γ" and prefix+"β".
func NewLayerNorm(prefix string, d int) *LayerNorm {
	if d <= 0 {
		panic(fmt.Sprintf("models: layer normalisation needs d > 0, got %d", d))
	}
	ln := &LayerNorm{Gamma: NewBias(prefix+"γ", d), Beta: NewBias(prefix+"β", d)}
	for j := range d {
		ln.Gamma.Value.Set(0, j, 1)
	}
	return ln
}

// Params lists γ then β.
func (ln *LayerNorm) Params() Params { return Params{ln.Gamma, ln.Beta} }

// LayerNormTrace keeps a forward pass for Backward.
type LayerNormTrace struct {
	Norm   *mat.Dense // x̂ = (x − μ)/√(σ² + ε), row by row
	InvStd []float64  // 1/√(σ² + ε) per row
	Out    *mat.Dense // γ ⊙ x̂ + β
}

// Forward normalises every row of x (n×d).
func (ln *LayerNorm) Forward(x *mat.Dense) *LayerNormTrace {
	_, d := ln.Gamma.Value.Dims()
	n, _ := x.Dims()
	mustDims("layer norm input", x, n, d)
	tr := &LayerNormTrace{Norm: mat.NewDense(n, d, nil), InvStd: make([]float64, n), Out: mat.NewDense(n, d, nil)}
	gamma, beta := ln.Gamma.Value.RawRowView(0), ln.Beta.Value.RawRowView(0)
	for r := range n {
		row := x.RawRowView(r)
		var mean float64
		for _, v := range row {
			mean += v
		}
		mean /= float64(d)
		var variance float64
		for _, v := range row {
			variance += (v - mean) * (v - mean)
		}
		variance /= float64(d)
		inv := 1 / math.Sqrt(variance+LayerNormEps)
		tr.InvStd[r] = inv
		norm, out := tr.Norm.RawRowView(r), tr.Out.RawRowView(r)
		for j, v := range row {
			norm[j] = (v - mean) * inv
			out[j] = gamma[j]*norm[j] + beta[j]
		}
	}
	return tr
}

// Backward takes ∂L/∂Out, adds ∂L/∂γ = Σ_rows ∂L/∂Out ⊙ x̂ and ∂L/∂β = Σ_rows ∂L/∂Out,
// and returns ∂L/∂x; with g = γ ⊙ ∂L/∂Out, row by row,
//
//	∂L/∂x = (1/√(σ² + ε)) (g − mean(g) − x̂ · mean(g ⊙ x̂)).
func (ln *LayerNorm) Backward(tr *LayerNormTrace, dOut *mat.Dense) *mat.Dense {
	_, d := ln.Gamma.Value.Dims()
	n, _ := tr.Norm.Dims()
	mustDims("layer norm dOut", dOut, n, d)
	gamma := ln.Gamma.Value.RawRowView(0)
	dGamma, dBeta := ln.Gamma.Grad.RawRowView(0), ln.Beta.Grad.RawRowView(0)
	dX := mat.NewDense(n, d, nil)
	g := make([]float64, d)
	for r := range n {
		dy, norm := dOut.RawRowView(r), tr.Norm.RawRowView(r)
		var meanG, meanGN float64
		for j := range d {
			dGamma[j] += dy[j] * norm[j]
			dBeta[j] += dy[j]
			g[j] = gamma[j] * dy[j]
			meanG += g[j]
			meanGN += g[j] * norm[j]
		}
		meanG /= float64(d)
		meanGN /= float64(d)
		dx := dX.RawRowView(r)
		for j := range d {
			dx[j] = tr.InvStd[r] * (g[j] - meanG - norm[j]*meanGN)
		}
	}
	return dX
}

// FeedForward is the position-wise feed-forward network of lecture 002, applied to
// every position (row) separately and identically:
//
//	FFN(x) = ReLU(x W⁽¹⁾ + b⁽¹⁾) W⁽²⁾ + b⁽²⁾.
type FeedForward struct {
	First, Second *Dense // W⁽¹⁾, b⁽¹⁾ (d × d_ff) and W⁽²⁾, b⁽²⁾ (d_ff × d)
}

// NewFeedForward returns a d → d_ff → d network, Xavier-uniform weights, zero biases.
func NewFeedForward(d, inner int, rng *rand.Rand) *FeedForward {
	if d <= 0 || inner <= 0 {
		panic(fmt.Sprintf("models: feed-forward network needs d > 0 and d_ff > 0, got %d and %d", d, inner))
	}
	f := &FeedForward{
		First:  &Dense{W: NewParam("W^(1)", d, inner), B: NewBias("b^(1)", inner)},
		Second: &Dense{W: NewParam("W^(2)", inner, d), B: NewBias("b^(2)", d)},
	}
	Xavier(f.First.W, rng)
	Xavier(f.Second.W, rng)
	return f
}

// Params lists W⁽¹⁾, b⁽¹⁾, W⁽²⁾, b⁽²⁾, named W^(1), b^(1), W^(2), b^(2).
func (f *FeedForward) Params() Params {
	return Params{f.First.W, f.First.B, f.Second.W, f.Second.B}
}

// FeedForwardTrace keeps a forward pass.
type FeedForwardTrace struct {
	X, Hidden, Out *mat.Dense // the input, ReLU(x W⁽¹⁾ + b⁽¹⁾), and FFN(x)
}

// Forward applies FFN to every row of x.
func (f *FeedForward) Forward(x *mat.Dense) *FeedForwardTrace {
	hidden := f.First.Forward(x)
	hidden.Apply(func(_, _ int, a float64) float64 { return max(a, 0) }, hidden)
	return &FeedForwardTrace{X: x, Hidden: hidden, Out: f.Second.Forward(hidden)}
}

// Backward takes ∂L/∂FFN(x), adds the four gradients and returns ∂L/∂x; ReLU passes
// the gradient where its output is positive.
func (f *FeedForward) Backward(tr *FeedForwardTrace, dOut *mat.Dense) *mat.Dense {
	dHidden := f.Second.Backward(tr.Hidden, dOut)
	dHidden.Apply(func(i, j int, g float64) float64 {
		if tr.Hidden.At(i, j) > 0 {
			return g
		}
		return 0
	}, dHidden)
	return f.First.Backward(tr.X, dHidden)
}
