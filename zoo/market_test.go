package zoo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"unroll/data"
	"unroll/internal/machine"
)

// TestMarketGradient checks lossGrad against central differences for every cell
// kind in a two-layer stack (the output layer, the loss and Deep's BPTT together).
func TestMarketGradient(t *testing.T) {
	const tol = 1e-6 // relative
	for _, kind := range DeepKinds {
		m := NewMarketModel(kind, 2, 5)
		rng := rand.New(rand.NewPCG(1, 1))
		batch := []data.MarketSeries{data.NewMarketSeries(rng, 7), data.NewMarketSeries(rng, 7)}
		ps := m.Params()
		ps.ZeroGrad()
		m.lossGrad(batch, 7)
		grads := make([][]float64, len(ps)) // before the loss evaluations below add to Grad
		for k, p := range ps {
			grads[k] = slices.Clone(p.Grad.RawMatrix().Data)
		}
		for k, p := range ps {
			raw := p.Value.RawMatrix().Data
			grad := grads[k]
			for i := 0; i < len(raw); i += 1 + len(raw)/5 {
				orig := raw[i]
				loss := func(x float64) float64 {
					raw[i] = x
					defer func() { raw[i] = orig }()
					l, _ := m.lossGrad(batch, 7) // also adds to Grad, which grads copied before
					return l
				}
				want := fd.Derivative(loss, orig, &fd.Settings{Formula: fd.Central, Step: 1e-5})
				if got := grad[i]; math.Abs(got-want) > tol*math.Max(1e-3, math.Abs(want)) {
					t.Errorf("%s %s[%d]: got %v want %v", kind, p.Name, i, got, want)
				}
			}
		}
	}
}

// TestDeepCheckpoints: every shipped stack reproduces the scores recorded in it by
// cmd/train and tells the regime apart; in every stack of two or three layers the
// top layer follows the fast component less, and the regime relatively more, than
// layer 1 (measured values in docs/lessons.md).
func TestDeepCheckpoints(t *testing.T) {
	for _, kind := range DeepKinds {
		for L := 1; L <= DeepMaxLayers; L++ {
			name := deepCheckpointFile(kind, L)
			m, meta, err := loadMarketModel(kind, L)
			if err != nil {
				t.Fatal(err)
			}
			sc := m.Scores(DeepEvalSet())
			got := map[string]float64{"regime_accuracy": sc.RegimeAccuracy, "next_mse": sc.NextMSE, "best_mse": sc.BestMSE}
			for l := range L {
				got[fmt.Sprintf("slow_corr_l%d", l+1)] = sc.SlowCorr[l]
				got[fmt.Sprintf("fast_corr_l%d", l+1)] = sc.FastCorr[l]
				got[fmt.Sprintf("autocorr_l%d", l+1)] = sc.Autocorr[l]
			}
			for k, g := range got {
				tol := machine.RecordedSmooth // MSEs and correlations
				if k == "regime_accuracy" {
					tol = machine.RecordedCount
				}
				machine.CheckRecorded(t, name+" "+k, g, meta.Float(k), tol)
			}
			if sc.RegimeAccuracy < 0.9 {
				t.Errorf("%s: held-out regime accuracy %v, want ≥ 0.9", name, sc.RegimeAccuracy)
			}
			if sc.NextMSE > sc.BestMSE*1.4 {
				t.Errorf("%s: next-day MSE %v, want ≤ 1.4 × the best possible %v", name, sc.NextMSE, sc.BestMSE)
			}
			if L == 1 {
				continue
			}
			top := L - 1
			if sc.FastCorr[top] >= sc.FastCorr[0] {
				t.Errorf("%s: |corr| with f_t: top layer %v, layer 1 %v; want the top lower", name, sc.FastCorr[top], sc.FastCorr[0])
			}
			if sc.SlowCorr[top]-sc.FastCorr[top] <= sc.SlowCorr[0]-sc.FastCorr[0] {
				t.Errorf("%s: slow − fast |corr|: top layer %v, layer 1 %v; want the top higher", name,
					sc.SlowCorr[top]-sc.FastCorr[top], sc.SlowCorr[0]-sc.FastCorr[0])
			}
		}
	}
}
