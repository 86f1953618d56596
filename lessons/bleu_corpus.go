package lessons

import (
	"fmt"

	"unroll/data"
	"unroll/zoo"
)

// bleuCorpusTable is the corpus-BLEU table of the bleu page: one row per model and
// decoding with p_1 … p_4, the brevity penalty and BLEU.
func bleuCorpusTable() (mtTable, error) {
	runs, err := zoo.CorpusBLEU()
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
		for _, p := range r.Score.Precisions {
			cells = append(cells, mtCell{Text: fmt.Sprintf("%.3f", p.Value()), Sub: fmt.Sprintf("%d/%d", p.Matched, p.Total)})
		}
		cells = append(cells,
			mtCell{Text: fmt.Sprint(r.Score.CandidateLength)},
			mtCell{Text: fmt.Sprint(r.Score.RefLength)},
			mtCell{Text: fmt.Sprintf("%.3f", r.Score.BrevityPenalty)},
			mtCell{Text: fmt.Sprintf("%.3f", r.Score.BLEU), Mark: "on"})
		tab.Rows = append(tab.Rows, mtRow{Label: r.Model + ", " + r.Decoding, Cells: cells})
	}
	return tab, nil
}

// corpusTestSize is the number of held-out corpus pairs.
func corpusTestSize() int {
	_, test := data.Corpus()
	return len(test)
}

// bleuModelPair is the bleu page's "model" example: test pair i (1-based) of the
// corpus, the greedy translation of zoo.CorpusBLEUModels[0] as the candidate and the
// pair's French side as the reference.
func bleuModelPair(i int) (candidate, reference, source string, err error) {
	runs, err := zoo.CorpusBLEU()
	if err != nil {
		return "", "", "", err
	}
	_, test := data.Corpus()
	if i < 1 || i > len(test) {
		return "", "", "", fmt.Errorf("test pair %d does not exist: choose 1 to %d", i, len(test))
	}
	return runs[0].Outputs[i-1], test[i-1].Fr, test[i-1].En, nil
}
