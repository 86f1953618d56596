package models

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Copier deep-copies a model's parts, for a student's own copy of a class's model
// (sim.Forker): weights, gradients and an optimiser's state. Every matrix it meets is
// copied once, so parts that shared a matrix share its copy: the Params.WithPrefix
// copies a model lists, and Adam's moments, which are keyed by the value matrices.
// Copy a model and its optimiser with the same Copier. The copies share nothing with
// the originals.
type Copier struct {
	matrices map[*mat.Dense]*mat.Dense
}

// NewCopier returns a Copier that has copied nothing yet.
func NewCopier() *Copier { return &Copier{matrices: map[*mat.Dense]*mat.Dense{}} }

// Matrix is m's copy (nil for nil, an empty matrix for an empty one).
func (c *Copier) Matrix(m *mat.Dense) *mat.Dense {
	if m == nil {
		return nil
	}
	if out, ok := c.matrices[m]; ok {
		return out
	}
	out := &mat.Dense{}
	if !m.IsEmpty() {
		out = mat.DenseCopyOf(m)
	}
	c.matrices[m] = out
	return out
}

// Param is p's copy: its value and gradient copied (Matrix), its name and shape kept.
func (c *Copier) Param(p *Param) *Param {
	if p == nil {
		return nil
	}
	out := *p
	out.Value, out.Grad = c.Matrix(p.Value), c.Matrix(p.Grad)
	return &out
}

// Params copies each parameter of ps (Param).
func (c *Copier) Params(ps Params) Params {
	if ps == nil {
		return nil
	}
	out := make(Params, len(ps))
	for i, p := range ps {
		out[i] = c.Param(p)
	}
	return out
}

// RNN is a copy of the vanilla cell, its leak α kept.
func (c *Copier) RNN(r *RNN) *RNN {
	out := *r
	out.Wxh, out.Whh, out.Bh = c.Param(r.Wxh), c.Param(r.Whh), c.Param(r.Bh)
	return &out
}

// GRU is a copy of the GRU cell, its form (reset-after) and clamp kept.
func (c *Copier) GRU(g *GRU) *GRU {
	out := *g
	out.Wxr, out.Whr, out.Br = c.Param(g.Wxr), c.Param(g.Whr), c.Param(g.Br)
	out.Wxz, out.Whz, out.Bz = c.Param(g.Wxz), c.Param(g.Whz), c.Param(g.Bz)
	out.Wxh, out.Whh, out.Bh = c.Param(g.Wxh), c.Param(g.Whh), c.Param(g.Bh)
	out.Bhn = c.Param(g.Bhn)
	return &out
}

// LSTM is a copy of the LSTM cell, its clamp kept.
func (c *Copier) LSTM(l *LSTM) *LSTM {
	out := *l
	out.Wxi, out.Whi, out.Bi = c.Param(l.Wxi), c.Param(l.Whi), c.Param(l.Bi)
	out.Wxf, out.Whf, out.Bf = c.Param(l.Wxf), c.Param(l.Whf), c.Param(l.Bf)
	out.Wxo, out.Who, out.Bo = c.Param(l.Wxo), c.Param(l.Who), c.Param(l.Bo)
	out.Wxc, out.Whc, out.Bc = c.Param(l.Wxc), c.Param(l.Whc), c.Param(l.Bc)
	if l.Peephole() {
		out.Pi, out.Pf, out.Po = c.Param(l.Pi), c.Param(l.Pf), c.Param(l.Po)
	}
	return &out
}

// Cell is a copy of a cell of any kind this package defines (nil for nil). Another
// implementation of Cell panics: it needs a case here.
func (c *Copier) Cell(cell Cell) Cell {
	switch x := cell.(type) {
	case nil:
		return nil
	case *RNN:
		return c.RNN(x)
	case *GRU:
		return c.GRU(x)
	case *LSTM:
		return c.LSTM(x)
	}
	panic(fmt.Sprintf("models: Copier cannot copy a cell of type %T", cell))
}

// Dense is a copy of the output layer.
func (c *Copier) Dense(l *Dense) *Dense {
	if l == nil {
		return nil
	}
	return &Dense{W: c.Param(l.W), B: c.Param(l.B)}
}

// Embedding is a copy of the lookup table.
func (c *Copier) Embedding(e *Embedding) *Embedding {
	if e == nil {
		return nil
	}
	return &Embedding{E: c.Param(e.E)}
}

// Attention is a copy of the alignment model.
func (c *Copier) Attention(a *AdditiveAttention) *AdditiveAttention {
	if a == nil {
		return nil
	}
	return &AdditiveAttention{Wq: c.Param(a.Wq), Wk: c.Param(a.Wk), V: c.Param(a.V)}
}

// Deep is a copy of the stack, layer by layer.
func (c *Copier) Deep(d *Deep) *Deep {
	out := &Deep{Layers: make([]Cell, len(d.Layers))}
	for i, l := range d.Layers {
		out.Layers[i] = c.Cell(l)
	}
	return out
}

// SkipGram is a copy of the skip-gram model.
func (c *Copier) SkipGram(s *SkipGram) *SkipGram {
	return &SkipGram{E: c.Param(s.E), Theta: c.Param(s.Theta)}
}

// EncoderDecoder is a copy of the encoder-decoder: its layers, and its parameter list
// sharing the copied layers' matrices as the original's shares the original's.
func (c *Copier) EncoderDecoder(m *EncoderDecoder) *EncoderDecoder {
	out := *m
	out.SrcEmbed, out.TgtEmbed = c.Embedding(m.SrcEmbed), c.Embedding(m.TgtEmbed)
	out.Encoder, out.Decoder = c.Cell(m.Encoder), c.Cell(m.Decoder)
	out.Attention = c.Attention(m.Attention)
	out.Out = c.Dense(m.Out)
	out.params = c.Params(m.params)
	return &out
}

// StackedSeq2Seq is a copy of the multilayer encoder-decoder, every layer's weights
// and gradients its own.
func (c *Copier) StackedSeq2Seq(m *StackedSeq2Seq) *StackedSeq2Seq {
	out := *m
	out.SrcEmbed, out.TgtEmbed = c.Embedding(m.SrcEmbed), c.Embedding(m.TgtEmbed)
	out.Encoder, out.Decoder = make([]Cell, len(m.Encoder)), make([]Cell, len(m.Decoder))
	for l := range m.Encoder {
		out.Encoder[l], out.Decoder[l] = c.Cell(m.Encoder[l]), c.Cell(m.Decoder[l])
	}
	out.Out = c.Dense(m.Out)
	return &out
}

// Adam is a copy of the optimiser: its settings, and each parameter's moments and
// step count, keyed by the copies of the value matrices (nil for nil).
func (c *Copier) Adam(o *Adam) *Adam {
	if o == nil {
		return nil
	}
	out := *o
	if o.moments != nil {
		out.moments = make(map[*mat.Dense]*adamMoments, len(o.moments))
		for value, st := range o.moments {
			out.moments[c.Matrix(value)] = &adamMoments{m: slices.Clone(st.m), v: slices.Clone(st.v), t: st.t}
		}
	}
	return &out
}

// CopyPCG is a copy of a random source at its position: both then draw the same
// numbers. A *rand.Rand draws from its source and holds nothing else, so a copy of a
// stream is rand.New(CopyPCG(its source)).
func CopyPCG(p *rand.PCG) *rand.PCG {
	if p == nil {
		return nil
	}
	state, err := p.MarshalBinary()
	if err != nil {
		panic(err) // PCG's MarshalBinary does not fail
	}
	out := &rand.PCG{}
	if err := out.UnmarshalBinary(state); err != nil {
		panic(err)
	}
	return out
}
