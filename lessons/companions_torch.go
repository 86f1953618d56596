package lessons

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"unroll/models"
	"unroll/torchload"
	"unroll/zoo"
)

// CompanionError says that lesson slug shows no model name beside its own, and which
// it shows.
func CompanionError(slug, name string) error {
	var names []string
	for _, c := range Companions(slug) {
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("lesson %s has no model %.40q beside its own: download it without model=", slug, name)
	}
	return fmt.Errorf("lesson %s has no model %.40q beside its own; its others are %s", slug, name, strings.Join(names, ", "))
}

// PyTorchCompanion is the GRU (the lectures' form, for lecture_gru.py) or the vanilla
// RNN (for nn.py) the page compares the LSTM with, bundled for the task, unclamped,
// reading the page's input, H its H_t at the step, the page's "GRU H_t" or "RNN H_t";
// or the bundled LSTM of the other form (with peepholes beside the plain LSTM, without
// beside the peephole one), for peephole_lstm.py, H its C_t, the peephole panel's other row.
func (m *lstmModel) PyTorchCompanion(name string, step int) (PyTorchFile, error) {
	switch name {
	case "gru":
		H := stepH(m.gruRun, func(s zoo.GRUStep) []float64 { return s.H })
		return PyTorchModel{Cell: m.gru.Cell, Head: m.gru.Out, Inputs: m.ids, H: H}.program(step)
	case "rnn":
		return PyTorchModel{Cell: m.rnn.Cell, Head: m.rnn.Out, Inputs: m.ids, H: m.rnnH}.File(step)
	case "other-form":
		return PyTorchModel{Cell: m.other.Cell, Head: m.other.Out, Inputs: m.ids, H: m.otherC}.peepholeFile("C", step)
	}
	return PyTorchFile{}, CompanionError("lstm", name)
}

// PyTorchCompanion is, for nn.py, the unidirectional fill-in-the-blank model (H: its
// →H_t, the page's H_uni) or a next-word model, unidirectional or bidirectional, reading
// the whole sentence (H: the H_t its guess ŷ_t = softmax(H_t W_q + b_q) reads, →H_t or
// [→H_t, ←H_t]; the page shows only the guess).
func (m *birnnModel) PyTorchCompanion(name string, step int) (PyTorchFile, error) {
	switch name {
	case "unidirectional":
		return PyTorchModel{Cell: m.uni.Fwd, Head: m.uni.Out, Inputs: m.ids, H: m.run()[0].Fwd}.File(step)
	case "next-uni", "next-bi":
		nw := map[string]*zoo.NextWord{"next-uni": m.pair.Uni, "next-bi": m.pair.Bi}[name]
		dirs := []models.Cell{nw.Fwd}
		if nw.Bwd != nil {
			dirs = append(dirs, nw.Bwd)
		}
		return PyTorchModel{Layers: [][]models.Cell{dirs}, Head: nw.Out, Inputs: m.ids, H: nw.States(m.ids)}.File(step)
	}
	return PyTorchFile{}, CompanionError("birnn", name)
}

// PyTorchCompanion is the translator without attention of the page's task, for
// seq2seq.py, reading the page's source, its decoder fed its own greedy outputs (the
// page's "without attention"); H at its decoder step t' is P(y_t' | ŷ_<t', x).
func (m *attentionModel) PyTorchCompanion(name string, step int) (PyTorchFile, error) {
	if name != "without" {
		return PyTorchFile{}, CompanionError("attention", name)
	}
	return greedyFile(m.base, m.src.ids, step)
}

// PyTorchCompanion is the GRU with attention of the page's task, for seq2seq.py,
// reading the page's source, its decoder fed its own greedy outputs (the page's "GRU
// with attention"); H at its decoder step t' is α_t'j, then P(y_t' | ŷ_<t', x).
func (m *transformerModel) PyTorchCompanion(name string, step int) (PyTorchFile, error) {
	if name != "gru-attention" {
		return PyTorchFile{}, CompanionError("transformer", name)
	}
	return greedyFile(m.page.gru[m.task], m.src.ids, step)
}

// greedyFile is translator tr (one layer, with or without attention) reading src, its
// decoder fed its own greedy outputs, for seq2seq.py: H at decoder step t' = step (the
// last for 0 or past the end) is α_t'j (with attention), then P(y_t' | ŷ_<t', x).
func greedyFile(tr *zoo.Translator, src []int, step int) (PyTorchFile, error) {
	if tr.Model == nil {
		return PyTorchFile{}, fmt.Errorf("lessons: a stacked translator; greedyFile takes one layer")
	}
	run, err := tr.Model.FreeRun(src, tr.Task.MaxOutput)
	if err != nil {
		return PyTorchFile{}, err
	}
	step = exportStep(step, len(run.Steps))
	st := run.Steps[step-1]
	r := seq2seqRead{src: src, feeds: [][]int{outputsOf(run)}, what: seq2seqHProbs, t: step}
	return seq2seqFile(netOf(tr.Model), tr, r, step, append(slices.Clone(st.Attention), st.Probs...))
}

// peepholeScript is the LSTM page's script for an LSTM with peephole connections,
// which no nn.LSTM has: the cell written in torch, printing H_t or C_t.
const peepholeScript = "peephole_lstm.py"

// peepholeFile is p, one LSTM with or without peepholes, for peephole_lstm.py: the
// cell in nn.LSTM's layout and the head as File's (torchload.ExportStack), and its
// peephole weights as rnn.peephole_l0 = [p_i, p_f, p_o] (zeros without them); what
// ("H" or "C") says which of the cell's states p.H holds and the script prints.
func (p PyTorchModel) peepholeFile(what string, step int) (PyTorchFile, error) {
	c, ok := p.Cell.(*models.LSTM)
	if !ok || c.Clamp() != (models.GateClamp{}) {
		return PyTorchFile{}, errors.New("peephole_lstm.py computes an LSTM without a clamped gate")
	}
	plain := *c
	plain.Pi, plain.Pf, plain.Po = nil, nil, nil
	ts, _, err := torchload.ExportStack([][]models.Cell{{&plain}}, p.Head)
	if err != nil {
		return PyTorchFile{}, err
	}
	peep := make([][]float64, 3)
	for i, q := range []*models.Param{c.Pi, c.Pf, c.Po} {
		if peep[i] = make([]float64, c.HiddenSize()); q != nil {
			copy(peep[i], q.Value.RawRowView(0))
		}
	}
	ts = append(ts, torchload.Concat(torchload.ExportPrefix+"peephole_l0", peep...))
	meta := map[string]string{"input_size": strconv.Itoa(c.InputSize()), "hidden_size": strconv.Itoa(c.HiddenSize()), "H": what}
	return p.file(ts, meta, peepholeScript, step), nil
}

// PyTorchFile is the LSTM the page shows for nn.py, or, with peepholes, for
// peephole_lstm.py (H: its H_t).
func (m *lstmModel) PyTorchFile(step int) (PyTorchFile, error) {
	if m.variant == lstmPeephole {
		return m.PyTorch().peepholeFile("H", step)
	}
	return m.PyTorch().File(step)
}
