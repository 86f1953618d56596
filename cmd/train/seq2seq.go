package main

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"unroll/lessons"
	"unroll/models"
)

// trainTranslators writes the sequence-to-sequence lessons' checkpoints: a GRU
// seq2seq and an attention model on the corpus and on the dates, each trained from
// its own seed (so they can train side by side and stay deterministic) and scored
// on the held-out split with greedy decoding and beam search.
func trainTranslators(dir string) error {
	specs := lessons.TranslatorSpecs
	errs := make([]error, len(specs))
	lines := make([]string, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() {
			lines[i], errs[i] = trainTranslator(dir, spec)
		})
	}
	wg.Wait()
	for i := range specs {
		if errs[i] != nil {
			return errs[i]
		}
		fmt.Println(lines[i])
	}
	return nil
}

func trainTranslator(dir string, spec lessons.TranslatorSpec) (string, error) {
	start := time.Now()
	tr := spec.New()
	opt := models.NewAdam(lessons.TranslatorLR)
	rng := rand.New(rand.NewPCG(spec.Config.Seed, 0x7a1))
	var loss float64
	for range spec.Steps {
		loss = tr.TrainStep(opt, rng)
	}
	meta := map[string]string{}
	greedyOut, beamOut := lessons.RecordTestTranslations(tr, meta)
	greedy, beam := tr.Task.Score(greedyOut, tr.Task.Test), tr.Task.Score(beamOut, tr.Task.Test)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	maps.Copy(meta, map[string]string{
		"model": spec.Name, "task": tr.Task.Name,
		"attention": strconv.FormatBool(spec.Config.Attention),
		"embed":     strconv.Itoa(spec.Config.Embed), "hidden": strconv.Itoa(spec.Config.Hidden),
		"seed": strconv.FormatUint(spec.Config.Seed, 10), "steps": strconv.Itoa(spec.Steps),
		"batch": strconv.Itoa(lessons.TranslatorBatch), "final_loss": f(loss),
		"test_bleu_greedy": f(greedy.BLEU), "test_exact_greedy": f(greedy.Exact),
		"test_bleu_beam": f(beam.BLEU), "test_exact_beam": f(beam.Exact),
		"beam_size": strconv.Itoa(lessons.RecordedBeam),
	})
	if err := lessons.SaveTranslator(filepath.Join(dir, spec.File()), tr, meta); err != nil {
		return "", err
	}
	return fmt.Sprintf("%-17s loss %.4f  test BLEU greedy %.4f beam-%d %.4f  exact greedy %.4f beam %.4f  (%.1fs)",
		spec.Name, loss, greedy.BLEU, lessons.RecordedBeam, beam.BLEU, greedy.Exact, beam.Exact, time.Since(start).Seconds()), nil
}
