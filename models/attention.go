package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// AdditiveAttention is the alignment model of Bahdanau et al. (2015), lecture 002:
// for a query s_{i−1} (the decoder's previous hidden state) and keys h_1 … h_T (the
// encoder's hidden states, which are also the values),
//
//	e_ij = f_θ(s_{i−1}, h_j) = tanh(s_{i−1} W_q + h_j W_k) vᵀ
//	α_ij = exp(e_ij) / Σ_k exp(e_ik)
//	c_i  = Σ_j α_ij h_j
//
// so f_θ is a one-hidden-layer feed-forward network with a hidden units, trained with
// the rest of the model. Keys past an example's valid length (padding) are masked:
// their weight α_ij is exactly 0.
type AdditiveAttention struct {
	Wq *Param // W_q, q×a: projects the query s_{i−1}
	Wk *Param // W_k, k×a: projects each key h_j
	V  *Param // v, length a (stored 1×a): reduces tanh(…) to the score e_ij
}

// NewAdditiveAttention returns an alignment model for queries of size q, keys of size
// k and a hidden units, with W_q ~ U(±1/√q), W_k ~ U(±1/√k), v ~ U(±1/√a), the
// fan-in scaling the cells use.
func NewAdditiveAttention(q, k, a int, rng *rand.Rand) *AdditiveAttention {
	if q <= 0 || k <= 0 || a <= 0 {
		panic(fmt.Sprintf("models: additive attention needs q, k, a > 0, got %d, %d, %d", q, k, a))
	}
	att := &AdditiveAttention{Wq: NewParam("W_q", q, a), Wk: NewParam("W_k", k, a), V: NewBias("v", a)}
	att.Wq.Uniform(1/math.Sqrt(float64(q)), rng)
	att.Wk.Uniform(1/math.Sqrt(float64(k)), rng)
	att.V.Uniform(1/math.Sqrt(float64(a)), rng)
	return att
}

// Params lists W_q, W_k, v.
func (a *AdditiveAttention) Params() Params { return Params{a.Wq, a.Wk, a.V} }

// AttentionTrace is one attention step for a batch: everything Forward computed, kept
// for Backward and for the pages (Weights row b is the heatmap row of example b).
type AttentionTrace struct {
	Query    *mat.Dense   // s_{i−1}, B×q
	Keys     []*mat.Dense // h_j for j = 1…T, each B×k; also the values
	ValidLen []int        // per example, the number of real (unmasked) keys
	Hidden   []*mat.Dense // tanh(s_{i−1} W_q + h_j W_k), T entries of B×a
	Scores   *mat.Dense   // e_ij, B×T; masked entries hold 0 and are not used
	Weights  *mat.Dense   // α_ij, B×T; each row sums to 1 over its valid keys, 0 elsewhere
	Context  *mat.Dense   // c_i = Σ_j α_ij h_j, B×k
}

// Forward computes the context c_i for a batch of queries (B×q) over keys (T entries
// of B×k). validLen[b] ∈ [0, T] is example b's number of real keys; nil means all T.
// An example with no valid key gets zero weights and a zero context.
func (a *AdditiveAttention) Forward(query *mat.Dense, keys []*mat.Dense, validLen []int) *AttentionTrace {
	q, hidden := a.Wq.Value.Dims()
	k, _ := a.Wk.Value.Dims()
	batch, _ := query.Dims()
	mustDims("attention query", query, batch, q)
	if len(keys) == 0 {
		panic("models: attention over no keys")
	}
	for j, h := range keys {
		mustDims(fmt.Sprintf("attention key %d", j+1), h, batch, k)
	}
	lens := attentionValidLen(validLen, batch, len(keys))

	tr := &AttentionTrace{
		Query:    query,
		Keys:     keys,
		ValidLen: lens,
		Hidden:   make([]*mat.Dense, len(keys)),
		Scores:   mat.NewDense(batch, len(keys), nil),
		Weights:  mat.NewDense(batch, len(keys), nil),
		Context:  mat.NewDense(batch, k, nil),
	}
	var projected mat.Dense // s_{i−1} W_q, shared by every key
	projected.Mul(query, a.Wq.Value)
	v := a.V.Value.RawRowView(0)
	for j, h := range keys {
		u := mat.NewDense(batch, hidden, nil)
		u.Mul(h, a.Wk.Value)
		u.Add(u, &projected)
		u.Apply(func(_, _ int, z float64) float64 { return math.Tanh(z) }, u)
		tr.Hidden[j] = u
		for b := 0; b < batch; b++ {
			if j < lens[b] {
				tr.Scores.Set(b, j, floatsDot(u.RawRowView(b), v))
			}
		}
	}
	for b := 0; b < batch; b++ {
		n := lens[b]
		if n == 0 {
			continue
		}
		Softmax(tr.Weights.RawRowView(b)[:n], tr.Scores.RawRowView(b)[:n])
		c := tr.Context.RawRowView(b)
		for j := 0; j < n; j++ {
			alpha := tr.Weights.At(b, j)
			for m, hv := range keys[j].RawRowView(b) {
				c[m] += alpha * hv
			}
		}
	}
	return tr
}

// Backward takes ∂L/∂c_i (B×k) for the step tr, adds ∂L/∂W_q, ∂L/∂W_k and ∂L/∂v to
// the parameters' gradients and returns ∂L/∂s_{i−1} (B×q) and ∂L/∂h_j (T entries of
// B×k). With δα_ij = ∂L/∂c_i · h_j, the softmax gives
// ∂L/∂e_ij = α_ij (δα_ij − Σ_k α_ik δα_ik), zero on masked keys; each h_j collects both
// its value path α_ij ∂L/∂c_i and its score path.
func (a *AdditiveAttention) Backward(tr *AttentionTrace, dContext *mat.Dense) (dQuery *mat.Dense, dKeys []*mat.Dense) {
	q, hidden := a.Wq.Value.Dims()
	k, _ := a.Wk.Value.Dims()
	batch, _ := tr.Query.Dims()
	mustDims("attention dContext", dContext, batch, k)
	steps := len(tr.Keys)

	dScores := mat.NewDense(batch, steps, nil)
	dAlpha := make([]float64, steps)
	for b := 0; b < batch; b++ {
		n := tr.ValidLen[b]
		dc := dContext.RawRowView(b)
		var weighted float64 // Σ_k α_ik δα_ik
		for j := 0; j < n; j++ {
			dAlpha[j] = floatsDot(dc, tr.Keys[j].RawRowView(b))
			weighted += tr.Weights.At(b, j) * dAlpha[j]
		}
		for j := 0; j < n; j++ {
			dScores.Set(b, j, tr.Weights.At(b, j)*(dAlpha[j]-weighted))
		}
	}

	v := a.V.Value.RawRowView(0)
	dv := a.V.Grad.RawRowView(0)
	dProjected := mat.NewDense(batch, hidden, nil) // Σ_j ∂L/∂z_j, z_j = s W_q + h_j W_k
	dKeys = make([]*mat.Dense, steps)
	for j, u := range tr.Hidden {
		dz := mat.NewDense(batch, hidden, nil)
		for b := 0; b < batch; b++ {
			de := dScores.At(b, j)
			if de == 0 {
				continue
			}
			ub, dzb := u.RawRowView(b), dz.RawRowView(b)
			for m := range dzb {
				dv[m] += de * ub[m]
				dzb[m] = de * v[m] * (1 - ub[m]*ub[m])
			}
		}
		dProjected.Add(dProjected, dz)
		var dWk mat.Dense
		dWk.Mul(tr.Keys[j].T(), dz)
		a.Wk.Grad.Add(a.Wk.Grad, &dWk)

		dh := mat.NewDense(batch, k, nil)
		dh.Mul(dz, a.Wk.Value.T())
		for b := 0; b < batch; b++ {
			if alpha := tr.Weights.At(b, j); alpha != 0 {
				row := dh.RawRowView(b)
				for m, g := range dContext.RawRowView(b) {
					row[m] += alpha * g
				}
			}
		}
		dKeys[j] = dh
	}
	var dWq mat.Dense
	dWq.Mul(tr.Query.T(), dProjected)
	a.Wq.Grad.Add(a.Wq.Grad, &dWq)
	dQuery = mat.NewDense(batch, q, nil)
	dQuery.Mul(dProjected, a.Wq.Value.T())
	return dQuery, dKeys
}

// attentionValidLen checks validLen (nil: every example has all T keys) and returns
// one length per example.
func attentionValidLen(validLen []int, batch, steps int) []int {
	if validLen == nil {
		lens := make([]int, batch)
		for b := range lens {
			lens[b] = steps
		}
		return lens
	}
	if len(validLen) != batch {
		panic(fmt.Sprintf("models: %d valid lengths for a batch of %d", len(validLen), batch))
	}
	for b, n := range validLen {
		if n < 0 || n > steps {
			panic(fmt.Sprintf("models: valid length %d of example %d outside [0, %d]", n, b, steps))
		}
	}
	return validLen
}

// floatsDot is Σ_m x_m y_m.
func floatsDot(x, y []float64) float64 {
	var s float64
	for m, xv := range x {
		s += xv * y[m]
	}
	return s
}

// KeyMask reports whether query i may attend to key j. A masked score is set to −∞
// before the softmax (lecture 002), so its weight is exactly 0. A nil KeyMask allows
// every key.
type KeyMask func(i, j int) bool

// PaddingMask allows keys j < validLen: the first validLen keys are real tokens and the
// rest are padding.
func PaddingMask(validLen int) KeyMask {
	return func(_, j int) bool { return j < validLen }
}

// CausalMask allows keys j ≤ i: decoder self-attention, where position i attends to
// every position up to and including itself (lecture 002).
func CausalMask(i, j int) bool { return j <= i }

// ScaledDotProduct is the Transformer's attention (lecture 002),
//
//	Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V,
//
// for n queries Q (n×d_k), m keys K (m×d_k) and values V (m×d_v). It returns the
// output (n×d_v) and the weights A = softmax(…) (n×m), whose row i sums to 1 over the
// keys mask allows and is exactly 0 on the others; a query with no allowed key gets a
// zero row and a zero output.
func ScaledDotProduct(Q, K, V *mat.Dense, mask KeyMask) (out, weights *mat.Dense) {
	_, dk := Q.Dims()
	return DotProductAttention(Q, K, V, mask, 1/math.Sqrt(float64(dk)))
}

// DotProductAttention is softmax(s · Q Kᵀ) V with the scores' factor s given:
// ScaledDotProduct with s = 1/√d_k, or s = 1 for the unscaled dot product whose
// softmax saturates as d_k grows (lecture 002's "to control the skew"). Shapes, mask
// and results are ScaledDotProduct's.
func DotProductAttention(Q, K, V *mat.Dense, mask KeyMask, scale float64) (out, weights *mat.Dense) {
	n, dk := Q.Dims()
	m, _ := K.Dims()
	_, dv := V.Dims()
	mustDims("attention K", K, m, dk)
	mustDims("attention V", V, m, dv)
	var scores mat.Dense
	scores.Mul(Q, K.T())
	weights = mat.NewDense(n, m, nil)
	allowed := make([]float64, 0, m)
	for i := 0; i < n; i++ {
		allowed = allowed[:0]
		for j := 0; j < m; j++ {
			if mask == nil || mask(i, j) {
				allowed = append(allowed, scale*scores.At(i, j))
			}
		}
		if len(allowed) == 0 {
			continue
		}
		Softmax(allowed, allowed)
		next := 0
		for j := 0; j < m; j++ {
			if mask == nil || mask(i, j) {
				weights.Set(i, j, allowed[next])
				next++
			}
		}
	}
	out = mat.NewDense(n, dv, nil)
	out.Mul(weights, V)
	return out, weights
}

// ScaledDotProductBackward is the backward pass of ScaledDotProduct: given the inputs,
// the weights A it returned and ∂L/∂out, with S = Q Kᵀ / √d_k,
//
//	∂L/∂V = Aᵀ ∂L/∂out,   ∂L/∂A = ∂L/∂out Vᵀ,
//	∂L/∂S_ij = A_ij (∂L/∂A_ij − Σ_k A_ik ∂L/∂A_ik),
//	∂L/∂Q = ∂L/∂S K / √d_k,   ∂L/∂K = (∂L/∂S)ᵀ Q / √d_k.
//
// Masked entries have A_ij = 0, so they pass no gradient; the mask is not needed.
func ScaledDotProductBackward(Q, K, V, weights, dOut *mat.Dense) (dQ, dK, dV *mat.Dense) {
	_, dk := Q.Dims()
	return DotProductAttentionBackward(Q, K, V, weights, dOut, 1/math.Sqrt(float64(dk)))
}

// DotProductAttentionBackward is the backward pass of DotProductAttention with the
// same factor s: ScaledDotProductBackward's formulas with 1/√d_k replaced by s.
func DotProductAttentionBackward(Q, K, V, weights, dOut *mat.Dense, scale float64) (dQ, dK, dV *mat.Dense) {
	n, dk := Q.Dims()
	m, _ := K.Dims()
	_, dv := V.Dims()
	mustDims("attention K", K, m, dk)
	mustDims("attention V", V, m, dv)
	mustDims("attention weights", weights, n, m)
	mustDims("attention dOut", dOut, n, dv)

	dV = mat.NewDense(m, dv, nil)
	dV.Mul(weights.T(), dOut)
	var dWeights mat.Dense
	dWeights.Mul(dOut, V.T())
	dScores := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		w, dw := weights.RawRowView(i), dWeights.RawRowView(i)
		weighted := floatsDot(w, dw)
		row := dScores.RawRowView(i)
		for j := range row {
			row[j] = w[j] * (dw[j] - weighted)
		}
	}
	dQ = mat.NewDense(n, dk, nil)
	dQ.Mul(dScores, K)
	dQ.Scale(scale, dQ)
	dK = mat.NewDense(m, dk, nil)
	dK.Mul(dScores.T(), Q)
	dK.Scale(scale, dK)
	return dQ, dK, dV
}
