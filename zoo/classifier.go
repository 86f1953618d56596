package zoo

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// trainClassifier is one training step of a per-step classifier (a recurrent cell and
// the output layer ŷ_t = softmax(H_t W_q + b_q)) on a minibatch of task: the forward
// pass step by step from H_0 = 0, the mean cross-entropy over the labelled steps,
// BPTT, clipping at gruClip and one step of opt. It returns the loss and the share of
// labelled steps answered right. The GRU, LSTM and RNN task models all train this way.
func trainClassifier(task *data.Task, cell models.Cell, out *models.Dense, ps models.Params, opt models.Optimizer, rng *rand.Rand) (loss, accuracy float64) {
	return trainClassifierWith(task, cell, out, ps, opt, rng, nil)
}

// stateCost is an extra term of a training loss that depends on the forward trace
// only (not on the targets): it returns its value and adds its gradient, to the
// parameters' Grad and to dH[t] = ∂L/∂H_{t+1} for the hidden states it reads.
type stateCost func(tr *models.Trace, dH []*mat.Dense) float64

// trainClassifierWith is trainClassifier with cost (if not nil) added to the loss.
func trainClassifierWith(task *data.Task, cell models.Cell, out *models.Dense, ps models.Params, opt models.Optimizer, rng *rand.Rand, cost stateCost) (loss, accuracy float64) {
	ids, ys := task.Batch(rng, gruBatch)
	T := len(ids[0])
	ps.ZeroGrad()
	tr := TraceOf(cell, ids, func(t int) *mat.Dense { return task.TrainInput(ids, t, rng) })
	count := 0
	for _, y := range ys {
		for _, v := range y {
			if v >= 0 {
				count++
			}
		}
	}
	targets := make([]int, gruBatch)
	mask := make([]float64, gruBatch)
	dH := make([]*mat.Dense, T)
	hits := 0
	for t := range T {
		for b := range gruBatch {
			targets[b], mask[b] = max(ys[b][t], 0), models.Indicator(ys[b][t] >= 0)
		}
		H := tr.Steps[t].Next.H
		l, probs, dLogits := models.SoftmaxCrossEntropy(out.Forward(H), targets, mask)
		loss += l
		for b := range gruBatch {
			if mask[b] > 0 && models.Argmax(probs.RawRowView(b)) == targets[b] {
				hits++
			}
		}
		dLogits.Scale(1/float64(count), dLogits)
		dH[t] = out.Backward(H, dLogits)
	}
	loss /= float64(count)
	if cost != nil {
		loss += cost(tr, dH)
	}
	models.Backward(cell, tr, dH, models.BPTTOptions{})
	models.ClipGradNorm(ps, gruClip)
	opt.Step(ps)
	return loss, float64(hits) / float64(count)
}

// evaluate returns the share of the labelled steps of seqs whose y_t is the argmax of
// ŷ_t = probs(ids)[t], and the share of sequences whose last step is answered right
// (the lecture's end-of-sequence question).
func evaluate(task *data.Task, seqs [][]int, probs func(ids []int) [][]float64) (stepAcc, finalAcc float64) {
	hits, count, finalHits := 0, 0, 0
	for _, ids := range seqs {
		ps := probs(ids)
		ys := task.Targets(ids)
		for t, y := range ys {
			if y < 0 {
				continue
			}
			count++
			if models.Argmax(ps[t]) != y {
				continue
			}
			hits++
			if t == len(ys)-1 {
				finalHits++
			}
		}
	}
	return float64(hits) / float64(count), float64(finalHits) / float64(len(seqs))
}
