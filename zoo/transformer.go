package zoo

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"unroll/data"
	"unroll/models"
)

// TransformerSpec is a bundled Transformer translator: its checkpoint name, task,
// sizes and training recipe.
type TransformerSpec struct {
	Name   string // checkpoint file name without extension
	Task   func() *TranslationTask
	Config models.TransformerConfig // vocabulary sizes are filled in from the task
	// Unmasked trains without the causal mask: the decoder sees the whole target, the
	// answer included (the transformer page's "no mask" switch).
	Unmasked bool
	Steps    int // training minibatches (cmd/train)
}

// The recipe every bundled Transformer shares.
const (
	transformerBatch  = 32    // pairs per minibatch, as the GRU translators (translatorBatch)
	transformerLR     = 0.003 // Adam's learning rate after the warm-up
	transformerClip   = 1     // global gradient-norm clipping, as the GRU translators
	transformerWarmup = 200   // steps of linear learning-rate warm-up, which post-LN layers need
)

// transformerSize is the "small": N = 2 layers, h = 4 heads, d = 32.
func transformerSize(seed uint64) models.TransformerConfig {
	return models.TransformerConfig{D: 32, Heads: 4, FF: 64, Layers: 2, Seed: seed}
}

// TransformerSpecs are the bundled Transformers: on the dates with the causal mask,
// the same without it, and on the corpus.
var TransformerSpecs = []TransformerSpec{
	{Name: "transformer-dates", Task: DatesTask, Config: transformerSize(2017), Steps: 4000},
	{Name: "transformer-dates-unmasked", Task: DatesTask, Config: transformerSize(2018), Unmasked: true, Steps: 500},
}

// TransformerCorpusSpecs are the bundled Transformers of the English–French corpus
// (their own entry, transformer-corpus, so that the dates' models need not retrain).
var TransformerCorpusSpecs = []TransformerSpec{
	{Name: "transformer-corpus", Task: CorpusTask, Config: transformerSize(2019), Steps: 3000},
}

// allTransformerSpecs lists both entries' specs.
func allTransformerSpecs() []TransformerSpec {
	return append(append([]TransformerSpec(nil), TransformerSpecs...), TransformerCorpusSpecs...)
}

// TransformerTranslator is a models.Transformer with its task and the vocabularies of
// the task's training split (the GRU translators' vocabularies: the same ids).
type TransformerTranslator struct {
	Task     *TranslationTask
	Spec     TransformerSpec
	Model    *models.Transformer
	Src, Tgt *models.Vocab
}

// New returns the spec's untrained translator.
func (s TransformerSpec) New() *TransformerTranslator {
	task := s.Task()
	src, tgt := task.Vocabs()
	cfg := s.Config
	cfg.SrcVocab, cfg.TgtVocab = src.Len(), tgt.Len()
	m := models.NewTransformer(cfg)
	m.Unmasked = s.Unmasked
	return &TransformerTranslator{Task: task, Spec: s, Model: m, Src: src, Tgt: tgt}
}

// File is the spec's checkpoint file name.
func (s TransformerSpec) File() string { return s.Name + ".safetensors" }

// Params lists the model's parameters.
func (tr *TransformerTranslator) Params() models.Params { return tr.Model.Params() }

// lr is the learning rate of step (1-based): linear warm-up, then transformerLR.
func transformerRate(step int) float64 {
	return transformerLR * min(1, float64(step)/transformerWarmup)
}

// TrainStep draws transformerBatch training pairs from rng and takes one Adam step
// with opt, whose learning rate it sets for step (1-based, for the warm-up); it
// returns the mean per-token loss.
func (tr *TransformerTranslator) TrainStep(opt *models.Adam, step int, rng *rand.Rand) float64 {
	pairs := tr.Task.trainingIDs()
	src, tgt := make([][]int, transformerBatch), make([][]int, transformerBatch)
	for i := range src {
		p := pairs[rng.IntN(len(pairs))]
		src[i], tgt[i] = p[0], p[1]
	}
	opt.LR = transformerRate(step)
	loss, err := tr.Model.TrainStep(src, tgt, opt, transformerClip)
	if err != nil {
		panic(err) // the task's pairs are never empty
	}
	return loss
}

// Source is Translator.Source for this translator's task and vocabulary.
func (tr *TransformerTranslator) Source(sentence string) ([]int, []string, error) {
	return (&Translator{Task: tr.Task, Src: tr.Src}).Source(sentence)
}

// Words writes target ids as a sentence, stopping at <eos>.
func (tr *TransformerTranslator) Words(ids []int) string {
	if i := slices.Index(ids, models.EosID); i >= 0 {
		ids = ids[:i]
	}
	return tr.Task.Join(tr.Tgt.Tokens(ids))
}

// Greedy translates source ids greedily.
func (tr *TransformerTranslator) Greedy(src []int) string {
	out, err := tr.Model.Greedy(src, tr.Task.MaxOutput)
	if err != nil {
		panic(err) // src came from Source
	}
	return tr.Words(out)
}

// Translate translates the source side of every pair greedily.
func (tr *TransformerTranslator) Translate(pairs []data.Pair) []string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		src, _, err := tr.Source(p.En)
		if err != nil {
			panic(err) // the task's own pairs always fit
		}
		out[i] = tr.Greedy(src)
	}
	return out
}

// TeacherForced is how a translator does when the decoder is fed the reference
// (teacher forcing) instead of its own outputs.
type TeacherForced struct {
	Tokens float64 // share of target tokens y_t' (with <eos>) that are the argmax given y_<t'
	Exact  float64 // share of pairs with every token right
}

// TeacherForced scores tr on pairs under teacher forcing: one decoder pass per pair
// over <bos>, y_1, …, y_{T'−1}, each position's argmax against y_t'.
func (tr *TransformerTranslator) TeacherForced(pairs []data.Pair) TeacherForced {
	right, total, exact := 0, 0, 0
	for _, p := range pairs {
		src, _, err := tr.Source(p.En)
		if err != nil {
			panic(err)
		}
		labels := append(tr.Tgt.IDs(tr.Task.Tokenize(p.Fr)), models.EosID)
		enc, err := tr.Model.Encode(src)
		if err != nil {
			panic(err)
		}
		dec, err := tr.Model.Decode(enc, models.TeacherInput(labels))
		if err != nil {
			panic(err)
		}
		all := true
		for t, y := range labels {
			if models.Argmax(dec.Logits.RawRowView(t)) == y {
				right++
			} else {
				all = false
			}
		}
		total += len(labels)
		if all {
			exact++
		}
	}
	return TeacherForced{Tokens: float64(right) / float64(total), Exact: float64(exact) / float64(len(pairs))}
}

// The checkpoint metadata keys of a bundled Transformer's recorded scores.
const (
	metaTeacherTokens = "test_teacher_tokens"
	metaTeacherExact  = "test_teacher_exact"
)

// trainTransformers trains every model of specs, side by side (each from its own
// seed), scores it on its held-out split and records its greedy test translations.
func trainTransformers(specs []TransformerSpec) func(dir string, o Options) error {
	return func(dir string, o Options) error { return trainTransformerSpecs(specs, dir, o) }
}

func trainTransformerSpecs(specs []TransformerSpec, dir string, o Options) error {
	errs := make([]error, len(specs))
	lines := make([]string, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() { lines[i], errs[i] = trainTransformer(dir, spec, o.steps(spec.Steps)) })
	}
	wg.Wait()
	for i := range specs {
		if errs[i] != nil {
			return errs[i]
		}
		o.logf("%s", lines[i])
	}
	return nil
}

// trainTransformer trains one spec for steps minibatches and writes its checkpoint.
func trainTransformer(dir string, spec TransformerSpec, steps int) (string, error) {
	start := time.Now()
	tr := spec.New()
	opt := models.NewAdam(transformerLR)
	step := 0
	loss := trainSteps(spec.Config.Seed, steps, func(rng *rand.Rand) float64 {
		step++
		return tr.TrainStep(opt, step, rng)
	})
	greedyOut := tr.Translate(tr.Task.Test)
	raw, err := json.Marshal(greedyOut)
	if err != nil {
		return "", err
	}
	score := tr.Task.Score(greedyOut, tr.Task.Test)
	teacher := tr.TeacherForced(tr.Task.Test)
	c := tr.Model.Config
	meta := map[string]string{
		"model": spec.Name, "task": tr.Task.Name, "unmasked": strconv.FormatBool(spec.Unmasked),
		"d": strconv.Itoa(c.D), "heads": strconv.Itoa(c.Heads), "d_ff": strconv.Itoa(c.FF), "layers": strconv.Itoa(c.Layers),
		"seed": strconv.FormatUint(c.Seed, 10), "steps": strconv.Itoa(steps), "batch": strconv.Itoa(transformerBatch),
		"lr": strconv.FormatFloat(transformerLR, 'g', -1, 64), "warmup": strconv.Itoa(transformerWarmup),
		"final_loss": f4(loss), metaTestGreedy: string(raw),
		"test_bleu_greedy": f4(score.BLEU), "test_exact_greedy": f4(score.Exact),
		metaTeacherTokens: f4(teacher.Tokens), metaTeacherExact: f4(teacher.Exact),
	}
	if err := save(dir, spec.File(), tr, meta); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: loss %.4f, greedy BLEU %.4f exact %.4f, teacher-forced tokens %.4f exact %.4f (%d steps, %.0fs)",
		spec.Name, loss, score.BLEU, score.Exact, teacher.Tokens, teacher.Exact, steps, time.Since(start).Seconds()), nil
}

func transformerFiles(specs []TransformerSpec) []string {
	files := make([]string, len(specs))
	for i, s := range specs {
		files[i] = s.File()
	}
	return files
}

// FindTransformerSpec returns the spec called name.
func FindTransformerSpec(name string) (TransformerSpec, bool) {
	all := allTransformerSpecs()
	i := slices.IndexFunc(all, func(s TransformerSpec) bool { return s.Name == name })
	if i < 0 {
		return TransformerSpec{}, false
	}
	return all[i], true
}

// transformerCheckpoints loads every bundled Transformer once (shared, read-only).
var transformerCheckpoints = sync.OnceValues(func() (map[string]bundled[*TransformerTranslator], error) {
	out := map[string]bundled[*TransformerTranslator]{}
	for _, s := range allTransformerSpecs() {
		b, err := loadBundled(s.File(), s.New())
		if err != nil {
			return nil, err
		}
		out[s.Name] = b
	}
	return out, nil
})

// SharedTransformer is the bundled Transformer called name, shared by every page (it
// must not be trained), with its checkpoint's metadata.
func SharedTransformer(name string) (*TransformerTranslator, Meta, error) {
	if _, ok := FindTransformerSpec(name); !ok {
		return nil, nil, fmt.Errorf("zoo: no transformer called %q", name)
	}
	cks, err := transformerCheckpoints()
	if err != nil {
		return nil, nil, err
	}
	b := cks[name]
	return b.model, b.meta, nil
}

// LoadTransformer is a copy of the bundled Transformer called name, which a caller
// may change (switch its mask or scaling, train it).
func LoadTransformer(name string) (*TransformerTranslator, Meta, error) {
	spec, ok := FindTransformerSpec(name)
	if !ok {
		return nil, nil, fmt.Errorf("zoo: no transformer called %q", name)
	}
	cks, err := transformerCheckpoints()
	if err != nil {
		return nil, nil, err
	}
	b := cks[name]
	return b.copyOf(spec.New()), b.meta, nil
}
