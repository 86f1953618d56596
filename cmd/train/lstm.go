package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	"unroll/data"
	"unroll/lessons"
)

// lstmSeedOf is the fixed training seed of a task's LSTM (cell 0) or vanilla RNN
// (cell 1) classifier; different from every GRU seed.
func lstmSeedOf(task, cell int) uint64 { return uint64(1997 + 10*task + cell) }

// trainLSTM writes the LSTM lesson's checkpoints: per task an LSTM classifier
// (lstm-<task>.safetensors) and a vanilla tanh RNN classifier (rnn-<task>.safetensors)
// for the GRU/LSTM/RNN comparison, each trained for steps minibatches.
func trainLSTM(dir string, steps int) error {
	fmt.Printf("%-9s %-5s %8s %8s %8s  %s\n", "task", "cell", "loss", "acc", "final", "max |C_t|")
	for ti, task := range data.Tasks {
		for ci, c := range []struct {
			name string
			make func(*data.Task, uint64) *lessons.SeqClassifier
			file func(string) string
		}{
			{"lstm", lessons.NewLSTMClassifier, lessons.LSTMCheckpointFile},
			{"rnn", lessons.NewRNNClassifier, lessons.RNNCheckpointFile},
		} {
			start := time.Now()
			seed := lstmSeedOf(ti, ci)
			m := c.make(task, seed)
			rng := rand.New(rand.NewPCG(seed, 0x7a1))
			var loss float64
			for range steps {
				loss, _ = m.TrainStep(rng)
			}
			meta := lessons.SeqCheckpointMeta(m, seed, steps)
			meta["final_loss"] = strconv.FormatFloat(loss, 'f', 4, 64)
			if err := lessons.SaveSeqClassifier(filepath.Join(dir, c.file(task.Name)), m, meta); err != nil {
				return err
			}
			fmt.Printf("%-9s %-5s %8.4f %8s %8s  %s  (%.1fs)\n", task.Name, c.name, loss,
				meta["accuracy"], meta["final_accuracy"], meta["c_max"], time.Since(start).Seconds())
		}
	}
	return nil
}
