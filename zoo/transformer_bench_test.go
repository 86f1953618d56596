package zoo

import (
	"testing"

	"unroll/models"
)

// BenchmarkTrainEpoch times one epoch of training on the dates (len(train)/32
// minibatches of 32 pairs, one core) for the Transformer and for the GRU
// translators of the attention page, in one run: the numbers the transformer page
// reports for seed 002's "fast training: allows for parallelization".
//
//	go test ./zoo -run '^$' -bench TrainEpoch -benchtime 1x
func BenchmarkTrainEpoch(b *testing.B) {
	task := DatesTask()
	steps := len(task.Train) / transformerBatch
	b.Run("transformer", func(b *testing.B) {
		tr := TransformerSpecs[0].New()
		opt := models.NewAdam(transformerLR)
		rng := TrainRNG(1)
		for b.Loop() {
			for s := range steps {
				tr.TrainStep(opt, s+1, rng)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/epoch")
	})
	for _, name := range []string{"attention-dates", "seq2seq-dates"} {
		b.Run(name, func(b *testing.B) {
			spec, _ := FindTranslatorSpec(name)
			tr := spec.New()
			opt := models.NewAdam(TranslatorLR)
			rng := TrainRNG(1)
			for b.Loop() {
				for range steps {
					tr.TrainStep(opt, rng)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/epoch")
		})
	}
}
