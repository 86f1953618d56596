package lessons

import (
	"strconv"

	"unroll/models"
	"unroll/torchload"
)

// lectureGRUTensors is the lectures' GRU c (reset gate before W_hh, which no
// torch.nn.GRU computes) in nn.GRU's layout under prefix, for a script's own cell:
// weight_ih_l0 = [W_xrᵀ; W_xzᵀ; W_xhᵀ] (3h×d), weight_hh_l0 = [W_hrᵀ; W_hzᵀ; W_hhᵀ]
// (3h×h) and bias_l0 = [b_r, b_z, b_h] (3h), blocks in PyTorch's order r, z, n
// (torchload.LectureCell).
func lectureGRUTensors(prefix string, c *models.GRU) []*torchload.Tensor {
	return lectureGRULayer(prefix, 0, c)
}

// lectureGRULayer is lectureGRUTensors for layer k of a stack: weight_ih_l{k},
// weight_hh_l{k} and bias_l{k}.
func lectureGRULayer(prefix string, k int, c *models.GRU) []*torchload.Tensor {
	ts, err := torchload.LectureCell(prefix, "_l"+strconv.Itoa(k), c)
	if err != nil {
		panic("lessons: lectureGRUTensors of a reset-after GRU: export it as torch.nn.GRU")
	}
	return ts
}

// exportStep is the step an export is at: the page's step t, or T, the last, for 0
// (before the first step) or past the end.
func exportStep(step, T int) int {
	if step == 0 || step > T {
		return T
	}
	return step
}
