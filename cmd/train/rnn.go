package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	"unroll/lessons"
)

// Fixed training seeds of the rnn page's architecture B and C models.
const (
	archBSeed = 5
	archCSeed = 6
)

// trainArchs writes the rnn page's architecture B (output→hidden) and C (one output
// after the sequence) models.
func trainArchs(dir string) error {
	start := time.Now()
	b := lessons.NewArchB(archBSeed)
	rng := rand.New(rand.NewPCG(archBSeed, 0x7a1))
	var loss float64
	for range lessons.ArchTrainSteps {
		loss = b.TrainStep(rng)
	}
	bpc := b.BitsPerChar()
	meta := map[string]string{
		"model": "arch-b", "hidden": strconv.Itoa(lessons.ArchBHidden),
		"seed": strconv.Itoa(archBSeed), "steps": strconv.Itoa(lessons.ArchTrainSteps),
		"final_loss":    strconv.FormatFloat(loss, 'f', 4, 64),
		"bits_per_char": strconv.FormatFloat(bpc, 'g', -1, 64),
	}
	if err := lessons.SaveArch(filepath.Join(dir, lessons.ArchCheckpointB), b.Params(), meta); err != nil {
		return err
	}
	fmt.Printf("arch B    h=%d  loss %.4f  %.3f bits/char on the corpus  (%.1fs)\n", lessons.ArchBHidden, loss, bpc, time.Since(start).Seconds())

	start = time.Now()
	c := lessons.NewArchC(archCSeed)
	rng = rand.New(rand.NewPCG(archCSeed, 0x7a1))
	for range lessons.ArchTrainSteps {
		loss = c.TrainStep(rng)
	}
	acc := c.Accuracy()
	meta = map[string]string{
		"model": "arch-c", "hidden": strconv.Itoa(lessons.ArchCHidden),
		"seed": strconv.Itoa(archCSeed), "steps": strconv.Itoa(lessons.ArchTrainSteps),
		"final_loss": strconv.FormatFloat(loss, 'f', 4, 64),
		"accuracy":   strconv.FormatFloat(acc, 'g', -1, 64),
	}
	if err := lessons.SaveArch(filepath.Join(dir, lessons.ArchCheckpointC), c.Params(), meta); err != nil {
		return err
	}
	fmt.Printf("arch C    h=%d  loss %.4f  accuracy %.3f on held-out windows  (%.1fs)\n", lessons.ArchCHidden, loss, acc, time.Since(start).Seconds())
	return nil
}
