package zoo

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"unroll/models"
)

// StackedTranslatorSpecs are the bundled multilayer translators of the
// encoder-decoder page (seed 004: the encoder and the decoder may each be a deep
// RNN): seq2seq-corpus's task, sizes, minibatches, optimiser, clipping and number of
// steps, with L GRU layers a side, each from its own seed. Only the number of layers
// differs, so their held-out scores compare with seq2seq-corpus's.
var StackedTranslatorSpecs = []TranslatorSpec{
	{Name: "seq2seq-corpus-L2", Task: CorpusTask, Config: TranslatorConfig{Embed: 32, Hidden: 64, Layers: 2, Seed: 50}, Steps: 3000},
	{Name: "seq2seq-corpus-L3", Task: CorpusTask, Config: TranslatorConfig{Embed: 32, Hidden: 64, Layers: 3, Seed: 51}, Steps: 3000},
}

// stackedCurveEvery is how often (in steps) a stacked translator's checkpoint
// records its minibatch loss: 60 numbers for 3000 steps, enough for the
// reproducibility test to compare the first ones.
const stackedCurveEvery = 50

// metaLossCurve is the metadata key of a stacked translator's recorded losses (a
// JSON list: the minibatch loss at steps stackedCurveEvery, 2·stackedCurveEvery, …).
const metaLossCurve = "loss_curve"

func stackedTranslatorFiles() []string {
	files := make([]string, len(StackedTranslatorSpecs))
	for i, s := range StackedTranslatorSpecs {
		files[i] = s.File()
	}
	return files
}

// trainStackedTranslators trains the seq2seq-layers entry: every
// StackedTranslatorSpecs model, side by side (each from its own seed), each scored
// greedily on the held-out split, its decodings recorded in its metadata.
func trainStackedTranslators(dir string, o Options) error {
	errs := make([]error, len(StackedTranslatorSpecs))
	lines := make([]string, len(StackedTranslatorSpecs))
	var wg sync.WaitGroup
	for i, spec := range StackedTranslatorSpecs {
		wg.Go(func() {
			lines[i], errs[i] = trainStackedTranslator(dir, spec, o.steps(spec.Steps))
		})
	}
	wg.Wait()
	for i := range StackedTranslatorSpecs {
		if errs[i] != nil {
			return errs[i]
		}
		o.logf("%s", lines[i])
	}
	return nil
}

// stackedLossCurve trains tr for steps minibatches of Adam (TranslatorLR) from its
// seed's training stream, as trainTranslator does, and returns the loss every
// stackedCurveEvery steps and the last one.
func stackedLossCurve(tr *Translator, steps int) (curve []float64, last float64) {
	opt := models.NewAdam(TranslatorLR)
	k := 0
	last = trainSteps(tr.Config.Seed, steps, func(rng *rand.Rand) float64 {
		loss := tr.TrainStep(opt, rng)
		if k++; k%stackedCurveEvery == 0 {
			curve = append(curve, loss)
		}
		return loss
	})
	return curve, last
}

// trainStackedTranslator trains one stacked translator and writes its checkpoint; it
// returns its progress line.
func trainStackedTranslator(dir string, spec TranslatorSpec, steps int) (string, error) {
	start := time.Now()
	tr := spec.New()
	curve, loss := stackedLossCurve(tr, steps)
	greedyOut := tr.Translate(tr.Task.Test, 1)
	greedy := tr.Task.Score(greedyOut, tr.Task.Test)
	rawOut, err := json.Marshal(greedyOut)
	if err != nil {
		return "", err
	}
	rawCurve, err := json.Marshal(curve)
	if err != nil {
		return "", err
	}
	meta := map[string]string{
		"model": spec.Name, "task": tr.Task.Name, "attention": "false",
		"layers": strconv.Itoa(spec.Config.Layers),
		"embed":  strconv.Itoa(spec.Config.Embed), "hidden": strconv.Itoa(spec.Config.Hidden),
		"parameters": strconv.Itoa(tr.Params().Count()),
		"seed":       strconv.FormatUint(spec.Config.Seed, 10), "steps": strconv.Itoa(steps),
		"batch": strconv.Itoa(translatorBatch), "final_loss": f4(loss),
		"test_bleu_greedy": f4(greedy.BLEU), "test_exact_greedy": f4(greedy.Exact),
		metaTestGreedy: string(rawOut), metaLossCurve: string(rawCurve),
	}
	if err := save(dir, spec.File(), tr, meta); err != nil {
		return "", err
	}
	return fmt.Sprintf("%-17s L=%d loss %.4f  test BLEU greedy %.4f  exact greedy %.4f  %d parameters  (%.1fs)",
		spec.Name, spec.Config.Layers, loss, greedy.BLEU, greedy.Exact, tr.Params().Count(), since(start)), nil
}

// stackedCheckpoints loads every bundled stacked translator once (shared, read-only).
var stackedCheckpoints = sync.OnceValues(func() (map[int]bundled[*Translator], error) {
	out := map[int]bundled[*Translator]{}
	for _, s := range StackedTranslatorSpecs {
		b, err := loadBundled(s.File(), s.New())
		if err != nil {
			return nil, err
		}
		if got := b.meta["layers"]; got != strconv.Itoa(s.Config.Layers) {
			return nil, fmt.Errorf("zoo: checkpoint %s records %q layers, want %d", s.File(), got, s.Config.Layers)
		}
		out[s.Config.Layers] = b
	}
	return out, nil
})

// SharedStackedTranslator is the bundled translator with L layers a side (one of
// StackedTranslatorSpecs) and its checkpoint's metadata, shared and read-only like
// SharedTranslator's. An L without a bundled model is an error.
func SharedStackedTranslator(L int) (*Translator, Meta, error) {
	cks, err := stackedCheckpoints()
	if err != nil {
		return nil, nil, err
	}
	b, ok := cks[L]
	if !ok {
		return nil, nil, fmt.Errorf("zoo: no bundled translator with L = %d layers", L)
	}
	return b.model, b.meta, nil
}
