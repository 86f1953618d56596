package zoo

import (
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// This file is the GloVe model of the word-embeddings lesson, trained on the same
// corpus (data.Words) and window as the skip-gram model.

// GloVe's training settings.
const (
	gloveLR    = 0.05 // Adam's η on the full-batch J: falls steadily, no oscillation
	GloVeSteps = 300  // full-batch steps of the shared model (well under a second)
	GloVeSeed  = 3    // the shared model's seed, as the skip-gram checkpoint's
)

// GloVeModel is the lesson's GloVe model, the non-zero entries of its X and its optimiser.
type GloVeModel struct {
	*models.GloVe
	Entries []models.GloVeEntry
	opt     *models.Adam
}

// GloVeCooccurrence is X of the shipped corpus for a window: every sentence in full
// (no subsampling), each neighbour within ±window counted once.
func GloVeCooccurrence(window int) *mat.Dense {
	c := data.Words()
	return models.Cooccurrence(c.Sentences, len(c.Words), window)
}

// NewGloVeModel returns an untrained GloVe model of dimension EmbedDim over X for
// the window, with f's x_max = models.GloVeXMax and α = models.GloVeAlpha.
func NewGloVeModel(seed uint64, window int) *GloVeModel {
	rng := rand.New(rand.NewPCG(seed, 0x610e))
	X := GloVeCooccurrence(window)
	V, _ := X.Dims()
	return &GloVeModel{
		GloVe:   models.NewGloVe(V, EmbedDim, rng),
		Entries: models.GloVeEntries(X, models.GloVeXMax, models.GloVeAlpha),
		opt:     models.NewAdam(gloveLR),
	}
}

// TrainStep is one full-batch step of Adam on J; it returns J before the step.
func (m *GloVeModel) TrainStep() (float64, error) {
	m.Params().ZeroGrad()
	J, err := m.Backward(m.Entries)
	if err != nil {
		return J, err
	}
	m.opt.Step(m.Params())
	return J, nil
}

// SharedGloVe is the GloVe model trained GloVeSteps steps from GloVeSeed with the
// default window, and J before each step: trained once, shared read-only.
var SharedGloVe = sync.OnceValues(func() (*GloVeModel, []float64) {
	m := NewGloVeModel(GloVeSeed, EmbedWindow)
	curve := make([]float64, 0, GloVeSteps)
	for range GloVeSteps {
		J, err := m.TrainStep()
		if err != nil {
			panic("zoo: GloVe diverged: " + err.Error())
		}
		curve = append(curve, J)
	}
	return m, curve
})

// Clone is a deep copy of the model and its optimiser state; the entries of X,
// never written, are shared.
func (m *GloVeModel) Clone() *GloVeModel {
	c := models.NewCopier()
	return &GloVeModel{
		GloVe:   &models.GloVe{Theta: c.Param(m.Theta), E: c.Param(m.E), B: c.Param(m.B), BC: c.Param(m.BC)},
		Entries: m.Entries,
		opt:     c.Adam(m.opt),
	}
}
