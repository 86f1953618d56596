// Command train writes the lessons' bundled checkpoints: for the GRU lesson, one small
// classifier per task and GRU variant, trained from a fixed seed on generated sequences.
// It is deterministic: the same command writes byte-identical files.
//
//	go run ./cmd/train                          # writes lessons/checkpoints/*.safetensors
//	go run ./cmd/train -out /tmp/ck -steps 500  # a quick try elsewhere
//	go run ./cmd/train -only seq2seq            # only the sequence-to-sequence models
//	go run ./cmd/train -only embeddings         # only the word embeddings
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"unroll/data"
	"unroll/lessons"
)

func main() {
	out := flag.String("out", filepath.Join("lessons", "checkpoints"), "directory to write the checkpoints to")
	steps := flag.Int("steps", lessons.GRUTrainSteps, "Adam minibatches per model")
	only := flag.String("only", "", `train one part only: "seq2seq" (the four translators) or "embeddings"`)
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil { // before training: -only seq2seq takes minutes
		log.Fatal(err)
	}
	if *only != "" {
		train, ok := map[string]func(dir string) error{"seq2seq": trainTranslators, "embeddings": trainEmbeddings}[*only]
		if !ok {
			log.Fatalf("-only %q: choose seq2seq or embeddings (or leave it out to train everything)", *only)
		}
		if err := train(*out); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(*out, *steps); err != nil {
		log.Fatal(err)
	}
}

// seedOf is the fixed training seed of a task and variant.
func seedOf(task, variant int) uint64 { return uint64(1 + 10*task + variant) }

func run(dir string, steps int) error {
	fmt.Printf("%-9s %-12s %8s %8s %8s  %s\n", "task", "variant", "loss", "acc", "final", "gates")
	for ti, task := range data.Tasks {
		for vi, variant := range []string{lessons.VariantLecture, lessons.VariantResetAfter} {
			start := time.Now()
			seed := seedOf(ti, vi)
			m := lessons.NewGRUClassifier(task, variant, seed)
			rng := rand.New(rand.NewPCG(seed, 0x7a1))
			var loss float64
			for range steps {
				loss, _ = m.TrainStep(rng)
			}
			meta := lessons.GRUCheckpointMeta(m, seed, steps)
			meta["final_loss"] = strconv.FormatFloat(loss, 'f', 4, 64)
			path := filepath.Join(dir, lessons.CheckpointFile(task.Name, variant))
			if err := lessons.SaveGRUClassifier(path, m, meta); err != nil {
				return err
			}
			fmt.Printf("%-9s %-12s %8.4f %8s %8s  %s  (%.1fs)\n", task.Name, variant, loss,
				meta["accuracy"], meta["final_accuracy"], meta["gates"], time.Since(start).Seconds())
		}
	}
	if err := trainCharLM(dir); err != nil {
		return err
	}
	if err := trainLSTM(dir, steps); err != nil {
		return err
	}
	if err := trainDeep(dir); err != nil {
		return err
	}
	if err := trainBirnn(dir); err != nil {
		return err
	}
	if err := trainEmbeddings(dir); err != nil {
		return err
	}
	return trainTranslators(dir)
}

// charSeed is the fixed training seed of the character-level language model.
const charSeed = 4

func trainCharLM(dir string) error {
	start := time.Now()
	m := lessons.NewCharLM(charSeed)
	rng := rand.New(rand.NewPCG(charSeed, 0x7a1))
	var loss float64
	for range lessons.CharTrainSteps {
		loss = m.TrainStep(rng)
	}
	bpc := m.BitsPerChar()
	meta := map[string]string{
		"model": "char-rnn", "hidden": strconv.Itoa(lessons.CharHidden),
		"seed": strconv.Itoa(charSeed), "steps": strconv.Itoa(lessons.CharTrainSteps),
		"final_loss":    strconv.FormatFloat(loss, 'f', 4, 64),
		"bits_per_char": strconv.FormatFloat(bpc, 'g', -1, 64),
	}
	path := filepath.Join(dir, lessons.CharCheckpointFile)
	if err := lessons.SaveCharLM(path, m, meta); err != nil {
		return err
	}
	fmt.Printf("char-rnn  h=%d  loss %.4f  %.3f bits/char on the corpus  (%.1fs)\n", lessons.CharHidden, loss, bpc, time.Since(start).Seconds())
	return trainArchs(dir)
}
