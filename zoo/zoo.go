// Package zoo holds the models bundled with Unroll: each one's definition, its
// training recipe (fixed seeds, steps, the metadata recorded with it) and its
// checkpoint, embedded from zoo/checkpoints.
//
// Bundled is the one list of them. go run ./cmd/train trains every Entry (or the
// ones named with -only) and writes its Files; a server calls Load before it
// serves, so a broken binary refuses to start instead of failing on a first page.
// Adding a bundled model is one Entry: its Files, how to Train them and how to
// Load them.
//
// The lessons read the loaded models through the Shared… functions (one model for
// every page, read-only) or the Load… functions (a copy of the weights a page may
// train). zoo imports only the standard library, gonum, unroll/models and
// unroll/data, and renameio to write checkpoint files (internal/arch checks it).
package zoo

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
)

// Entry is one family of bundled models.
type Entry struct {
	Name  string   // what go run ./cmd/train -only takes
	About string   // the models, in a line
	Files []string // the checkpoints Train writes, file names under zoo/checkpoints

	// Train trains every model of the entry from its fixed seed and writes Files
	// into dir: deterministic, the same call writes byte-identical files.
	Train func(dir string, o Options) error
	// Load parses the entry's bundled checkpoints, and what is derived from them,
	// once per process; later calls return the first result.
	Load func() error
}

// Options tune a Train call.
type Options struct {
	// Steps replaces every model's number of training minibatches (or skip-gram
	// steps) when positive: for a quick try, which then no longer reproduces the
	// bundled files. 0 keeps each recipe's own.
	Steps int
	// Log receives one line per trained model with its recorded scores; nil for none.
	Log io.Writer
}

// steps is o.Steps, or def when o.Steps is not positive.
func (o Options) steps(def int) int {
	if o.Steps > 0 {
		return o.Steps
	}
	return def
}

// logf writes one progress line to o.Log, if any.
func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// Bundled lists every bundled model family, in the order cmd/train trains them.
var Bundled = []Entry{
	{Name: "gru", About: "GRU classifiers per task and GRU variant (gru lesson)",
		Files: gruFiles(), Train: trainGRUs, Load: loadOnce(gruCheckpoints)},
	{Name: "charlm", About: "character-level language model, architecture A (rnn lesson)",
		Files: []string{charCheckpointFile}, Train: trainCharLM, Load: loadOnce(SharedCharLM)},
	{Name: "arch", About: "architectures B (output→hidden) and C (one output at the end) (rnn lesson)",
		Files: []string{archCheckpointB, archCheckpointC}, Train: trainArchs, Load: loadOnce(archModels)},
	{Name: "lstm", About: "LSTM and vanilla-RNN classifiers per task (lstm lesson)",
		Files: seqFiles(seqKinds), Train: trainSeqClassifiers, Load: loadOnce(seqCheckpoints)},
	{Name: "lstm-peephole", About: "peephole LSTM classifiers per task (lstm lesson, seed 003's variant)",
		Files: seqFiles(peepholeKinds), Train: trainPeepholes, Load: loadOnce(seqCheckpoints)},
	{Name: "deep", About: "market models per cell kind and depth L (deep-rnn lesson)",
		Files: deepFiles(), Train: trainMarketModels, Load: loadOnce(deepCheckpoints)},
	{Name: "birnn", About: "unidirectional and bidirectional fill-in-the-blank RNNs (birnn lesson)",
		Files: []string{blankCheckpointFile(false), blankCheckpointFile(true)}, Train: trainFillBlanks, Load: loadOnce(blankCheckpoints)},
	{Name: "next-word", About: "unidirectional and bidirectional next-word RNNs: the bidirectional one sees x_{t+1} (birnn lesson)",
		Files: []string{nextWordCheckpointFile(false), nextWordCheckpointFile(true)}, Train: trainNextWords, Load: loadOnce(nextWordCheckpoints)},
	{Name: "embeddings", About: "skip-gram word embeddings of the English corpus (embeddings lesson)",
		Files: []string{embedFile}, Train: trainEmbeddings, Load: loadOnce(embedCheckpoint)},
	{Name: "sentiment", About: "average-of-embeddings and GRU sentiment classifiers on one E (sentiment lesson)",
		Files: []string{sentimentFile}, Train: trainSentimentEntry, Load: loadOnce(sentimentCheckpoint)},
	{Name: "captioning", About: "image captioners, vector to sequence in seed 002's three approaches (captioning lesson)",
		Files: captionFiles(), Train: trainCaptions, Load: loadOnce(captionCheckpoints)},
	{Name: "seq2seq", About: "GRU seq2seq and attention translators, corpus and dates (several minutes to train)",
		Files: translatorFiles(), Train: trainTranslators, Load: loadTranslators},
	{Name: "seq2seq-layers", About: "GRU seq2seq with L = 2 and 3 layers a side, English → French (encoder-decoder lesson, a few minutes)",
		Files: stackedTranslatorFiles(), Train: trainStackedTranslators, Load: loadOnce(stackedCheckpoints)},
	{Name: "transformer", About: "Transformer translators on the dates, with and without the causal mask (transformer lesson)",
		Files: transformerFiles(TransformerSpecs), Train: trainTransformers(TransformerSpecs), Load: loadOnce(transformerCheckpoints)},
	{Name: "transformer-corpus", About: "a Transformer translating the English–French corpus (transformer lesson)",
		Files: transformerFiles(TransformerCorpusSpecs), Train: trainTransformers(TransformerCorpusSpecs), Load: loadOnce(transformerCheckpoints)},
}

// loadOnce turns a once-per-process loader into an Entry's Load.
func loadOnce[T any](load func() (T, error)) func() error {
	return func() error { _, err := load(); return err }
}

// Find returns the entry called name.
func Find(name string) (Entry, bool) {
	i := slices.IndexFunc(Bundled, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return Entry{}, false
	}
	return Bundled[i], true
}

// Names lists the entries' names in Bundled order.
func Names() []string {
	names := make([]string, len(Bundled))
	for i, e := range Bundled {
		names[i] = e.Name
	}
	return names
}

// Load parses every bundled checkpoint, and what is derived from them, now rather
// than on the first page that needs one (about 0.1 s), so that a server can refuse
// to start with a broken binary.
func Load() error {
	for _, e := range Bundled {
		if err := e.Load(); err != nil {
			return fmt.Errorf("zoo: %s: %w", e.Name, err)
		}
	}
	return nil
}

// trainStream is the PCG stream of every training run's minibatch draws, bundled or
// live: rand.NewPCG(seed, trainStream). The seed picks the run; the stream, fixed
// once and never changed since, keeps the draws apart from the weights' own
// initialisation streams (0x6a7, 0x1997, 0xc4a2, …) drawn from the same seed, and
// changing it would change every bundled checkpoint.
const trainStream = 0x7a1

// TrainRNG is the random source a training run from seed draws its minibatches
// from: the bundled checkpoints' recipes and the pages' "train from scratch" alike.
func TrainRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, trainStream)) }
