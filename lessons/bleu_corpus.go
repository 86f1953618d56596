package lessons

import (
	"fmt"
	"sync"

	"unroll/data"
	"unroll/models"
)

// bleuCorpusRun is one bundled translator's decoding of the corpus test split.
type bleuCorpusRun struct {
	model, decoding string
	outputs         []string
	score           models.BLEUResult
}

// bleuCorpusModels are the bundled translators the bleu page scores.
var bleuCorpusModels = []string{"seq2seq-corpus", "attention-corpus"}

// bleuCorpus scores every bundled corpus translator's recorded translations of the
// corpus test split (RecordedTranslations), greedy and by beam search, by corpus
// BLEU: once per process, a few milliseconds.
var bleuCorpus = sync.OnceValues(func() ([]bleuCorpusRun, error) {
	var runs []bleuCorpusRun
	for _, name := range bleuCorpusModels {
		rec, err := RecordedTranslations(name)
		if err != nil {
			return nil, err
		}
		task := CorpusTask()
		runs = append(runs,
			bleuCorpusRun{model: name, decoding: "greedy", outputs: rec.Greedy, score: task.CorpusBLEU(rec.Greedy, task.Test)},
			bleuCorpusRun{model: name, decoding: fmt.Sprintf("beam k=%d", RecordedBeam), outputs: rec.Beam, score: task.CorpusBLEU(rec.Beam, task.Test)})
	}
	return runs, nil
})

// bleuCorpusTable is the corpus-BLEU table of the bleu page: one row per model and
// decoding with p_1 … p_4, the brevity penalty and BLEU.
func bleuCorpusTable() (mtTable, error) {
	runs, err := bleuCorpus()
	if err != nil {
		return mtTable{}, err
	}
	_, test := data.Corpus()
	tab := mtTable{
		Title: fmt.Sprintf("corpus BLEU over the %d held-out pairs (one reference each, N = 4, uniform weights)", len(test)),
		Head:  []string{"p₁", "p₂", "p₃", "p₄", "c", "r", "BP", "BLEU"},
	}
	for _, r := range runs {
		var cells []mtCell
		for _, p := range r.score.Precisions {
			cells = append(cells, mtCell{Text: fmt.Sprintf("%.3f", p.Value()), Sub: fmt.Sprintf("%d/%d", p.Matched, p.Total)})
		}
		cells = append(cells,
			mtCell{Text: fmt.Sprint(r.score.CandidateLength)},
			mtCell{Text: fmt.Sprint(r.score.RefLength)},
			mtCell{Text: fmt.Sprintf("%.3f", r.score.BrevityPenalty)},
			mtCell{Text: fmt.Sprintf("%.3f", r.score.BLEU), Mark: "on"})
		tab.Rows = append(tab.Rows, mtRow{Label: r.model + ", " + r.decoding, Cells: cells})
	}
	return tab, nil
}

// corpusTestSize is the number of held-out corpus pairs.
func corpusTestSize() int {
	_, test := data.Corpus()
	return len(test)
}

// bleuModelPair is the bleu page's "model" example: test pair i (1-based) of the
// corpus, the greedy translation of bleuCorpusModels[0] as the candidate and the
// pair's French side as the reference.
func bleuModelPair(i int) (candidate, reference, source string, err error) {
	runs, err := bleuCorpus()
	if err != nil {
		return "", "", "", err
	}
	_, test := data.Corpus()
	if i < 1 || i > len(test) {
		return "", "", "", fmt.Errorf("test pair %d does not exist: choose 1 to %d", i, len(test))
	}
	return runs[0].outputs[i-1], test[i-1].Fr, test[i-1].En, nil
}
