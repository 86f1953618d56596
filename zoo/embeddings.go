package zoo

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// This file is the training of the word-embeddings lesson and its bundled
// checkpoint; the word corpus it trains on is data.Words.

// Sizes and training settings of the skip-gram model.
const (
	EmbedDim        = 32   // d: room for a few hundred words, small enough for the page to train live
	EmbedWindow     = 2    // default context window: up to 2 words each side (the corpus's sentences are short)
	EmbedNegatives  = 5    // default k: word2vec suggests 5–20 for small data
	embedBatch      = 128  // (centre, context) pairs per training step
	embedLR         = 0.01 // Adam's η: learns a visible map within a few hundred steps and stays stable
	embedTrainSteps = 4000 // steps cmd/train runs for the bundled checkpoint (about ten passes over the pairs)
	embedSeed       = 3    // the bundled checkpoint's seed
	embedCurveEvery = 50   // the recorded loss curve keeps the mean loss of every 50 steps
	embedFile       = "embeddings-en.safetensors"
)

// EmbedModel is the lesson's skip-gram model with its optimiser.
type EmbedModel struct {
	*models.SkipGram
	opt *models.Adam
}

// NewEmbedModel returns an untrained model over the shipped corpus's vocabulary.
func NewEmbedModel(seed uint64) *EmbedModel {
	rng := rand.New(rand.NewPCG(seed, 0x5e6))
	return &EmbedModel{SkipGram: models.NewSkipGram(len(data.Words().Words), EmbedDim, rng), opt: models.NewAdam(embedLR)}
}

// TrainStep runs one step of Adam on a batch drawn from rng and returns its loss.
func (m *EmbedModel) TrainStep(rng *rand.Rand, window, k int) (float64, error) {
	batch := data.Words().Batch(rng, embedBatch, window, k)
	m.Params().ZeroGrad()
	loss, err := m.Backward(batch)
	if err != nil {
		return loss, err
	}
	m.opt.Step(m.Params())
	return loss, nil
}

// TrainEmbeddings trains a model from seed for steps steps with the default window
// and k, and returns it with its loss curve (the mean of every embedCurveEvery steps).
func TrainEmbeddings(seed uint64, steps int) (*EmbedModel, []float64, error) {
	m := NewEmbedModel(seed)
	rng := TrainRNG(seed)
	var curve []float64
	sum := 0.0
	for s := 1; s <= steps; s++ {
		loss, err := m.TrainStep(rng, EmbedWindow, EmbedNegatives)
		if err != nil {
			return nil, nil, err
		}
		sum += loss
		if s%embedCurveEvery == 0 {
			curve = append(curve, sum/embedCurveEvery)
			sum = 0
		}
	}
	return m, curve, nil
}

// EmbedQuality is what cmd/train measures of trained embeddings and records with them.
type EmbedQuality struct {
	// SameClass is the share of content words (not function words) whose nearest
	// neighbour by cosine is of the same word class; Chance is that share for a
	// random neighbour (Σ over classes of share², the content words' mix).
	SameClass, Chance float64
	// Analogies is how many of EmbedAnalogies the top answer gets right.
	Analogies, AnalogyCount int
}

// EmbedAnalogies are the corpus's own analogy questions a → b as c → d.
var EmbedAnalogies = [][4]string{
	{"man", "woman", "boy", "girl"},
	{"boy", "girl", "man", "woman"},
	{"boy", "boys", "girl", "girls"},
	{"man", "men", "woman", "women"},
	{"cat", "cats", "dog", "dogs"},
	{"eat", "eats", "drink", "drinks"},
	{"eat", "eating", "drink", "drinking"},
	{"he", "she", "boy", "girl"},
	{"father", "mother", "man", "woman"},
}

// Quality measures m on the shipped corpus.
func (m *EmbedModel) Quality() EmbedQuality { return EmbeddingQuality(m.E.Value) }

// EmbeddingQuality measures embeddings E (a row per word of the shipped corpus).
func EmbeddingQuality(E *mat.Dense) EmbedQuality {
	c := data.Words()
	var q EmbedQuality
	share := make([]float64, len(data.WordClasses))
	content := 0
	for w, class := range c.Class {
		if class == data.ClassFunction {
			continue
		}
		content++
		share[class]++
		nn := models.Nearest(E, E.RawRowView(w), 1, w)
		if c.Class[nn[0].Word] == class {
			q.SameClass++
		}
	}
	q.SameClass /= float64(content)
	for _, n := range share {
		q.Chance += (n / float64(content)) * (n / float64(content))
	}
	for _, a := range EmbedAnalogies {
		ids := make([]int, 4)
		ok := true
		for i, w := range a {
			id, found := c.Index[w]
			ids[i], ok = id, ok && found
		}
		if !ok {
			continue
		}
		q.AnalogyCount++
		if models.Analogy(E, ids[0], ids[1], ids[2], 1)[0].Word == ids[3] {
			q.Analogies++
		}
	}
	return q
}

// embedCheckpointMeta is the metadata cmd/train records with the bundled model.
func embedCheckpointMeta(m *EmbedModel, seed uint64, steps int, curve []float64) Meta {
	q := m.Quality()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	points := make([]string, len(curve))
	for i, l := range curve {
		points[i] = f(l)
	}
	return map[string]string{
		"model": "skip-gram negative sampling", "words": strings.Join(data.Words().Words, " "),
		"dim": strconv.Itoa(EmbedDim), "window": strconv.Itoa(EmbedWindow), "negatives": strconv.Itoa(EmbedNegatives),
		"batch": strconv.Itoa(embedBatch), "lr": f(embedLR), "subsample": f(data.WordSubsample), "min_count": strconv.Itoa(data.WordMinCount),
		"seed": strconv.FormatUint(seed, 10), "steps": strconv.Itoa(steps),
		"loss_curve": strings.Join(points, ","), "loss_curve_every": strconv.Itoa(embedCurveEvery),
		"same_class_nn": f(q.SameClass), "same_class_chance": f(q.Chance),
		"analogies": fmt.Sprintf("%d/%d", q.Analogies, q.AnalogyCount),
	}
}

// embedCheckpoint loads the bundled embeddings once, the shared read-only model (see
// bundled), and checks that they were trained on today's vocabulary.
var embedCheckpoint = sync.OnceValues(func() (bundled[*EmbedModel], error) {
	b, err := loadBundled(embedFile, NewEmbedModel(0))
	if err != nil {
		return b, err
	}
	if got, want := b.meta["words"], strings.Join(data.Words().Words, " "); got != want {
		return b, fmt.Errorf("zoo: checkpoint %s was trained on another vocabulary (run go run ./cmd/train)", embedFile)
	}
	return b, nil
})

// LoadEmbedModel returns a fresh copy of the bundled trained model and its metadata.
func LoadEmbedModel() (*EmbedModel, Meta, error) {
	b, err := embedCheckpoint()
	if err != nil {
		return nil, nil, err
	}
	return b.copyOf(NewEmbedModel(0)), b.meta, nil
}

// SharedEmbedModel is LoadEmbedModel without the copy: the one loaded model, shared
// by every page that only reads it (Score, Loss, Embedding and E never write).
func SharedEmbedModel() (*EmbedModel, Meta, error) {
	b, err := embedCheckpoint()
	return b.model, b.meta, err
}
