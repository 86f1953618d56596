package models

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// embeddingInitStd is the standard deviation of a fresh embedding entry: unit variance,
// as torch.nn.Embedding does, so X_t has the scale the cells' U(−1/√h, 1/√h) weights expect.
const embeddingInitStd = 1.0

// Embedding is the lookup table E (V×e) that turns token ids into input vectors:
// row b of X_t = Embed(ids) is E[ids[b]], the one-hot vector of ids[b] times E.
type Embedding struct {
	E *Param // V×e, row v is the embedding of token v
}

// NewEmbedding returns a V×e table named name with entries drawn from
// N(0, embeddingInitStd²) = N(0, 1).
func NewEmbedding(name string, vocab, dim int, rng *rand.Rand) *Embedding {
	if vocab <= 0 || dim <= 0 {
		panic(fmt.Sprintf("models: embedding needs vocab > 0 and dim > 0, got %d and %d", vocab, dim))
	}
	e := &Embedding{E: NewParam(name, vocab, dim)}
	Normal(e.E, embeddingInitStd, rng)
	return e
}

// Params lists E.
func (e *Embedding) Params() Params { return Params{e.E} }

// Forward returns X (len(ids)×e) with X[b] = E[ids[b]].
// It panics if ids is empty or an id is outside [0, V).
func (e *Embedding) Forward(ids []int) *mat.Dense {
	vocab, dim := e.E.Value.Dims()
	if len(ids) == 0 {
		panic("models: embedding of no ids")
	}
	x := mat.NewDense(len(ids), dim, nil)
	for b, id := range ids {
		if id < 0 || id >= vocab {
			panic(fmt.Sprintf("models: token id %d at row %d outside vocabulary [0, %d)", id, b, vocab))
		}
		x.SetRow(b, e.E.Value.RawRowView(id))
	}
	return x
}

// Backward adds ∂L/∂E[v] += Σ_{b: ids[b]=v} ∂L/∂X[b] to E.Grad, so a token that
// appears several times collects every row's gradient. dOut is ∂L/∂X (len(ids)×e).
func (e *Embedding) Backward(ids []int, dOut *mat.Dense) {
	vocab, dim := e.E.Value.Dims()
	mustDims("embedding dOut", dOut, len(ids), dim)
	for b, id := range ids {
		if id < 0 || id >= vocab {
			panic(fmt.Sprintf("models: token id %d at row %d outside vocabulary [0, %d)", id, b, vocab))
		}
		grad := e.E.Grad.RawRowView(id)
		for j, g := range dOut.RawRowView(b) {
			grad[j] += g
		}
	}
}

// Dense is the output layer O = X W + b (X is B×in, W in×out, b 1×out), the
// lectures' o^{(t)} = V h^{(t)} + c written with row vectors.
type Dense struct {
	W, B *Param
}

// NewDense returns an in→out layer with parameters prefix+"W" (in×out, Xavier
// uniform) and prefix+"b" (zero bias of length out).
func NewDense(prefix string, in, out int, rng *rand.Rand) *Dense {
	if in <= 0 || out <= 0 {
		panic(fmt.Sprintf("models: dense layer needs in > 0 and out > 0, got %d and %d", in, out))
	}
	l := &Dense{W: NewParam(prefix+"W", in, out), B: NewBias(prefix+"b", out)}
	Xavier(l.W, rng)
	return l
}

// Params lists W then b.
func (l *Dense) Params() Params { return Params{l.W, l.B} }

// Forward returns O = X W + b, B×out.
func (l *Dense) Forward(x *mat.Dense) *mat.Dense {
	in, out := l.W.Value.Dims()
	rows, _ := x.Dims()
	mustDims("dense input X", x, rows, in)
	o := mat.NewDense(rows, out, nil)
	o.Mul(x, l.W.Value)
	bias := l.B.Value.RawRowView(0)
	for i := 0; i < rows; i++ {
		row := o.RawRowView(i)
		for j := range row {
			row[j] += bias[j]
		}
	}
	return o
}

// Backward takes X and dOut = ∂L/∂O (B×out), adds ∂L/∂W += Xᵀ dOut and
// ∂L/∂b += Σ_rows dOut, and returns ∂L/∂X = dOut Wᵀ.
func (l *Dense) Backward(x, dOut *mat.Dense) *mat.Dense {
	in, out := l.W.Value.Dims()
	rows, _ := x.Dims()
	mustDims("dense input X", x, rows, in)
	mustDims("dense dOut", dOut, rows, out)
	var dW mat.Dense
	dW.Mul(x.T(), dOut)
	l.W.Grad.Add(l.W.Grad, &dW)
	db := l.B.Grad.RawRowView(0)
	for i := 0; i < rows; i++ {
		for j, g := range dOut.RawRowView(i) {
			db[j] += g
		}
	}
	dX := mat.NewDense(rows, in, nil)
	dX.Mul(dOut, l.W.Value.T())
	return dX
}
