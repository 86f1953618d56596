package models

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/internal/alias"
)

// noisyStep gives every gradient of ps values drawn from rng and takes one optimiser
// step: the same rng on a model and its copy must move both alike.
func noisyStep(ps Params, opt Optimizer, rng *rand.Rand) {
	for _, p := range ps {
		raw := p.Grad.RawMatrix()
		for i := range raw.Data {
			raw.Data[i] = rng.NormFloat64()
		}
	}
	opt.Step(ps)
}

// sameValues fails unless a and b list the same parameters with the same values,
// bit for bit, in distinct matrices.
func sameValues(t *testing.T, what string, a, b Params) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d parameters against %d", what, len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Vector != b[i].Vector {
			t.Fatalf("%s: parameter %d is %s against %s", what, i, b[i].Name, a[i].Name)
		}
		if a[i].Value == b[i].Value || a[i].Grad == b[i].Grad {
			t.Fatalf("%s: %s shares its matrices with the original", what, a[i].Name)
		}
		if !mat.Equal(a[i].Value, b[i].Value) {
			t.Fatalf("%s: %s differs", what, a[i].Name)
		}
	}
}

// copyable is one part the Copier copies, with its parameters.
type copyable struct {
	name   string
	build  func(rng *rand.Rand) any
	copy   func(c *Copier, m any) any
	params func(m any) Params
}

func copyables() []copyable {
	must := func(c Cell, err error) Cell {
		if err != nil {
			panic(err)
		}
		return c
	}
	cfg := Seq2SeqConfig{SrcVocab: 9, TgtVocab: 11, Embed: 4, Hidden: 5, Seed: 3}
	return []copyable{
		{"rnn", func(r *rand.Rand) any { return NewRNN(3, 4, ActReLU, r) }, func(c *Copier, m any) any { return c.RNN(m.(*RNN)) }, func(m any) Params { return m.(*RNN).Params() }},
		{"gru", func(r *rand.Rand) any { return NewGRU(3, 4, r).WithClamp(GateClamp{Gate: "Z", Value: 0.5}) }, func(c *Copier, m any) any { return c.Cell(m.(*GRU)) }, func(m any) Params { return m.(*GRU).Params() }},
		{"gru-reset-after", func(r *rand.Rand) any { return NewGRUResetAfter(3, 4, r) }, func(c *Copier, m any) any { return c.GRU(m.(*GRU)) }, func(m any) Params { return m.(*GRU).Params() }},
		{"lstm", func(r *rand.Rand) any { return NewLSTM(3, 4, r) }, func(c *Copier, m any) any { return c.Cell(m.(*LSTM)) }, func(m any) Params { return m.(*LSTM).Params() }},
		{"lstm-peephole", func(r *rand.Rand) any { return NewPeepholeLSTM(3, 4, r) }, func(c *Copier, m any) any { return c.Cell(m.(*LSTM)) }, func(m any) Params { return m.(*LSTM).Params() }},
		{"deep", func(r *rand.Rand) any {
			d, err := NewDeep(KindLSTM, 2, 3, 3, r)
			if err != nil {
				panic(err)
			}
			return d
		}, func(c *Copier, m any) any { return c.Deep(m.(*Deep)) }, func(m any) Params { return m.(*Deep).Params() }},
		{"dense", func(r *rand.Rand) any { return NewDense("out.", 3, 2, r) }, func(c *Copier, m any) any { return c.Dense(m.(*Dense)) }, func(m any) Params { return m.(*Dense).Params() }},
		{"embedding", func(r *rand.Rand) any { return NewEmbedding("E", 6, 2, r) }, func(c *Copier, m any) any { return c.Embedding(m.(*Embedding)) }, func(m any) Params { return m.(*Embedding).Params() }},
		{"attention", func(r *rand.Rand) any { return NewAdditiveAttention(3, 4, 2, r) }, func(c *Copier, m any) any { return c.Attention(m.(*AdditiveAttention)) }, func(m any) Params { return m.(*AdditiveAttention).Params() }},
		{"skipgram", func(r *rand.Rand) any { return NewSkipGram(7, 3, r) }, func(c *Copier, m any) any { return c.SkipGram(m.(*SkipGram)) }, func(m any) Params { return m.(*SkipGram).Params() }},
		{"rnn-cell", func(r *rand.Rand) any { return must(NewCell(KindRNN, 2, 2, r)) }, func(c *Copier, m any) any { return c.Cell(m.(Cell)) }, func(m any) Params { return m.(Cell).Params() }},
		{"seq2seq", func(r *rand.Rand) any { return &NewSeq2Seq(cfg).EncoderDecoder }, func(c *Copier, m any) any { return c.EncoderDecoder(m.(*EncoderDecoder)) }, func(m any) Params { return m.(*EncoderDecoder).Params() }},
		{"attention-seq2seq", func(r *rand.Rand) any { return &NewAttentionSeq2Seq(cfg).EncoderDecoder }, func(c *Copier, m any) any { return c.EncoderDecoder(m.(*EncoderDecoder)) }, func(m any) Params { return m.(*EncoderDecoder).Params() }},
	}
}

// TestCopierCopies: a part and Adam, copied after a few steps, share no memory with
// the originals; the copy's next steps are the original's, bit for bit; and stepping
// the copy leaves the original as it was.
func TestCopierCopies(t *testing.T) {
	for _, k := range copyables() {
		t.Run(k.name, func(t *testing.T) {
			m := k.build(rand.New(rand.NewPCG(1, 2)))
			opt := NewAdam(0.01)
			for i := range 3 {
				noisyStep(k.params(m), opt, rand.New(rand.NewPCG(uint64(i), 9)))
			}
			c := NewCopier()
			cm, copt := k.copy(c, m), c.Adam(opt)
			sameValues(t, "the copy", k.params(m), k.params(cm))
			if shared := alias.Shared(struct {
				M   any
				Opt *Adam
			}{m, opt}, struct {
				M   any
				Opt *Adam
			}{cm, copt}, nil); len(shared) > 0 {
				t.Fatalf("the copy shares memory with the original: %v", shared)
			}
			if reflect.TypeOf(cm) != reflect.TypeOf(m) {
				t.Fatalf("the copy is a %T, want a %T", cm, m)
			}
			// Every moment of the copied Adam is keyed by a value of the copied model.
			values := map[*mat.Dense]bool{}
			for _, p := range k.params(cm) {
				values[p.Value] = true
			}
			for v := range copt.moments {
				if !values[v] {
					t.Fatalf("the copied optimiser keeps moments for a matrix that is not the copy's")
				}
			}
			if len(copt.moments) != len(opt.moments) {
				t.Fatalf("the copied optimiser has %d moments, the original %d", len(copt.moments), len(opt.moments))
			}
			before := NewCopier().Params(k.params(m))
			for i := range 4 {
				noisyStep(k.params(cm), copt, rand.New(rand.NewPCG(uint64(10+i), 9)))
			}
			sameValues(t, "the original after the copy's steps", before, k.params(m))
			for i := range 4 {
				noisyStep(k.params(m), opt, rand.New(rand.NewPCG(uint64(10+i), 9)))
			}
			sameValues(t, "4 more steps", k.params(m), k.params(cm))
		})
	}
}

// TestCopierEncoderDecoderTrains: a translator's copy keeps its parameter list tied to
// its layers, so real training steps (EncoderDecoder.TrainStep) move the copy as they
// move the original.
func TestCopierEncoderDecoderTrains(t *testing.T) {
	for _, attention := range []bool{false, true} {
		cfg := Seq2SeqConfig{SrcVocab: 9, TgtVocab: 11, Embed: 4, Hidden: 5, Seed: 3}
		m := &NewSeq2Seq(cfg).EncoderDecoder
		if attention {
			m = &NewAttentionSeq2Seq(cfg).EncoderDecoder
		}
		b, err := NewBatch([][]int{{4, 5, 6}, {7, 8}}, [][]int{{5, 6, EosID}, {9, 10, 4, EosID}})
		if err != nil {
			t.Fatal(err)
		}
		opt := NewAdam(0.05)
		m.TrainStep(b, opt, 1)
		c := NewCopier()
		cm, copt := c.EncoderDecoder(m), c.Adam(opt)
		for range 3 {
			l1, _, _ := cm.TrainStep(b, copt, 1)
			l0, _, _ := m.TrainStep(b, opt, 1)
			if l0 != l1 {
				t.Fatalf("attention %v: the copy's loss %v, the original's %v", attention, l1, l0)
			}
		}
		sameValues(t, "after 3 more steps", m.Params(), cm.Params())
		if cm.Encoder.(*GRU).Wxr.Value != cm.Params().ByName("enc.W_xr").Value {
			t.Errorf("attention %v: the copy's parameter list is not tied to its encoder", attention)
		}
	}
}

// TestCopierKnowsEveryField: the structs the Copier copies field by field have the
// fields it was written for. A new field fails here: copy it in clone.go (a matrix,
// a buffer the training writes) or keep it shared on purpose, then update the count.
func TestCopierKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		v      any
		fields int
	}{
		{RNN{}, 5}, {GRU{}, 12}, {LSTM{}, 16}, {Dense{}, 2}, {Embedding{}, 1}, {AdditiveAttention{}, 3},
		{Deep{}, 1}, {SkipGram{}, 2}, {EncoderDecoder{}, 8}, {StackedSeq2Seq{}, 6}, {Adam{}, 5}, {adamMoments{}, 3}, {Param{}, 4},
	} {
		if n := reflect.TypeOf(c.v).NumField(); n != c.fields {
			t.Errorf("%T has %d fields; Copier was written for %d", c.v, n, c.fields)
		}
	}
}

// TestCopyPCG: a copied source draws what the original draws from then on.
func TestCopyPCG(t *testing.T) {
	src := rand.NewPCG(5, 6)
	r := rand.New(src)
	for range 17 {
		r.Uint64()
	}
	c := rand.New(CopyPCG(src))
	for i := range 100 {
		if a, b := r.Uint64(), c.Uint64(); a != b {
			t.Fatalf("draw %d: copy %d, original %d", i, b, a)
		}
	}
	if CopyPCG(nil) != nil {
		t.Errorf("CopyPCG(nil) is not nil")
	}
}

// otherCell is a Cell this package does not define.
type otherCell struct{ Cell }

func TestCopierUnknownCell(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("copying an unknown cell did not panic")
		}
	}()
	NewCopier().Cell(otherCell{})
}
