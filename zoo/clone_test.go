package zoo

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/internal/alias"
	"unroll/models"
)

// withOpt is a translator and the optimiser that trains it (the page holds it).
type withOpt struct {
	tr  *Translator
	opt *models.Adam
}

// trainable is one model of the zoo that a page trains, as the clone tests drive it.
type trainable struct {
	name   string
	build  func() any
	params func(m any) models.Params
	step   func(m any, rng *rand.Rand) float64
	clone  func(m any) any
	shared func(m any) []any // what every model of its kind reads: left shared
}

func trainables() []trainable {
	first := func(loss, _ float64) float64 { return loss }
	task := func(t *data.Task) func(any) []any { return func(any) []any { return []any{t} } }
	return []trainable{
		{"charlm", func() any { return NewCharLM(3) }, func(m any) models.Params { return m.(*CharLM).Params() },
			func(m any, r *rand.Rand) float64 { return m.(*CharLM).TrainStep(r) }, func(m any) any { return m.(*CharLM).Clone() }, nil},
		{"gru", func() any { return NewGRUClassifier(data.SkipTask, VariantResetAfter, 3) }, func(m any) models.Params { return m.(*GRUClassifier).Params() },
			func(m any, r *rand.Rand) float64 { return first(m.(*GRUClassifier).TrainStep(r)) }, func(m any) any { return m.(*GRUClassifier).Clone() }, task(data.SkipTask)},
		{"lstm", func() any { return NewLSTMClassifier(data.SkipTask, 3) }, func(m any) models.Params { return m.(*SeqClassifier).Params() },
			func(m any, r *rand.Rand) float64 { return first(m.(*SeqClassifier).TrainStep(r)) }, func(m any) any { return m.(*SeqClassifier).Clone() }, task(data.SkipTask)},
		{"deep", func() any { return NewMarketModel("lstm", 2, 3) }, func(m any) models.Params { return m.(*MarketModel).Params() },
			func(m any, r *rand.Rand) float64 { return first(m.(*MarketModel).TrainStep(r)) }, func(m any) any { return m.(*MarketModel).Clone() }, nil},
		{"embeddings", func() any { return NewEmbedModel(3) }, func(m any) models.Params { return m.(*EmbedModel).Params() },
			func(m any, r *rand.Rand) float64 {
				loss, err := m.(*EmbedModel).TrainStep(r, 2, 3)
				if err != nil {
					panic(err)
				}
				return loss
			}, func(m any) any { return m.(*EmbedModel).Clone() }, nil},
		{"fillblank", func() any { return NewFillBlank(true, 3) }, func(m any) models.Params { return m.(*FillBlank).Params() },
			func(m any, r *rand.Rand) float64 { return first(m.(*FillBlank).TrainStep(r)) }, func(m any) any { return m.(*FillBlank).Clone() }, nil},
		{"translator", func() any {
			return withOpt{NewTranslator(DatesTask(), TranslatorConfig{Attention: true, Embed: 6, Hidden: 8, Seed: 3}), models.NewAdam(0.01)}
		}, func(m any) models.Params { return m.(withOpt).tr.Params() },
			func(m any, r *rand.Rand) float64 { return m.(withOpt).tr.TrainStep(m.(withOpt).opt, r) },
			func(m any) any {
				c := models.NewCopier()
				return withOpt{m.(withOpt).tr.Clone(c), c.Adam(m.(withOpt).opt)}
			}, func(m any) []any { tr := m.(withOpt).tr; return []any{tr.Task, tr.Src, tr.Tgt} }},
	}
}

// equalParams reports whether a and b hold the same values, bit for bit.
func equalParams(a, b models.Params) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !mat.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// TestCloneContinues: a model trained a few steps and cloned, with its training stream
// copied, shares nothing the training writes with the original; training the clone
// leaves the original as it was; and the original's next steps are the clone's, bit
// for bit, also when both train at the same time (the race detector watches).
func TestCloneContinues(t *testing.T) {
	for _, k := range trainables() {
		t.Run(k.name, func(t *testing.T) {
			m := k.build()
			src := TrainSource(5)
			rng := rand.New(src)
			for range 2 {
				k.step(m, rng)
			}
			c, crng := k.clone(m), rand.New(models.CopyPCG(src))
			var skip []any
			if k.shared != nil {
				skip = k.shared(m)
			}
			if shared := alias.Shared(m, c, nil, skip...); len(shared) > 0 {
				t.Fatalf("the clone shares memory with the original: %v", shared)
			}
			if !equalParams(k.params(m), k.params(c)) {
				t.Fatalf("the clone's weights differ from the original's")
			}
			before := models.NewCopier().Params(k.params(m))
			var cl []float64
			for range 3 {
				cl = append(cl, k.step(c, crng))
			}
			if !equalParams(before, k.params(m)) {
				t.Fatalf("training the clone changed the original")
			}
			for i := range 3 {
				if l := k.step(m, rng); l != cl[i] {
					t.Fatalf("step %d: the original's loss %v, the clone's %v", i+1, l, cl[i])
				}
			}
			if !equalParams(k.params(m), k.params(c)) {
				t.Fatalf("after 3 more steps each, the clone's weights differ from the original's")
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				k.step(c, crng)
			}()
			k.step(m, rng)
			<-done
			if !equalParams(k.params(m), k.params(c)) {
				t.Fatalf("after a step each at the same time, the clone's weights differ from the original's")
			}
		})
	}
}

// TestTrainSource: TrainSource is TrainRNG's stream.
func TestTrainSource(t *testing.T) {
	a, b := TrainRNG(9), rand.New(TrainSource(9))
	for range 50 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("TrainSource draws another stream than TrainRNG")
		}
	}
}

// TestCloneWithoutWeights: a translator without weights clones to one without weights.
func TestCloneWithoutWeights(t *testing.T) {
	tr := NewTranslator(DatesTask(), TranslatorConfig{Embed: 4, Hidden: 4, Seed: 1}).WithoutWeights()
	if c := tr.Clone(models.NewCopier()); c.Model != nil || c.Task != tr.Task || c.Src != tr.Src {
		t.Errorf("got %+v, want the same task and vocabularies without a model", c)
	}
}

// TestCloneKnowsEveryField: the structs Clone copies field by field have the fields
// it was written for. A new field fails here: copy it in clone.go, or share it on
// purpose, then update the count.
func TestCloneKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		v      any
		fields int
	}{
		{CharLM{}, 3}, {GRUClassifier{}, 5}, {SeqClassifier{}, 4}, {MarketModel{}, 7},
		{EmbedModel{}, 2}, {FillBlank{}, 1}, {blankStack{}, 4}, {Translator{}, 7},
	} {
		if n := reflect.TypeOf(c.v).NumField(); n != c.fields {
			t.Errorf("%T has %d fields; Clone was written for %d", c.v, n, c.fields)
		}
	}
}
