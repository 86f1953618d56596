package zoo

import (
	"math/rand/v2"

	"unroll/models"
)

// The copies below are for a student's own copy of a class's model (sim.Forker): each
// shares nothing the training writes with the original (weights, gradients, the
// optimiser's moments and step counts); what every model of its kind reads and never
// writes (the task, its vocabularies) stays shared.

// TrainSource is TrainRNG's source: a page that trains keeps it, so that a copy of
// the page can continue the same stream (models.CopyPCG).
func TrainSource(seed uint64) *rand.PCG { return rand.NewPCG(seed, trainStream) }

// Clone is a copy of the language model and its optimiser.
func (m *CharLM) Clone() *CharLM {
	c := models.NewCopier()
	return &CharLM{Cell: c.RNN(m.Cell), Out: c.Dense(m.Out), opt: c.Adam(m.opt)}
}

// Clone is a copy of the classifier and its optimiser; its task is shared.
func (m *GRUClassifier) Clone() *GRUClassifier {
	c := models.NewCopier()
	return &GRUClassifier{Task: m.Task, Variant: m.Variant, Cell: c.GRU(m.Cell), Out: c.Dense(m.Out), opt: c.Adam(m.opt)}
}

// Clone is a copy of the classifier and its optimiser; its task is shared.
func (m *SeqClassifier) Clone() *SeqClassifier {
	c := models.NewCopier()
	return &SeqClassifier{Task: m.Task, Cell: c.Cell(m.Cell), Out: c.Dense(m.Out), opt: c.Adam(m.opt)}
}

// Clone is a copy of the deep model and its optimiser.
func (m *MarketModel) Clone() *MarketModel {
	c := models.NewCopier()
	return &MarketModel{Kind: m.Kind, Net: c.Deep(m.Net), Out: c.Dense(m.Out), opt: c.Adam(m.opt), Clip: m.Clip, GradNorm: m.GradNorm, Clipped: m.Clipped}
}

// Clone is a copy of the skip-gram model and its optimiser.
func (m *EmbedModel) Clone() *EmbedModel {
	c := models.NewCopier()
	return &EmbedModel{SkipGram: c.SkipGram(m.SkipGram), opt: c.Adam(m.opt)}
}

// Clone is a copy of the model (both directions) and its optimiser.
func (m *FillBlank) Clone() *FillBlank {
	c := models.NewCopier()
	return &FillBlank{blankStack{Fwd: c.Cell(m.Fwd), Bwd: c.Cell(m.Bwd), Out: c.Dense(m.Out), opt: c.Adam(m.opt)}}
}

// Clone is a copy of the translator's encoder-decoder with c, which copies the
// optimiser that trains it too (the page holds that one: Translator.TrainStep takes
// it); the task and the vocabularies are shared. A translator without weights
// (WithoutWeights) copies to one without weights.
//
// It is written against Translator's fields (Task, Config, Model, Stack, Src, Tgt, and
// minibatch, TrainStep's reused buffers, which the copy does not share: it makes its
// own at its first step) and models.EncoderDecoder's; zoo's TestCloneKnowsEveryField
// fails when one is added.
func (tr *Translator) Clone(c *models.Copier) *Translator {
	out := &Translator{Task: tr.Task, Config: tr.Config, Src: tr.Src, Tgt: tr.Tgt}
	if tr.Model != nil {
		out.Model = c.EncoderDecoder(tr.Model)
	}
	if tr.Stack != nil {
		out.Stack = c.StackedSeq2Seq(tr.Stack)
	}
	return out
}
