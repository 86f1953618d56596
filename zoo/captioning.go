package zoo

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"unroll/data"
	"unroll/models"
)

// Sizes and training settings of the captioning models (seed 002, vector to
// sequence; seed 003, image captioning). The three approaches share all of them;
// only the seed differs, so that cmd/train's three runs are independent.
const (
	CaptionEmbed  = 16 // e: 19 words of the grammar and the special tokens
	CaptionHidden = 32 // h, and x's size: a colour, a kind and a cell for up to two shapes
	captionBatch  = 32
	captionLR     = 0.005 // Adam's η
	captionClip   = 5     // θ for clipping the global gradient norm
	// CaptionSteps is each model's minibatches: 15–37 s each, measured on 2 shared cores
	CaptionSteps = 3000
	// captionLossHead is how many first losses the checkpoint records, which
	// TestCaptionCheckpoints retrains and compares step for step.
	captionLossHead = 40
	// CaptionMaxSteps bounds a generated caption: the longest caption of the grammar
	// and <eos>, and as many again for an untrained model's rambling.
	CaptionMaxSteps = 2 * (data.CaptionMaxLen + 1)
)

// captionSeeds is each approach's training seed, by approach 1, 2, 3.
var captionSeeds = map[models.CaptionApproach]uint64{models.CaptionInitial: 21, models.CaptionEveryStep: 22, models.CaptionBoth: 23}

// CaptionName is the bundled model of an approach: "captioning-1", -2, -3.
func CaptionName(a models.CaptionApproach) string { return fmt.Sprintf("captioning-%d", int(a)) }

func captionFile(a models.CaptionApproach) string { return CaptionName(a) + ".safetensors" }

func captionFiles() []string {
	var out []string
	for _, a := range models.CaptionApproaches {
		out = append(out, captionFile(a))
	}
	return out
}

// NewCaptionModel returns an untrained captioner of an approach with weights from seed.
func NewCaptionModel(a models.CaptionApproach, seed uint64) *models.Captioner {
	return models.NewCaptioner(models.CaptionConfig{Approach: a, Pixels: data.SceneInputSize,
		Vocab: data.CaptionVocab.Len(), Embed: CaptionEmbed, Hidden: CaptionHidden, Seed: seed})
}

// captionBatchOf draws a training minibatch: images and their captions with <eos>.
func captionBatchOf(rng *rand.Rand) ([][]float64, [][]int) {
	imgs, caps := make([][]float64, captionBatch), make([][]int, captionBatch)
	for b := range imgs {
		s := data.DrawScene(rng)
		imgs[b], caps[b] = s.Render(), s.CaptionIDs()
	}
	return imgs, caps
}

// trainCaption trains one approach from seed for steps minibatches and returns the
// model and every step's loss.
func trainCaption(a models.CaptionApproach, seed uint64, steps int) (*models.Captioner, []float64) {
	m := NewCaptionModel(a, seed)
	opt := models.NewAdam(captionLR)
	var curve []float64
	trainSteps(seed, steps, func(rng *rand.Rand) float64 {
		imgs, caps := captionBatchOf(rng)
		loss, err := m.TrainStep(imgs, caps, opt, captionClip)
		if err != nil {
			panic(err) // rendered images and captions of the grammar are always valid
		}
		curve = append(curve, loss)
		return loss
	})
	return m, curve
}

// CaptionScore is a captioner's greedy captions of a set of images scored against the
// grammar's: corpus BLEU (uniform weights, N = 4, one reference each) and exact match.
// Exact match is also split by the number of shapes: single shapes are 2 % of the
// world, and a held-out one is a colour, kind and cell never seen together.
type CaptionScore struct {
	BLEU, Exact        float64
	N                  int
	ExactOne, ExactTwo float64 // exact match on the images with one shape, with two
	NOne, NTwo         int
}

// Caption is the model's greedy caption of an image, in words.
func Caption(m *models.Captioner, s data.Scene) []string {
	tr, err := m.Greedy(s.Render(), CaptionMaxSteps)
	if err != nil {
		panic(err)
	}
	return data.CaptionVocab.Tokens(tr.Words())
}

// ScoreCaptions captions every image of set greedily and scores the captions.
func ScoreCaptions(m *models.Captioner, set []data.Scene) CaptionScore {
	cands, refs := make([][]string, len(set)), make([][][]string, len(set))
	var sc CaptionScore
	var hits [sceneSizes]int
	var count [sceneSizes]int
	for i, s := range set {
		cands[i], refs[i] = Caption(m, s), [][]string{s.Caption()}
		count[len(s.Shapes)]++
		if strings.Join(cands[i], " ") == s.CaptionText() {
			hits[len(s.Shapes)]++
		}
	}
	res, err := models.CorpusBLEUTokens(cands, refs, models.BLEUOptions{MaxN: 4, Weights: models.WeightsUniform})
	if err != nil {
		panic(err) // one reference per candidate, valid options
	}
	sc.BLEU, sc.N = res.BLEU, len(set)
	sc.Exact = float64(hits[1]+hits[2]) / float64(len(set))
	sc.NOne, sc.NTwo = count[1], count[2]
	sc.ExactOne, sc.ExactTwo = share(hits[1], count[1]), share(hits[2], count[2])
	return sc
}

// sceneSizes sizes arrays indexed by a scene's number of shapes.
const sceneSizes = data.SceneMaxShapes + 1

// share is k/n, or 0 when n is 0.
func share(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// captionMeta is what cmd/train records with a model: its settings, its first
// losses and its held-out scores.
func captionMeta(m *models.Captioner, a models.CaptionApproach, seed uint64, steps int, curve []float64) Meta {
	held := ScoreCaptions(m, data.Scenes().Test)
	head := make([]string, min(captionLossHead, len(curve)))
	for i := range head {
		head[i] = fg(curve[i])
	}
	return Meta{
		"model": "captioning", "approach": strconv.Itoa(int(a)), "approach_name": a.String(),
		"embed": strconv.Itoa(CaptionEmbed), "hidden": strconv.Itoa(CaptionHidden),
		"seed": strconv.FormatUint(seed, 10), "steps": strconv.Itoa(steps), "batch": strconv.Itoa(captionBatch),
		"lr": fg(captionLR), "clip": fg(captionClip),
		"held_out_images": strconv.Itoa(held.N), "held_out_bleu": fg(held.BLEU), "held_out_exact": fg(held.Exact),
		"held_out_one": strconv.Itoa(held.NOne), "held_out_two": strconv.Itoa(held.NTwo),
		"held_out_exact_one": fg(held.ExactOne), "held_out_exact_two": fg(held.ExactTwo),
		"loss_head":  strings.Join(head, ","),
		"final_loss": f4(curve[len(curve)-1]),
	}
}

// trainCaptions trains the captioning entry: one model per approach.
func trainCaptions(dir string, o Options) error {
	steps := o.steps(CaptionSteps)
	for _, a := range models.CaptionApproaches {
		start := time.Now()
		seed := captionSeeds[a]
		m, curve := trainCaption(a, seed, steps)
		meta := captionMeta(m, a, seed, steps, curve)
		if err := save(dir, captionFile(a), m, meta); err != nil {
			return err
		}
		o.logf("captioning approach %d (%s): held-out BLEU %s, exact match %s on %s images  loss %s  (%.1fs)",
			a, a, meta["held_out_bleu"], meta["held_out_exact"], meta["held_out_images"], meta["final_loss"], since(start))
	}
	return nil
}

// CaptionModel is one bundled captioner and its metadata.
type CaptionModel struct {
	Approach models.CaptionApproach
	Model    *models.Captioner // shared and read-only (Greedy never writes)
	Meta     Meta
}

// captionCheckpoints loads the three bundled captioners once.
var captionCheckpoints = sync.OnceValues(func() ([]CaptionModel, error) {
	var out []CaptionModel
	for _, a := range models.CaptionApproaches {
		b, err := loadBundled(captionFile(a), NewCaptionModel(a, 0))
		if err != nil {
			return nil, err
		}
		out = append(out, CaptionModel{Approach: a, Model: b.model, Meta: b.meta})
	}
	return out, nil
})

// SharedCaptioners is the three bundled captioners, by approach 1, 2, 3: one copy for
// every page.
func SharedCaptioners() ([]CaptionModel, error) { return captionCheckpoints() }
