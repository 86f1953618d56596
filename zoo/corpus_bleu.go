package zoo

import (
	"fmt"
	"sync"

	"unroll/models"
)

// CorpusBLEURun is one bundled corpus translator's recorded decoding of the corpus
// test split and its corpus BLEU (uniform weights, N = 4, one reference each).
type CorpusBLEURun struct {
	Model, Decoding string // the translator's name; "greedy" or "beam k=4"
	Outputs         []string
	Score           models.BLEUResult
}

// CorpusBLEUModels are the bundled corpus translators the bleu page scores, without
// attention then with it.
var CorpusBLEUModels = []string{"seq2seq-corpus", "attention-corpus"}

// CorpusBLEU scores every bundled corpus translator's recorded translations of the
// corpus test split (RecordedTranslations), greedy and by beam search, by corpus
// BLEU: once per process, a few milliseconds. Rows come in CorpusBLEUModels order,
// greedy before beam.
var CorpusBLEU = sync.OnceValues(func() ([]CorpusBLEURun, error) {
	var runs []CorpusBLEURun
	for _, name := range CorpusBLEUModels {
		rec, err := RecordedTranslations(name)
		if err != nil {
			return nil, err
		}
		task := CorpusTask()
		runs = append(runs,
			CorpusBLEURun{Model: name, Decoding: "greedy", Outputs: rec.Greedy, Score: task.CorpusBLEU(rec.Greedy, task.Test)},
			CorpusBLEURun{Model: name, Decoding: fmt.Sprintf("beam k=%d", RecordedBeam), Outputs: rec.Beam, Score: task.CorpusBLEU(rec.Beam, task.Test)})
	}
	return runs, nil
})
