package models

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Mean returns the average of each sequence's word vectors, the input of the
// lecture's averaging sentiment model (seed 003): row b (of len(seqs)×e) is
// ā_b = (1/T_b) Σ_t E[seqs[b][t]]. It panics on an empty sequence or an id outside
// the vocabulary.
func (e *Embedding) Mean(seqs [][]int) *mat.Dense {
	_, dim := e.E.Value.Dims()
	out := mat.NewDense(len(seqs), dim, nil)
	for b, ids := range seqs {
		if len(ids) == 0 {
			panic(fmt.Sprintf("models: mean embedding of an empty sequence (row %d)", b))
		}
		row := out.RawRowView(b)
		x := e.Forward(ids)
		for t := range ids {
			for j, v := range x.RawRowView(t) {
				row[j] += v
			}
		}
		inv := 1 / float64(len(ids))
		for j := range row {
			row[j] *= inv
		}
	}
	return out
}

// MeanBackward is Mean's backward pass: given dMean = ∂L/∂ā (len(seqs)×e) it adds
// ∂L/∂E[v] += Σ_b (n_b(v)/T_b) ∂L/∂ā_b to E.Grad, where n_b(v) counts v in sequence b.
func (e *Embedding) MeanBackward(seqs [][]int, dMean *mat.Dense) {
	_, dim := e.E.Value.Dims()
	mustDims("mean embedding dOut", dMean, len(seqs), dim)
	for b, ids := range seqs {
		if len(ids) == 0 {
			panic(fmt.Sprintf("models: mean embedding of an empty sequence (row %d)", b))
		}
		d := mat.NewDense(len(ids), dim, nil)
		inv := 1 / float64(len(ids))
		for t := range ids {
			row := d.RawRowView(t)
			for j, g := range dMean.RawRowView(b) {
				row[j] = g * inv
			}
		}
		e.Backward(ids, d)
	}
}
