package lessons

import (
	"fmt"
	"slices"

	"unroll/torchload"
	"unroll/zoo"
)

// rnnArchScript computes architecture B, whose recurrence runs from the output, which
// no torch.nn module computes.
const rnnArchScript = "rnn_arch.py"

// PyTorchCompanion is architecture B ("arch-b") or C ("arch-c") reading the page's
// characters, at the page's step (0 or past the end: the last).
func (m *rnnModel) PyTorchCompanion(name string, step int) (PyTorchFile, error) {
	steps := m.run()
	inputs := m.inputs()[:len(steps)]
	switch name {
	case "arch-b":
		return m.archBFile(inputs, step), nil
	case "arch-c": // H_t = tanh(X_t W_xh + H_{t-1} W_hh + b_h), ŷ = softmax(H_T W_hq + b_q): nn.RNN and a head
		return PyTorchModel{Cell: m.archC.Cell, Head: m.archC.Out, Inputs: inputs,
			H: stepH(m.stepsC, func(s zoo.ArchStep) []float64 { return s.H })}.File(step)
	}
	return PyTorchFile{}, fmt.Errorf("the RNN page has no model %q beside its own", name)
}

// archBFile is architecture B, H_t = tanh(X_t W_xh + ŷ_{t-1} W_oh + b_h) and
// ŷ_t = softmax(H_t W_hq + b_q), for lessons/pytorch/rnn_arch.py: its one layer over
// [X_t, ŷ_{t-1}] as torch.nn.Linear (in.weight = [W_xh; W_oh]ᵀ, in.bias = b_h), the
// output layer as torch.nn.Linear (out.*), the inputs in the metadata. H is the page's
// H_t and ŷ_t at its step.
func (m *rnnModel) archBFile(inputs []int, step int) PyTorchFile {
	ts := append(torchload.Linear("in.", m.archB.In), torchload.Linear("out.", m.archB.Out)...)
	p := PyTorchModel{Inputs: inputs, H: stepH(m.stepsB, func(s zoo.ArchStep) []float64 { return slices.Concat(s.H, s.Probs) })}
	return p.file(ts, map[string]string{}, rnnArchScript, step)
}
