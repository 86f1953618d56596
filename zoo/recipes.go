package zoo

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"unroll/data"
	"unroll/models"
)

// The training recipes of the Bundled entries. Every model trains from its own
// fixed seed, which seeds both its initial weights and its minibatch stream
// (TrainRNG), so an entry trains the same way alone or with the others.

// gruVariants are the GRU forms the gru entry trains one classifier of per task.
var gruVariants = []string{VariantLecture, VariantResetAfter}

// gruSeed is the fixed training seed of a task (index into data.Tasks) and variant
// (index into gruVariants).
func gruSeed(task, variant int) uint64 { return uint64(1 + 10*task + variant) }

func gruFiles() []string {
	var files []string
	for _, task := range data.Tasks {
		for _, variant := range gruVariants {
			files = append(files, checkpointFile(task.Name, variant))
		}
	}
	return files
}

// trainSteps runs steps minibatches of step, drawn from seed's training stream
// (TrainRNG), and returns the last minibatch's loss.
func trainSteps(seed uint64, steps int, step func(rng *rand.Rand) float64) float64 {
	rng := TrainRNG(seed)
	var loss float64
	for range steps {
		loss = step(rng)
	}
	return loss
}

// trainSaved trains m for steps minibatches of step from seed's training stream
// (trainSteps), then writes its weights under dir as file with meta(), the metadata
// of the trained model, and its final_loss. It returns the metadata and the final
// loss, for the progress line.
func trainSaved(dir, file string, m paramModel, seed uint64, steps int, step func(*rand.Rand) float64, meta func() Meta) (Meta, float64, error) {
	loss := trainSteps(seed, steps, step)
	md := meta()
	md["final_loss"] = f4(loss)
	return md, loss, save(dir, file, m, md)
}

// scored is a model whose training step also reports the minibatch's accuracy.
type scored interface {
	TrainStep(rng *rand.Rand) (loss, accuracy float64)
}

// lossOf is m's training step returning the loss alone, for trainSteps.
func lossOf(m scored) func(*rand.Rand) float64 {
	return func(rng *rand.Rand) float64 {
		loss, _ := m.TrainStep(rng)
		return loss
	}
}

// since is the seconds elapsed since start, for the progress lines.
func since(start time.Time) float64 { return time.Since(start).Seconds() }

// fg writes x with all its digits (the shortest form that reads back the same), as
// the checkpoints record their measures and settings.
func fg(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// f4 writes a loss with 4 decimals, as the checkpoints record final_loss.
func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

// trainGRUs trains the gru entry: per task and GRU variant, a classifier of
// gruTrainSteps minibatches (gru-<task>-<variant>.safetensors).
func trainGRUs(dir string, o Options) error {
	steps := o.steps(gruTrainSteps)
	return trainPerTask(o, "variant", "gates", len(gruVariants), func(task *data.Task, ti, vi int) (Meta, float64, string, error) {
		seed, variant := gruSeed(ti, vi), gruVariants[vi]
		m := NewGRUClassifier(task, variant, seed)
		meta, loss, err := trainSaved(dir, checkpointFile(task.Name, variant), m, seed, steps, lossOf(m),
			func() Meta { return gruCheckpointMeta(m, seed, steps) })
		return meta, loss, variant, err
	})
}

// trainPerTask trains, for every task, n classifiers: train(task, its index, k) trains
// and saves the k-th and returns its metadata, final loss and name. It logs each one's
// accuracies and the metadata's key.
func trainPerTask(o Options, kindHeader, key string, n int, train func(task *data.Task, ti, k int) (Meta, float64, string, error)) error {
	o.logf("%-9s %-12s %8s %8s %8s  %s", "task", kindHeader, "loss", "acc", "final", key)
	for ti, task := range data.Tasks {
		for k := range n {
			start := time.Now()
			meta, loss, name, err := train(task, ti, k)
			if err != nil {
				return err
			}
			o.logf("%-9s %-12s %8.4f %8s %8s  %s  (%.1fs)", task.Name, name, loss,
				meta["accuracy"], meta["final_accuracy"], meta[key], since(start))
		}
	}
	return nil
}

// Fixed training seeds of the rnn page's models: the character-level language model
// (architecture A) and architectures B and C.
const (
	charSeed  = 4
	archBSeed = 5
	archCSeed = 6
)

// The rnn page's models record one measure each, besides their final loss.
var (
	charRecipe = measuredRecipe{model: "char-rnn", file: charCheckpointFile, hidden: CharHidden, seed: charSeed,
		key: "bits_per_char", line: "char-rnn  h=%d  loss %.4f  %.3f bits/char on the corpus  (%.1fs)"}
	archBRecipe = measuredRecipe{model: "arch-b", file: archCheckpointB, hidden: ArchBHidden, seed: archBSeed,
		key: "bits_per_char", line: "arch B    h=%d  loss %.4f  %.3f bits/char on the corpus  (%.1fs)"}
	archCRecipe = measuredRecipe{model: "arch-c", file: archCheckpointC, hidden: ArchCHidden, seed: archCSeed,
		key: "accuracy", line: "arch C    h=%d  loss %.4f  accuracy %.3f on held-out windows  (%.1fs)"}
)

// trainCharLM trains the charlm entry: the language model, charTrainSteps
// minibatches, with its bits per character on the corpus.
func trainCharLM(dir string, o Options) error {
	m := NewCharLM(charSeed)
	return charRecipe.train(dir, o, o.steps(charTrainSteps), m, m.BitsPerChar)
}

// trainArchs trains the arch entry: architecture B (output→hidden) with its bits per
// character, and C (one output after the sequence) with its held-out accuracy,
// archTrainSteps minibatches each.
func trainArchs(dir string, o Options) error {
	steps := o.steps(archTrainSteps)
	b := newArchB(archBSeed)
	if err := archBRecipe.train(dir, o, steps, b, b.BitsPerChar); err != nil {
		return err
	}
	c := newArchC(archCSeed)
	return archCRecipe.train(dir, o, steps, c, c.Accuracy)
}

// measuredRecipe trains one model that records one measure besides its final loss.
type measuredRecipe struct {
	model, file string // the checkpoint's model name and file
	hidden      int
	seed        uint64
	key         string // the measure's metadata key
	line        string // the progress line's format: h, the loss, the measure, the seconds
}

// train trains m for steps minibatches and writes its checkpoint with its name, hidden
// size, seed, steps and measure() (all digits).
func (r measuredRecipe) train(dir string, o Options, steps int, m lossModel, measure func() float64) error {
	start := time.Now()
	meta, loss, err := trainSaved(dir, r.file, m, r.seed, steps, m.TrainStep, func() Meta {
		return map[string]string{
			"model": r.model, "hidden": strconv.Itoa(r.hidden),
			"seed": strconv.FormatUint(r.seed, 10), "steps": strconv.Itoa(steps),
			r.key: fg(measure()),
		}
	})
	if err != nil {
		return err
	}
	o.logf(r.line, r.hidden, loss, meta.Float(r.key), since(start))
	return nil
}

// lossModel is a model whose training step returns the minibatch's loss.
type lossModel interface {
	paramModel
	TrainStep(rng *rand.Rand) float64
}

// seqKinds are the cells the lstm entry trains per task: the LSTM (file
// lstm-<task>.safetensors) and the vanilla tanh RNN (rnn-<task>.safetensors).
var seqKinds = []seqKind{
	{"lstm", NewLSTMClassifier, LSTMCheckpointFile},
	{"rnn", newRNNClassifier, RNNCheckpointFile},
}

// peepholeKinds is what the lstm-peephole entry trains per task: the peephole LSTM.
var peepholeKinds = []seqKind{{"lstm-peephole", NewPeepholeLSTMClassifier, PeepholeCheckpointFile}}

// seqKind is one cell a sequence-classifier entry trains per task.
type seqKind struct {
	name string
	make func(*data.Task, uint64) *SeqClassifier
	file func(string) string
}

// seqSeed is the fixed training seed of a task's LSTM (cell 0) or vanilla RNN
// (cell 1) classifier; different from every GRU seed.
func seqSeed(task, cell int) uint64 { return uint64(1997 + 10*task + cell) }

func seqFiles(kinds []seqKind) []string {
	var files []string
	for _, task := range data.Tasks {
		for _, c := range kinds {
			files = append(files, c.file(task.Name))
		}
	}
	return files
}

// trainSeqClassifiers trains the lstm entry: per task an LSTM and a vanilla RNN
// classifier of lstmTrainSteps minibatches, for the GRU/LSTM/RNN comparison.
func trainSeqClassifiers(dir string, o Options) error {
	return trainSeqKinds(dir, o, seqKinds, seqSeed)
}

// trainPeepholes trains the lstm-peephole entry: per task a peephole LSTM of
// lstmTrainSteps minibatches, compared on the lstm page with the plain LSTM.
func trainPeepholes(dir string, o Options) error {
	return trainSeqKinds(dir, o, peepholeKinds, func(task, _ int) uint64 { return uint64(2000 + 10*task) })
}

// trainSeqKinds trains per task a classifier of each kind, from seed(task, kind).
func trainSeqKinds(dir string, o Options, kinds []seqKind, seedOf func(task, kind int) uint64) error {
	steps := o.steps(lstmTrainSteps)
	return trainPerTask(o, "cell", "c_max", len(kinds), func(task *data.Task, ti, ci int) (Meta, float64, string, error) {
		seed, c := seedOf(ti, ci), kinds[ci]
		m := c.make(task, seed)
		meta, loss, err := trainSaved(dir, c.file(task.Name), m, seed, steps, lossOf(m),
			func() Meta { return seqCheckpointMeta(m, seed, steps) })
		return meta, loss, c.name, err
	})
}

// deepSeed is the fixed training seed of the market model of cell kind k (index
// into DeepKinds) and depth L.
func deepSeed(k, L int) uint64 { return uint64(100 + 10*k + L) }

func deepFiles() []string {
	var files []string
	for _, kind := range DeepKinds {
		for L := 1; L <= DeepMaxLayers; L++ {
			files = append(files, deepCheckpointFile(kind, L))
		}
	}
	return files
}

// trainMarketModels trains the deep entry: a market model per cell kind and depth
// L = 1..DeepMaxLayers, deepTrainSteps minibatches of generated bull/bear series.
func trainMarketModels(dir string, o Options) error {
	steps := o.steps(deepTrainSteps)
	for k, kind := range DeepKinds {
		for L := 1; L <= DeepMaxLayers; L++ {
			start := time.Now()
			seed := deepSeed(k, L)
			m := NewMarketModel(kind, L, seed)
			meta, loss, err := trainSaved(dir, deepCheckpointFile(kind, L), m, seed, steps, lossOf(m),
				func() Meta { return deepCheckpointMeta(m, seed, steps) })
			if err != nil {
				return err
			}
			corrs := ""
			for l := 1; l <= L; l++ {
				corrs += fmt.Sprintf(" %.2f/%.2f", meta.Float(fmt.Sprintf("slow_corr_l%d", l)), meta.Float(fmt.Sprintf("fast_corr_l%d", l)))
			}
			o.logf("deep %-4s L=%d  loss %.4f  regime accuracy %.3f  next-day MSE %.3f (best possible %.3f)  |corr| slow/fast by layer:%s  (%.1fs)",
				kind, L, loss, meta.Float("regime_accuracy"), meta.Float("next_mse"), meta.Float("best_mse"), corrs, since(start))
		}
	}
	return nil
}

// blankSeed is the fixed training seed of the unidirectional fill-in-the-blank
// model; the bidirectional one uses the next integer.
const blankSeed = 97

// trainFillBlanks trains the birnn entry: a unidirectional and a bidirectional RNN,
// blankTrainSteps minibatches each of the same generated fill-in-the-blank sentences.
func trainFillBlanks(dir string, o Options) error {
	steps := o.steps(blankTrainSteps)
	for i, bi := range []bool{false, true} {
		start := time.Now()
		seed := uint64(blankSeed + i)
		m := NewFillBlank(bi, seed)
		meta, loss, err := trainSaved(dir, blankCheckpointFile(bi), m, seed, steps, lossOf(m),
			func() Meta { return blankCheckpointMeta(m, seed, steps) })
		if err != nil {
			return err
		}
		o.logf("fill-blank bidirectional=%-5v loss %.4f  held-out accuracy %s (chance %s, mean p(answer) %s)  (%.1fs)",
			bi, loss, meta["accuracy"], meta["chance"], meta["p_answer"], since(start))
	}
	return nil
}

// trainEmbeddings trains the embeddings entry: the skip-gram model from embedSeed,
// embedTrainSteps steps on the English side of the corpus.
func trainEmbeddings(dir string, o Options) error {
	start := time.Now()
	steps := o.steps(embedTrainSteps)
	m, curve, err := TrainEmbeddings(embedSeed, steps)
	if err != nil {
		return err
	}
	meta := embedCheckpointMeta(m, embedSeed, steps, curve)
	if err := save(dir, embedFile, m, meta); err != nil {
		return err
	}
	o.logf("embeddings d=%d  loss %.4f  same-class nearest neighbour %s (chance %s)  analogies %s  (%.1fs)",
		EmbedDim, curve[len(curve)-1], meta["same_class_nn"], meta["same_class_chance"], meta["analogies"], since(start))
	return nil
}

func translatorFiles() []string {
	files := make([]string, len(TranslatorSpecs))
	for i, s := range TranslatorSpecs {
		files[i] = s.File()
	}
	return files
}

// trainTranslators trains the seq2seq entry: every TranslatorSpecs model, side by
// side (each from its own seed, so the files do not depend on the scheduling), each
// scored on its held-out split greedily and by beam search, the decodings recorded
// in its metadata (recordTestTranslations).
func trainTranslators(dir string, o Options) error {
	errs := make([]error, len(TranslatorSpecs))
	lines := make([]string, len(TranslatorSpecs))
	var wg sync.WaitGroup
	for i, spec := range TranslatorSpecs {
		wg.Go(func() {
			lines[i], errs[i] = trainTranslator(dir, spec, o.steps(spec.Steps))
		})
	}
	wg.Wait()
	for i := range TranslatorSpecs {
		if errs[i] != nil {
			return errs[i]
		}
		o.logf("%s", lines[i])
	}
	return nil
}

// trainTranslator trains one translator for steps minibatches of Adam and writes
// its checkpoint; it returns its progress line.
func trainTranslator(dir string, spec TranslatorSpec, steps int) (string, error) {
	start := time.Now()
	tr := spec.New()
	opt := models.NewAdam(TranslatorLR)
	loss := trainSteps(spec.Config.Seed, steps, func(rng *rand.Rand) float64 { return tr.TrainStep(opt, rng) })
	meta := map[string]string{}
	greedyOut, beamOut := recordTestTranslations(tr, meta)
	greedy, beam := tr.Task.Score(greedyOut, tr.Task.Test), tr.Task.Score(beamOut, tr.Task.Test)
	maps.Copy(meta, map[string]string{
		"model": spec.Name, "task": tr.Task.Name,
		"attention": strconv.FormatBool(spec.Config.Attention),
		"embed":     strconv.Itoa(spec.Config.Embed), "hidden": strconv.Itoa(spec.Config.Hidden),
		"seed": strconv.FormatUint(spec.Config.Seed, 10), "steps": strconv.Itoa(steps),
		"batch": strconv.Itoa(translatorBatch), "final_loss": f4(loss),
		"test_bleu_greedy": f4(greedy.BLEU), "test_exact_greedy": f4(greedy.Exact),
		"test_bleu_beam": f4(beam.BLEU), "test_exact_beam": f4(beam.Exact),
		"beam_size": strconv.Itoa(RecordedBeam),
	})
	if err := save(dir, spec.File(), tr, meta); err != nil {
		return "", err
	}
	return fmt.Sprintf("%-17s loss %.4f  test BLEU greedy %.4f beam-%d %.4f  exact greedy %.4f beam %.4f  (%.1fs)",
		spec.Name, loss, greedy.BLEU, RecordedBeam, beam.BLEU, greedy.Exact, beam.Exact, since(start)), nil
}

// loadTranslators is the seq2seq entry's Load: the four translators, then what the
// pages derive from their recorded test translations (RecordedTranslations,
// AttentionLengthScores, CorpusBLEU).
func loadTranslators() error {
	for _, load := range []func() error{
		loadOnce(translatorCheckpoints), loadOnce(recordedTranslations),
		loadOnce(AttentionLengthScores), loadOnce(CorpusBLEU),
	} {
		if err := load(); err != nil {
			return err
		}
	}
	return nil
}
