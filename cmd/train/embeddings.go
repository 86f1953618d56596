package main

import (
	"fmt"
	"path/filepath"
	"time"

	"unroll/lessons"
)

// trainEmbeddings trains the embeddings lesson's skip-gram model from its fixed seed
// on the English side of the corpus and writes lessons/checkpoints/embeddings-en.safetensors.
func trainEmbeddings(dir string) error {
	start := time.Now()
	m, curve, err := lessons.TrainEmbeddings(lessons.EmbedSeed, lessons.EmbedTrainSteps)
	if err != nil {
		return err
	}
	meta := lessons.EmbedCheckpointMeta(m, lessons.EmbedSeed, lessons.EmbedTrainSteps, curve)
	if err := lessons.SaveEmbeddings(filepath.Join(dir, lessons.EmbedFile), m, meta); err != nil {
		return err
	}
	fmt.Printf("embeddings d=%d  loss %.4f  same-class nearest neighbour %s (chance %s)  analogies %s  (%.1fs)\n",
		lessons.EmbedDim, curve[len(curve)-1], meta["same_class_nn"], meta["same_class_chance"], meta["analogies"], time.Since(start).Seconds())
	return nil
}
