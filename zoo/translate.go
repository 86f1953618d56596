package zoo

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"unroll/data"
	"unroll/models"
)

// TranslationTask is a sequence-to-sequence task of lecture 4.6: pairs split into
// train and test, how a sentence becomes tokens, and how tokens join back.
type TranslationTask struct {
	Name        string // "corpus" or "dates"
	Train, Test []data.Pair
	// Tokenize splits one side of a pair: words (models.Tokenize after
	// models.NormalizeMT) for the corpus, characters (CharTokens) for dates.
	Tokenize func(string) []string
	// Sep joins output tokens back into a sentence: " " for words, "" for characters.
	Sep string
	// MaxSource bounds a typed source sentence, in tokens; MaxOutput bounds decoding.
	MaxSource, MaxOutput int

	vocabs sync.Once
	src    *models.Vocab
	tgt    *models.Vocab

	trainIDs sync.Once
	train    [][2][]int // the training split as ids: source, labels ending in <eos>
}

// Vocabs are the source and target vocabularies of the training split (minimum
// frequency 1), built once.
func (t *TranslationTask) Vocabs() (src, tgt *models.Vocab) {
	t.vocabs.Do(func() {
		var s, g [][]string
		for _, p := range t.Train {
			s, g = append(s, t.Tokenize(p.En)), append(g, t.Tokenize(p.Fr))
		}
		t.src, t.tgt = models.NewVocab(s, 1), models.NewVocab(g, 1)
	})
	return t.src, t.tgt
}

// Join writes tokens back as a sentence (the inverse of Tokenize on its output).
func (t *TranslationTask) Join(tokens []string) string {
	if t.Sep == "" {
		return strings.ReplaceAll(strings.Join(tokens, ""), data.SpaceToken, " ")
	}
	return strings.Join(tokens, t.Sep)
}

// The two translation tasks.
var (
	// CorpusTask is English → French on the bundled corpus (data.Corpus).
	CorpusTask = sync.OnceValue(func() *TranslationTask {
		train, test := data.Corpus()
		return &TranslationTask{
			Name: "corpus", Train: train, Test: test,
			Tokenize:  func(s string) []string { return models.Tokenize(models.NormalizeMT(s)) },
			Sep:       " ",
			MaxSource: 2 * data.MaxSentenceTokens,
			MaxOutput: 2 * data.MaxSentenceTokens,
		}
	})
	// DatesTask is date normalisation (data.Dates), one token per character.
	DatesTask = sync.OnceValue(func() *TranslationTask {
		train, test := data.Dates()
		return &TranslationTask{
			Name: "dates", Train: train, Test: test,
			Tokenize:  func(s string) []string { return data.CharTokens(strings.ToLower(strings.TrimSpace(s))) },
			Sep:       "",
			MaxSource: 40,
			MaxOutput: 12,
		}
	})
)

// TranslatorConfig sizes a translator's encoder-decoder.
type TranslatorConfig struct {
	Attention     bool
	Embed, Hidden int
	// Layers is L, the GRU layers of the encoder and of the decoder (seed 004):
	// 0 or 1 is one (Translator.Model), more is a models.StackedSeq2Seq
	// (Translator.Stack), which has no attention.
	Layers int
	Seed   uint64
}

// Translator is an encoder-decoder (models.Seq2Seq, or models.AttentionSeq2Seq when
// Attention) with its task and the vocabularies of the task's training split
// (minimum frequency 1), which are rebuilt from the task rather than stored.
// Translating only reads it; TrainStep writes its weights, its gradients, the
// optimiser's state and the minibatch it keeps for the next step.
type Translator struct {
	Task   *TranslationTask
	Config TranslatorConfig
	Model  *models.EncoderDecoder // nil when Stack is not
	// Stack is the model when Config.Layers > 1 (Model is nil then): it trains and
	// decodes greedily, without beam search.
	Stack    *models.StackedSeq2Seq
	Src, Tgt *models.Vocab

	minibatch *translatorMinibatch // TrainStep's, reused; nil until the first step
}

// translatorMinibatch is TrainStep's minibatch, reused from step to step: the pairs
// drawn and the padded Batch.
type translatorMinibatch struct {
	src, tgt [translatorBatch][]int
	batch    models.Batch
}

// WithoutWeights is tr's task, sizes and vocabularies without its model: what a page
// keeps once it has computed everything it shows with weights that nobody else
// shares (an untrained page's), so that an idle session does not hold a model.
// Translating with it panics.
func (tr *Translator) WithoutWeights() *Translator {
	return &Translator{Task: tr.Task, Config: tr.Config, Src: tr.Src, Tgt: tr.Tgt}
}

// NewTranslator returns an untrained translator for task, weights drawn from cfg.Seed.
// Attention with more than one layer panics: the stacked model has none.
func NewTranslator(task *TranslationTask, cfg TranslatorConfig) *Translator {
	src, tgt := task.Vocabs()
	mc := models.Seq2SeqConfig{SrcVocab: src.Len(), TgtVocab: tgt.Len(), Embed: cfg.Embed, Hidden: cfg.Hidden, Seed: cfg.Seed}
	tr := &Translator{Task: task, Config: cfg, Src: src, Tgt: tgt}
	switch {
	case cfg.Layers > 1 && cfg.Attention:
		panic(fmt.Sprintf("zoo: a translator with attention and L = %d layers: the stacked model has no attention", cfg.Layers))
	case cfg.Layers > 1:
		tr.Stack = models.NewStackedSeq2Seq(mc, cfg.Layers)
	case cfg.Attention:
		tr.Model = &models.NewAttentionSeq2Seq(mc).EncoderDecoder
	default:
		tr.Model = &models.NewSeq2Seq(mc).EncoderDecoder
	}
	return tr
}

// Params lists the model's parameters (models.EncoderDecoder.Params, or
// models.StackedSeq2Seq.Params).
func (tr *Translator) Params() models.Params {
	if tr.Stack != nil {
		return tr.Stack.Params()
	}
	return tr.Model.Params()
}

// trainingIDs is the training split as ids in the task's vocabularies, built on the
// first training step of any of the task's translators and shared by all of them
// (read-only).
func (t *TranslationTask) trainingIDs() [][2][]int {
	t.trainIDs.Do(func() {
		src, tgt := t.Vocabs()
		for _, p := range t.Train {
			t.train = append(t.train, [2][]int{src.IDs(t.Tokenize(p.En)), append(tgt.IDs(t.Tokenize(p.Fr)), models.EosID)})
		}
	})
	return t.train
}

// Source turns a typed sentence into source ids (unknown tokens become <unk>). It
// returns the tokens too, and an error naming the problem for an empty or too long
// sentence.
func (tr *Translator) Source(sentence string) (ids []int, tokens []string, err error) {
	if !utf8.ValidString(sentence) {
		return nil, nil, fmt.Errorf("the sentence is not valid UTF-8 text")
	}
	tokens = tr.Task.Tokenize(sentence)
	switch {
	case len(tokens) == 0:
		return nil, nil, fmt.Errorf("the sentence is empty: type at least one word")
	case len(tokens) > tr.Task.MaxSource:
		return nil, nil, fmt.Errorf("the sentence has %d tokens; at most %d fit", len(tokens), tr.Task.MaxSource)
	}
	return tr.Src.IDs(tokens), tokens, nil
}

// Target turns a reference translation into labels ending in <eos>, with the same
// limits as Source.
func (tr *Translator) Target(sentence string) ([]int, error) {
	toks := tr.Task.Tokenize(sentence)
	switch {
	case len(toks) == 0:
		return nil, fmt.Errorf("the reference is empty")
	case len(toks) >= tr.Task.MaxOutput:
		return nil, fmt.Errorf("the reference has %d tokens; at most %d fit", len(toks), tr.Task.MaxOutput-1)
	}
	return append(tr.Tgt.IDs(toks), models.EosID), nil
}

// Words writes target ids as a sentence, stopping at <eos>.
func (tr *Translator) Words(ids []int) string {
	if i := slices.Index(ids, models.EosID); i >= 0 {
		ids = ids[:i]
	}
	return tr.Task.Join(tr.Tgt.Tokens(ids))
}

// Greedy translates source ids greedily.
func (tr *Translator) Greedy(src []int) string {
	if tr.Stack != nil {
		run, err := tr.Stack.FreeRun(src, tr.Task.MaxOutput)
		if err != nil {
			panic(err) // src came from Source
		}
		return tr.Words(run.Outputs())
	}
	out, err := tr.Model.Greedy(src, tr.Task.MaxOutput)
	if err != nil {
		panic(err) // src came from Source
	}
	return tr.Words(out)
}

// Beam translates source ids by beam search of width k with length normalisation α.
// A stacked translator (Stack) has no beam search and panics.
func (tr *Translator) Beam(src []int, k int, alpha float64) string {
	if tr.Stack != nil {
		panic("zoo: beam search of a stacked translator: only greedy decoding is implemented")
	}
	start, step, err := tr.Model.Searcher(src)
	if err != nil {
		panic(err)
	}
	cfg := models.SearchConfig{BOS: models.BosID, EOS: models.EosID, MaxLen: tr.Task.MaxOutput, BeamSize: k, Alpha: alpha}
	return tr.Words(models.BeamDecode(start, cfg, step).Tokens)
}

// translatorBatch is the number of pairs per training minibatch.
const translatorBatch = 32

// TranslatorBatch is translatorBatch, which the pages state.
const TranslatorBatch = translatorBatch

// TranslatorLR is Adam's learning rate for the translators (d2l's seq2seq uses 0.005).
const TranslatorLR = 0.005

// translatorClip is the gradient-norm clipping threshold of training (lecture 4.6
// clips the seq2seq gradients as in 4.2).
const translatorClip = 1

// TrainStep draws a minibatch of translatorBatch training pairs from rng and takes
// one optimiser step; it returns the mean per-token loss.
func (tr *Translator) TrainStep(opt models.Optimizer, rng *rand.Rand) float64 {
	pairs := tr.Task.trainingIDs()
	mb := tr.minibatch
	if mb == nil {
		mb = new(translatorMinibatch)
		tr.minibatch = mb
	}
	for i := range mb.src {
		p := pairs[rng.IntN(len(pairs))]
		mb.src[i], mb.tgt[i] = p[0], p[1]
	}
	if err := mb.batch.Fill(mb.src[:], mb.tgt[:]); err != nil {
		panic(err) // the task's pairs are never empty
	}
	if tr.Stack != nil {
		loss, _, _ := tr.Stack.TrainStep(mb.batch, opt, translatorClip)
		return loss
	}
	loss, _, _ := tr.Model.TrainStep(mb.batch, opt, translatorClip)
	return loss
}

// Score is a translator's quality on a list of pairs.
type Score struct {
	BLEU  float64 // corpus BLEU, uniform weights, N = 4
	Exact float64 // share of outputs equal to the reference
}

// Translate translates the source side of every pair: greedily when beam ≤ 1, else
// by beam search of that width with α = evalAlpha.
func (tr *Translator) Translate(pairs []data.Pair, beam int) []string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		src, _, err := tr.Source(p.En)
		if err != nil {
			panic(err) // the task's own pairs always fit
		}
		if beam <= 1 {
			out[i] = tr.Greedy(src)
		} else {
			out[i] = tr.Beam(src, beam, evalAlpha)
		}
	}
	return out
}

// evalAlpha is the length-normalisation exponent of the recorded beam-search scores
// (lecture 003's usual 0.75).
const evalAlpha = 0.75

// CorpusBLEU scores translations of pairs against their targets: corpus BLEU with
// uniform weights and N = 4, on the task's tokens.
func (t *TranslationTask) CorpusBLEU(cands []string, pairs []data.Pair) models.BLEUResult {
	cs := make([][]string, len(pairs))
	refs := make([][][]string, len(pairs))
	for i, p := range pairs {
		cs[i] = t.Tokenize(cands[i])
		refs[i] = [][]string{t.Tokenize(p.Fr)}
	}
	res, err := models.CorpusBLEUTokens(cs, refs, models.BLEUOptions{MaxN: 4, Weights: models.WeightsUniform})
	if err != nil {
		panic(err) // one reference per candidate, valid options
	}
	return res
}

// Evaluate translates pairs (see Translate) and scores the outputs.
func (tr *Translator) Evaluate(pairs []data.Pair, beam int) Score {
	return tr.Task.Score(tr.Translate(pairs, beam), pairs)
}

// Score scores translations cands of pairs: corpus BLEU and exact matches.
func (t *TranslationTask) Score(cands []string, pairs []data.Pair) Score {
	exact := 0
	for i, p := range pairs {
		if cands[i] == t.Join(t.Tokenize(p.Fr)) {
			exact++
		}
	}
	return Score{BLEU: t.CorpusBLEU(cands, pairs).BLEU, Exact: float64(exact) / float64(len(pairs))}
}

// TranslatorSpec is a bundled translator: its checkpoint name, task and sizes.
type TranslatorSpec struct {
	Name   string // checkpoint file name without extension
	Task   func() *TranslationTask
	Config TranslatorConfig
	Steps  int // training minibatches (cmd/train)
}

// TranslatorSpecs are the bundled translators: the GRU seq2seq and the attention
// model on the corpus and on the dates.
var TranslatorSpecs = []TranslatorSpec{
	{Name: "seq2seq-corpus", Task: CorpusTask, Config: TranslatorConfig{Embed: 32, Hidden: 64, Seed: 46}, Steps: 3000},
	{Name: "attention-corpus", Task: CorpusTask, Config: TranslatorConfig{Attention: true, Embed: 32, Hidden: 64, Seed: 47}, Steps: 3000},
	{Name: "seq2seq-dates", Task: DatesTask, Config: TranslatorConfig{Embed: 32, Hidden: 64, Seed: 48}, Steps: 3000},
	{Name: "attention-dates", Task: DatesTask, Config: TranslatorConfig{Attention: true, Embed: 32, Hidden: 64, Seed: 49}, Steps: 3000},
}

// FindTranslatorSpec returns the spec called name.
func FindTranslatorSpec(name string) (TranslatorSpec, bool) {
	for _, s := range TranslatorSpecs {
		if s.Name == name {
			return s, true
		}
	}
	return TranslatorSpec{}, false
}

// New returns the spec's untrained translator.
func (s TranslatorSpec) New() *Translator { return NewTranslator(s.Task(), s.Config) }

// File is the spec's checkpoint file name.
func (s TranslatorSpec) File() string { return s.Name + ".safetensors" }

// translatorCheckpoints loads every bundled translator once: the shared, read-only
// models (see bundled) that every page showing a bundled translator reads.
var translatorCheckpoints = sync.OnceValues(func() (map[string]bundled[*Translator], error) {
	out := map[string]bundled[*Translator]{}
	for _, s := range TranslatorSpecs {
		b, err := loadBundled(s.File(), s.New())
		if err != nil {
			return nil, err
		}
		out[s.Name] = b
	}
	return out, nil
})

// bundledTranslator is the bundled translator called name.
func bundledTranslator(name string) (bundled[*Translator], TranslatorSpec, error) {
	spec, ok := FindTranslatorSpec(name)
	if !ok {
		return bundled[*Translator]{}, spec, fmt.Errorf("zoo: no translator called %q", name)
	}
	cks, err := translatorCheckpoints()
	if err != nil {
		return bundled[*Translator]{}, spec, err
	}
	return cks[name], spec, nil
}

// LoadTranslator returns a fresh copy of the bundled translator called name (one of
// TranslatorSpecs), with its checkpoint's metadata (recorded scores, steps, seed).
// Each call returns its own model, so a page may train it.
func LoadTranslator(name string) (*Translator, map[string]string, error) {
	b, spec, err := bundledTranslator(name)
	if err != nil {
		return nil, nil, err
	}
	return b.copyOf(spec.New()), b.meta, nil
}

// SharedTranslator is LoadTranslator without the copy: the one loaded translator,
// shared by every page that only translates with it. Nothing may train it.
func SharedTranslator(name string) (*Translator, map[string]string, error) {
	b, _, err := bundledTranslator(name)
	return b.model, b.meta, err
}

// RecordedBeam is the beam width of a bundled translator's recorded beam-search
// translations and scores.
const RecordedBeam = 4

// The checkpoint metadata keys holding a bundled translator's translations of its
// task's test split (JSON lists of strings, in test order), written by cmd/train
// and checked against fresh decodings by TestShippedTranslatorsMeetTheTargets.
const (
	metaTestGreedy = "test_greedy"
	metaTestBeam   = "test_beam"
)

// recordTestTranslations decodes tr's test split greedily and by beam search
// (width RecordedBeam, α = evalAlpha) and stores both lists in meta, so pages
// that show the bundled models' test translations need not decode at start-up.
func recordTestTranslations(tr *Translator, meta map[string]string) (greedy, beam []string) {
	greedy, beam = tr.Translate(tr.Task.Test, 1), tr.Translate(tr.Task.Test, RecordedBeam)
	for key, out := range map[string][]string{metaTestGreedy: greedy, metaTestBeam: beam} {
		raw, err := json.Marshal(out)
		if err != nil {
			panic(err) // a list of strings always marshals
		}
		meta[key] = string(raw)
	}
	return greedy, beam
}

// TestTranslations are a bundled translator's recorded translations of its task's
// test split (see recordTestTranslations): greedy, and by beam search of width
// RecordedBeam.
type TestTranslations struct {
	Greedy, Beam []string
}

// recordedTranslations reads every bundled translator's recorded test translations once.
var recordedTranslations = sync.OnceValues(func() (map[string]TestTranslations, error) {
	cks, err := translatorCheckpoints()
	if err != nil {
		return nil, err
	}
	out := map[string]TestTranslations{}
	for _, s := range TranslatorSpecs {
		var rec TestTranslations
		for key, dst := range map[string]*[]string{metaTestGreedy: &rec.Greedy, metaTestBeam: &rec.Beam} {
			if err := json.Unmarshal([]byte(cks[s.Name].meta[key]), dst); err != nil {
				return nil, fmt.Errorf("zoo: checkpoint %s: metadata %q: %w", s.File(), key, err)
			}
			if n := len(s.Task().Test); len(*dst) != n {
				return nil, fmt.Errorf("zoo: checkpoint %s: metadata %q holds %d translations for %d test pairs: retrain with go run ./cmd/train -only seq2seq", s.File(), key, len(*dst), n)
			}
		}
		out[s.Name] = rec
	}
	return out, nil
})

// RecordedTranslations returns the bundled translator name's recorded test translations.
func RecordedTranslations(name string) (TestTranslations, error) {
	recs, err := recordedTranslations()
	if err != nil {
		return TestTranslations{}, err
	}
	rec, ok := recs[name]
	if !ok {
		return TestTranslations{}, fmt.Errorf("zoo: no translator called %q", name)
	}
	return rec, nil
}
