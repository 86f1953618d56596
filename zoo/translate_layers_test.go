package zoo

import (
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"unroll/internal/machine"
)

// TestStackedTranslatorCheckpoints (seed 004, the multilayer encoder-decoder): each
// bundled stacked translator has the spec's number of layers, its recorded greedy
// translations of the test split are a fresh decoding's, its recorded scores are
// those translations' scores, and retraining its first 100 steps from the recorded
// seed (go run ./cmd/train -only seq2seq-layers) gives the recorded losses exactly
// (on amd64, where cmd/train ran: internal/machine).
func TestStackedTranslatorCheckpoints(t *testing.T) {
	for _, spec := range StackedTranslatorSpecs {
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			tr, meta, err := SharedStackedTranslator(spec.Config.Layers)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Stack == nil || tr.Stack.Layers() != spec.Config.Layers || meta["model"] != spec.Name {
				t.Fatalf("L = %d: got model %q", spec.Config.Layers, meta["model"])
			}
			if got := strconv.Itoa(tr.Params().Count()); meta["parameters"] != got {
				t.Errorf("parameters: recorded %q, the model has %s", meta["parameters"], got)
			}
			var rec []string
			if err := json.Unmarshal([]byte(meta[metaTestGreedy]), &rec); err != nil || len(rec) != len(tr.Task.Test) {
				t.Fatalf("recorded test translations: %v (%d for %d pairs)", err, len(rec), len(tr.Task.Test))
			}
			if !raceEnabled && !slices.Equal(tr.Translate(tr.Task.Test, 1), rec) {
				t.Errorf("the recorded test translations differ from a fresh decoding: rerun go run ./cmd/train -only seq2seq-layers")
			}
			score := tr.Task.Score(rec, tr.Task.Test)
			for key, got := range map[string]float64{"test_bleu_greedy": score.BLEU, "test_exact_greedy": score.Exact} {
				if want := meta.Float(key); !machine.NearRecorded(got, want, machine.RecordedDecimals4) {
					t.Errorf("%s: got %.4f, the checkpoint records %q", key, got, meta[key])
				}
			}
			var curve []float64
			if err := json.Unmarshal([]byte(meta[metaLossCurve]), &curve); err != nil || len(curve) != spec.Steps/stackedCurveEvery {
				t.Fatalf("recorded loss curve: %v (%d points, want %d)", err, len(curve), spec.Steps/stackedCurveEvery)
			}
			if runtime.GOARCH != "amd64" || raceEnabled {
				t.Logf("retraining is compared only on amd64 without -race (here %s)", runtime.GOARCH)
				return
			}
			fresh, _ := stackedLossCurve(spec.New(), 2*stackedCurveEvery)
			if !slices.Equal(fresh, curve[:2]) {
				t.Errorf("retrained losses at steps %d and %d: %v, recorded %v", stackedCurveEvery, 2*stackedCurveEvery, fresh, curve[:2])
			}
		})
	}
	if _, _, err := SharedStackedTranslator(1); err == nil {
		t.Error("L = 1: got a stacked translator, want an error (seq2seq-corpus is the one-layer model)")
	}
}
