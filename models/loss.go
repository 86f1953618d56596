package models

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Softmax writes ŷ = softmax(o), ŷ_i = exp(o_i − max_j o_j) / Σ_k exp(o_k − max_j o_j),
// into dst. Subtracting the maximum changes nothing mathematically and keeps every
// exponent ≤ 0, so huge logits cannot overflow. dst may be logits itself. Entries of
// −∞ get probability 0 (attention masks use this); a row that is all −∞, or holds
// +∞ or NaN, gives NaN.
func Softmax(dst []float64, logits []float64) {
	mustSoftmaxLen("softmax", dst, logits)
	top := logitMax(logits)
	var sum float64
	for i, o := range logits {
		e := math.Exp(o - top)
		dst[i] = e
		sum += e
	}
	for i := range dst {
		dst[i] /= sum
	}
}

// Argmax is argmax_i v_i, the index of the largest entry of v (the first of equals):
// the greedy choice ŷ_t = argmax_y P(y | …). It is 0 for an empty v.
func Argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// LogSoftmax writes log ŷ_i = (o_i − m) − log Σ_k exp(o_k − m), m = max_j o_j, into dst:
// the log-sum-exp form, exact even where softmax itself would underflow to 0.
// dst may be logits itself.
func LogSoftmax(dst []float64, logits []float64) {
	mustSoftmaxLen("log-softmax", dst, logits)
	top := logitMax(logits)
	var sum float64
	for _, o := range logits {
		sum += math.Exp(o - top)
	}
	logSum := math.Log(sum)
	for i, o := range logits {
		dst[i] = (o - top) - logSum // not o − (m + logSum): that loses logSum when |m| is huge
	}
}

// SoftmaxCrossEntropy is the masked negative log-likelihood of a batch of targets,
//
//	loss = Σ_b m_b · (−log softmax(o_b)[y_b]),
//
// a sum, not a mean. logits is B×V, targets holds y_b ∈ [0, V), mask holds the weights
// m_b ≥ 0 (1 for a real token, 0 for padding; nil means all ones). It returns the loss,
// P = softmax(logits) row by row (B×V, also for masked rows) and
// ∂loss/∂o_b = m_b (P_b − onehot(y_b)); rows with m_b = 0 contribute exactly 0 to the
// loss and get an exactly zero gradient. Wrong lengths, a target outside [0, V) or a
// negative or NaN weight panic.
func SoftmaxCrossEntropy(logits *mat.Dense, targets []int, mask []float64) (loss float64, probs, dLogits *mat.Dense) {
	rows, vocab := logits.Dims()
	if len(targets) != rows {
		panic(fmt.Sprintf("models: %d targets for %d rows of logits", len(targets), rows))
	}
	if mask != nil && len(mask) != rows {
		panic(fmt.Sprintf("models: mask has %d weights for %d rows of logits", len(mask), rows))
	}
	probs = mat.NewDense(rows, vocab, nil)
	dLogits = mat.NewDense(rows, vocab, nil)
	logProbs := make([]float64, vocab)
	for b, y := range targets {
		if y < 0 || y >= vocab {
			panic(fmt.Sprintf("models: target %d at row %d outside vocabulary [0, %d)", y, b, vocab))
		}
		weight := 1.0
		if mask != nil {
			weight = mask[b]
			if !(weight >= 0) {
				panic(fmt.Sprintf("models: mask weight %v at row %d is not ≥ 0", weight, b))
			}
		}
		o := logits.RawRowView(b)
		p := probs.RawRowView(b)
		Softmax(p, o)
		if weight == 0 {
			continue // padding: no loss and an exactly zero gradient
		}
		LogSoftmax(logProbs, o)
		loss -= weight * logProbs[y]
		d := dLogits.RawRowView(b)
		for j, pj := range p {
			d[j] = weight * pj
		}
		d[y] -= weight
	}
	return loss, probs, dLogits
}

// mustSoftmaxLen panics unless dst and src are equally long and not empty.
func mustSoftmaxLen(what string, dst, src []float64) {
	if len(src) == 0 {
		panic(fmt.Sprintf("models: %s of an empty vector", what))
	}
	if len(dst) != len(src) {
		panic(fmt.Sprintf("models: %s writes %d values into %d", what, len(src), len(dst)))
	}
}

// logitMax is max_i v_i (NaN if any entry is NaN).
func logitMax(v []float64) float64 {
	top := v[0]
	for _, x := range v[1:] {
		if x > top || math.IsNaN(x) {
			top = x
		}
	}
	return top
}

// Indicator is 1[b]: 1 when b holds, else 0 (a mask entry, a 0/1 label).
func Indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Sigmoid is the logistic function σ(a) = 1/(1 + e^{−a}).
func Sigmoid(a float64) float64 { return sigmoid(a) }

// logisticEps keeps log p finite in SquaredLogisticLoss when σ(a) rounds to 0 or 1.
const logisticEps = 1e-12

// SquaredLogisticLoss is the loss of a sequence of outputs O_t (B×2) whose two
// columns are a prediction x̂ of a number x and the logit a of P(y = 1) = σ(a) for a
// label y ∈ {0, 1}, averaged over n terms:
//
//	L = (1/n) Σ_t Σ_b ½(x̂_tb − x_tb)² − (y_tb log(p_tb + ε) + (1 − y_tb) log(1 − p_tb + ε)),
//	p_tb = σ(a_tb), ε = 10⁻¹²,
//
// targets[t][b] is x_tb and labels[t][b] is y_tb. It returns the sum without the 1/n
// (the caller divides), hits, the number of rows with (p > ½) = (y = 1), and
// ∂L/∂O_t with ∂L/∂x̂ = (x̂ − x)/n and ∂L/∂a = (p − y)/n (the exact gradient of the
// loss without ε).
func SquaredLogisticLoss(outs []*mat.Dense, targets, labels [][]float64, n float64) (sum float64, hits int, dOuts []*mat.Dense) {
	if len(targets) != len(outs) || len(labels) != len(outs) {
		panic(fmt.Sprintf("models: %d targets and %d labels for %d outputs", len(targets), len(labels), len(outs)))
	}
	dOuts = make([]*mat.Dense, len(outs))
	for t, o := range outs {
		B, _ := o.Dims()
		mustDims(fmt.Sprintf("O_%d", t+1), o, B, 2)
		if len(targets[t]) != B || len(labels[t]) != B {
			panic(fmt.Sprintf("models: step %d has %d targets and %d labels for %d rows", t+1, len(targets[t]), len(labels[t]), B))
		}
		d := mat.NewDense(B, 2, nil)
		for b := range B {
			pred, logit := o.At(b, 0), o.At(b, 1)
			diff := pred - targets[t][b]
			p := sigmoid(logit)
			y := labels[t][b]
			sum += 0.5*diff*diff - (y*math.Log(p+logisticEps) + (1-y)*math.Log(1-p+logisticEps))
			if (p > 0.5) == (y == 1) {
				hits++
			}
			d.Set(b, 0, diff/n)
			d.Set(b, 1, (p-y)/n)
		}
		dOuts[t] = d
	}
	return sum, hits, dOuts
}
