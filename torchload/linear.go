package torchload

import (
	"slices"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// LinearWeight is the weight of a torch.nn.Linear (out × in, as PyTorch stores it)
// that computes x [B_1 … B_k] for blocks B_j of in rows each: x W becomes W xᵀ, so
// row r of the weight is column r of the concatenated blocks. It is how PyTorch stacks
// the gate blocks of nn.GRU's weight_ih, and the heads W_1^Q … W_h^Q of an attention's
// query projection.
func LinearWeight(name string, blocks ...*mat.Dense) *Tensor {
	in, _ := blocks[0].Dims()
	t := &Tensor{Name: name, Dtype: F64}
	for _, b := range blocks {
		r, c := b.Dims()
		if r != in {
			panic("torchload: blocks of a linear weight read different input sizes") // a bug of the caller
		}
		for j := range c {
			for i := range in {
				t.Data = append(t.Data, b.At(i, j))
			}
		}
	}
	t.Shape = []int{len(t.Data) / in, in}
	return t
}

// Concat is the 1-D tensor of the parts one after another (a stack of gate biases).
func Concat(name string, parts ...[]float64) *Tensor {
	t := &Tensor{Name: name, Dtype: F64}
	for _, p := range parts {
		t.Data = append(t.Data, p...)
	}
	t.Shape = []int{len(t.Data)}
	return t
}

// Vector is p's one row as a 1-D tensor: a bias, or a layer norm's γ or β.
func Vector(name string, p *models.Param) *Tensor {
	return &Tensor{Name: name, Shape: []int{p.Value.RawMatrix().Cols}, Dtype: F64, Data: slices.Clone(p.Value.RawRowView(0))}
}

// Linear is the state_dict of the torch.nn.Linear that computes d's x W + b, under
// prefix: prefix+"weight" (Wᵀ, out × in) and prefix+"bias".
func Linear(prefix string, d *models.Dense) []*Tensor {
	return []*Tensor{LinearWeight(prefix+"weight", d.W.Value), Vector(prefix+"bias", d.B)}
}

// Matrix is p as a 2-D tensor, rows as they are (an nn.Embedding's weight, V × e).
func Matrix(name string, p *models.Param) *Tensor {
	r, c := p.Value.Dims()
	return &Tensor{Name: name, Shape: []int{r, c}, Dtype: F64, Data: mat.DenseCopyOf(p.Value).RawMatrix().Data}
}
