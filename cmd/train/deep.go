package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	"unroll/lessons"
)

// deepSeed is the fixed training seed of the deep-RNN lesson's cell kind k
// (index into lessons.DeepKinds) and depth L.
func deepSeed(k, L int) uint64 { return uint64(100 + 10*k + L) }

// trainDeep writes the deep-rnn lesson's checkpoints: one market model per cell kind
// and depth L = 1..3, trained on generated bull/bear series.
func trainDeep(dir string) error {
	for k, kind := range lessons.DeepKinds {
		for L := 1; L <= lessons.DeepMaxLayers; L++ {
			start := time.Now()
			seed := deepSeed(k, L)
			m := lessons.NewMarketModel(kind, L, seed)
			rng := rand.New(rand.NewPCG(seed, 0x7a1))
			var loss float64
			for range lessons.DeepTrainSteps {
				loss, _ = m.TrainStep(rng)
			}
			meta := lessons.DeepCheckpointMeta(m, seed, lessons.DeepTrainSteps)
			meta["final_loss"] = strconv.FormatFloat(loss, 'f', 4, 64)
			if err := lessons.SaveMarketModel(filepath.Join(dir, lessons.DeepCheckpointFile(kind, L)), m, meta); err != nil {
				return err
			}
			fmt.Printf("deep %-4s L=%d  loss %.4f  regime accuracy %.3f  next-day MSE %.3f (best possible %.3f)  |corr| slow/fast by layer:",
				kind, L, loss, num(meta["regime_accuracy"]), num(meta["next_mse"]), num(meta["best_mse"]))
			for l := 1; l <= L; l++ {
				fmt.Printf(" %.2f/%.2f", num(meta[fmt.Sprintf("slow_corr_l%d", l)]), num(meta[fmt.Sprintf("fast_corr_l%d", l)]))
			}
			fmt.Printf("  (%.1fs)\n", time.Since(start).Seconds())
		}
	}
	return nil
}

func num(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
