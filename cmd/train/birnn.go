package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	"unroll/lessons"
)

// blankSeed is the fixed training seed of the fill-in-the-blank models (the
// unidirectional one uses it, the bidirectional one the next integer).
const blankSeed = 97

// trainBirnn writes the birnn lesson's two checkpoints: a unidirectional and a
// bidirectional RNN trained on the same generated fill-in-the-blank sentences.
func trainBirnn(dir string) error {
	for i, bi := range []bool{false, true} {
		start := time.Now()
		seed := uint64(blankSeed + i)
		m := lessons.NewFillBlank(bi, seed)
		rng := rand.New(rand.NewPCG(seed, 0x7a1))
		var loss float64
		for range lessons.BlankTrainSteps {
			loss, _ = m.TrainStep(rng)
		}
		meta := lessons.BlankCheckpointMeta(m, seed, lessons.BlankTrainSteps)
		meta["final_loss"] = strconv.FormatFloat(loss, 'f', 4, 64)
		if err := lessons.SaveFillBlank(filepath.Join(dir, lessons.BlankCheckpointFile(bi)), m, meta); err != nil {
			return err
		}
		fmt.Printf("fill-blank bidirectional=%-5v loss %.4f  held-out accuracy %s (chance %s, mean p(answer) %s)  (%.1fs)\n",
			bi, loss, meta["accuracy"], meta["chance"], meta["p_answer"], time.Since(start).Seconds())
	}
	return nil
}
