package lessons

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
)

func mtValues(changes map[string]string) sim.Values { return lessonValues(mtDataLesson, changes) }

func buildMT(t *testing.T, changes map[string]string) *mtDataModel {
	t.Helper()
	return buildLesson[*mtDataModel](t, mtDataLesson, changes)
}

// TestMTDataPipeline follows the lectures' pairs through every stage: tokens, ids,
// <eos> and padding or truncation, the valid length, the mask and the <bos> shift.
func TestMTDataPipeline(t *testing.T) {
	const P, E, B = models.PadID, models.EosID, models.BosID
	cases := []struct {
		name             string
		params           map[string]string
		srcTok, tgtTok   []string
		steps            int
		srcValid, tgtVal int
	}{
		{"go pair 1", map[string]string{"pair": "1"}, []string{"go", "."}, []string{"va", "!"}, 8, 3, 3},
		{"watching pair 0", map[string]string{"pair": "0"}, []string{"they", "are", "watching", "."}, []string{"ils", "regardent", "."}, 8, 5, 4},
		{"watching typed", map[string]string{"english": "They are watching.", "french": "Ils regardent."}, []string{"they", "are", "watching", "."}, []string{"ils", "regardent", "."}, 8, 5, 4},
		{"watching truncated", map[string]string{"pair": "0", "num_steps": "3"}, []string{"they", "are", "watching", "."}, []string{"ils", "regardent", "."}, 3, 3, 3},
		{"go steps 3", map[string]string{"pair": "1", "num_steps": "3"}, []string{"go", "."}, []string{"va", "!"}, 3, 3, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := buildMT(t, c.params)
			if !slices.Equal(m.src.Tokens, c.srcTok) || !slices.Equal(m.tgt.Tokens, c.tgtTok) {
				t.Fatalf("tokens: got %q → %q want %q → %q", m.src.Tokens, m.tgt.Tokens, c.srcTok, c.tgtTok)
			}
			for _, side := range []struct {
				s     MTSide
				v     *models.Vocab
				valid int
			}{{m.src, m.vs, c.srcValid}, {m.tgt, m.vt, c.tgtVal}} {
				for i, tok := range side.s.Tokens {
					if id := side.s.IDs[i]; id != side.v.ID(tok) || id < 4 {
						t.Errorf("id of %q: got %d want %d (a corpus word, ≥ 4)", tok, id, side.v.ID(tok))
					}
				}
				want := append(slices.Clone(side.s.IDs), E)
				for len(want) < c.steps {
					want = append(want, P)
				}
				want = want[:c.steps]
				if !slices.Equal(side.s.Padded, want) || side.s.ValidLen != side.valid {
					t.Errorf("padded: got %v L=%d want %v L=%d", side.s.Padded, side.s.ValidLen, want, side.valid)
				}
			}
			// step 7: row 1 of the minibatch is the followed pair
			f := m.At(7)
			arr := map[string]sim.Array{}
			for _, a := range f.Arrays {
				arr[a.Name] = a
			}
			row := func(name string) []int {
				a := arr[name]
				out := make([]int, a.Shape[1])
				for j := range out {
					out[j] = int(a.Data[j])
				}
				return out
			}
			if got := row("X"); !slices.Equal(got, m.src.Padded) {
				t.Errorf("X[1]: got %v want %v", got, m.src.Padded)
			}
			if got := row("Y"); !slices.Equal(got, m.tgt.Padded) {
				t.Errorf("Y[1]: got %v want %v", got, m.tgt.Padded)
			}
			wantDec := append([]int{B}, m.tgt.Padded[:c.steps-1]...)
			if got := row("dec_input"); !slices.Equal(got, wantDec) {
				t.Errorf("decoder input: got %v want %v (<bos> then the labels shifted right)", got, wantDec)
			}
			if got := row("mask"); !slices.Equal(got, Mask(c.tgtVal, c.steps)) {
				t.Errorf("mask: got %v want %v", got, Mask(c.tgtVal, c.steps))
			}
			if got := int(arr["X_valid_len"].Data[0]); got != c.srcValid {
				t.Errorf("X valid length: got %d want %d", got, c.srcValid)
			}
			if got := arr["X"].Shape; !slices.Equal(got, []int{4, c.steps}) {
				t.Errorf("X shape: got %v want [4 %d]", got, c.steps)
			}
		})
	}
}

// TestMTDataGoPair pins the exact ids of "go ." → "va !" at T = 8.
func TestMTDataGoPair(t *testing.T) {
	m := buildMT(t, map[string]string{"pair": "1"})
	go_, dot := m.vs.ID("go"), m.vs.ID(".")
	va, bang := m.vt.ID("va"), m.vt.ID("!")
	if want := []int{go_, dot, 3, 1, 1, 1, 1, 1}; !slices.Equal(m.src.Padded, want) {
		t.Errorf("source: got %v want %v", m.src.Padded, want)
	}
	if want := []int{va, bang, 3, 1, 1, 1, 1, 1}; !slices.Equal(m.tgt.Padded, want) {
		t.Errorf("target: got %v want %v", m.tgt.Padded, want)
	}
	if want := []int{2, va, bang, 3, 1, 1, 1, 1}; !slices.Equal(DecoderInput(m.tgt.Padded), want) {
		t.Errorf("decoder input: got %v want %v", DecoderInput(m.tgt.Padded), want)
	}
}

func TestMTDataUnknownWords(t *testing.T) {
	m := buildMT(t, map[string]string{"english": "The zyxwv sleeps.", "french": "Le zyxwv dort."})
	if got := m.src.IDs[1]; got != models.UnkID {
		t.Errorf("unknown word id: got %d want %d (<unk>)", got, models.UnkID)
	}
	if got := m.At(4).Meta["source_unk"]; got != 1 && got != 2 && got != 3 {
		t.Errorf("source_unk: got %v want ≥ 1", got)
	}
}

// TestMTDataNormalizeMarks checks that the marked characters join to NormalizeMT's
// output and that the changes are marked.
func TestMTDataNormalizeMarks(t *testing.T) {
	cases := []struct {
		raw               string
		changed, inserted int
	}{
		{"Go.", 1, 1},
		{"Va\u00a0!", 2, 0},
		{"They are watching.", 1, 1},
		{"hi , you ?", 0, 0},
		{"İstanbul!", 1, 1},
		{".", 0, 0},
	}
	for _, c := range cases {
		cells := mtMarkNormalize(c.raw)
		var b strings.Builder
		changed, inserted := 0, 0
		for _, x := range cells {
			b.WriteString(x.Text)
			switch x.Mark {
			case "changed":
				changed++
			case "inserted":
				inserted++
			}
		}
		if got, want := b.String(), models.NormalizeMT(c.raw); got != want {
			t.Errorf("%q: got %q want %q", c.raw, got, want)
		}
		if changed != c.changed || inserted != c.inserted {
			t.Errorf("%q: got %d changed, %d inserted want %d, %d", c.raw, changed, inserted, c.changed, c.inserted)
		}
	}
}

func TestMTDataMinFreq(t *testing.T) {
	src, _ := mtDataTokens()
	all := mtVocabs()
	prevLen, prevShare := 1<<30, -1.0
	for f := 1; f <= mtMaxMinFreq; f++ {
		v := all[f][0]
		share := UnkShare(v, src)
		if v.Len() > prevLen || share < prevShare {
			t.Errorf("min_freq %d: got |V| = %d, <unk> share %g; want |V| ≤ %d and share ≥ %g", f, v.Len(), share, prevLen, prevShare)
		}
		prevLen, prevShare = v.Len(), share
	}
	if share := UnkShare(all[1][0], src); share != 0 {
		t.Errorf("min_freq 1: got <unk> share %g want 0", share)
	}
	m := buildMT(t, map[string]string{"min_freq": "3"})
	kept := m.Static().Meta["marks"].(map[string]int)["frequencies"]
	if want := m.vs.Len() - 4; kept != want {
		t.Errorf("cut rank: got %d want %d (|V| − 4 specials)", kept, want)
	}
}

func TestMTDataDeterminism(t *testing.T) {
	a, b := buildMT(t, nil), buildMT(t, nil)
	for s := 1; s <= mtStages; s++ {
		if !reflect.DeepEqual(a.At(s), b.At(s)) {
			t.Fatalf("step %d differs between two builds", s)
		}
	}
	c := buildMT(t, map[string]string{"seed": "2"})
	if slices.Equal(a.batch, c.batch) {
		t.Errorf("seeds 1 and 2: got the same minibatch %v, want different pairs", a.batch)
	}
	if len(a.batch) != 3 || slices.Contains(a.batch, 0) {
		t.Errorf("minibatch rows 2..4: got %v want 3 pairs other than pair 0", a.batch)
	}
	one := buildMT(t, map[string]string{"batch_size": "1"})
	if len(one.batchSrc) != 1 {
		t.Errorf("batch size 1: got %d rows", len(one.batchSrc))
	}
}

func TestMTDataErrors(t *testing.T) {
	cases := []struct {
		params map[string]string
		want   string
	}{
		{map[string]string{"pair": "999999"}, "pair must be between"},
	}
	for _, c := range cases {
		_, err := buildMTData(mtValues(c.params))
		if err == nil {
			t.Errorf("%v: got no error want one mentioning %q", c.params, c.want)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "lessons:") || strings.Contains(msg, "models:") {
			t.Errorf("%v: got %q want a sentence mentioning %q", c.params, msg, c.want)
		}
	}
	if _, err := (mtDataLesson.Params).Parse(map[string][]string{"num_steps": {"2"}}); err == nil {
		t.Errorf("num_steps 2: got no error want the slider's range")
	}
}

// TestMTDataHalfPair: a pair typed one field at a time (as the page sends it) is
// followed one side at a time. The typed side goes through every stage; the missing
// side is a note in the tables and the facts, never an error; the minibatch, which
// needs pairs, is drawn from the corpus alone.
func TestMTDataHalfPair(t *testing.T) {
	cases := []struct {
		params  map[string]string
		typed   []string
		missing string // the note's words
	}{
		{map[string]string{"english": "i lost ."}, []string{"i", "lost", "."}, "type a French sentence"},
		{map[string]string{"french": "j'ai perdu ."}, []string{"j'ai", "perdu", "."}, "type an English sentence"},
	}
	for _, c := range cases {
		m := buildMT(t, c.params)
		typed, missing, prefix := m.src, m.tgt, "src"
		if m.src.Missing {
			typed, missing, prefix = m.tgt, m.src, "tgt"
		}
		if !missing.Missing || typed.Missing || !slices.Equal(typed.Tokens, c.typed) {
			t.Fatalf("%v: got tokens %q (missing %v) and %q (missing %v), want %q and a missing side", c.params, m.src.Tokens, m.src.Missing, m.tgt.Tokens, m.tgt.Missing, c.typed)
		}
		if got, _ := m.Static().Meta["missing"].(string); !strings.Contains(got, c.missing) {
			t.Errorf("%v: static note %q, want it to say %q", c.params, got, c.missing)
		}
		for s := 1; s <= mtStages; s++ {
			f := m.At(s)
			if got, _ := f.Meta["missing"].(string); !strings.Contains(got, c.missing) {
				t.Errorf("%v step %d: note %q, want it to say %q", c.params, s, got, c.missing)
			}
			if s == 7 {
				continue
			}
			var note bool
			for _, r := range f.Meta["pipeline"].(table).Rows {
				note = note || len(r.Cells) == 1 && strings.Contains(r.Cells[0].Text, c.missing)
			}
			if !note {
				t.Errorf("%v step %d: no table row says %q", c.params, s, c.missing)
			}
			if s >= 4 && (arrayOf(f, prefix+"_ids") == nil || arrayOf(f, map[string]string{"src": "tgt", "tgt": "src"}[prefix]+"_ids") != nil) {
				t.Errorf("%v step %d: want ids of the typed side only", c.params, s)
			}
		}
		if s := arrayOf(m.At(5), prefix+"_L"); len(s) != 1 || int(s[0]) != typed.ValidLen || typed.ValidLen != len(c.typed)+1 {
			t.Errorf("%v: valid length %v, want [%d]", c.params, s, len(c.typed)+1)
		}
		if m.ownRow || len(m.batchSrc) != 4 || len(m.batch) != 4 {
			t.Errorf("%v: minibatch of %d rows, %d from the corpus (own row %v), want 4 corpus pairs", c.params, len(m.batchSrc), len(m.batch), m.ownRow)
		}
		if what, _ := m.At(7).Meta["what"].(string); !strings.Contains(what, c.missing) {
			t.Errorf("%v: the minibatch's explanation %q does not say %q", c.params, what, c.missing)
		}
	}
	// the page sends one field at a time: both sets are taken, and the run ends on the pair
	run, err := sim.NewRun(mtDataLesson.Params, mtDataLesson.Model, mtDataLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	run.Seek(4)
	for _, change := range []map[string]string{{"english": "i lost ."}, {"french": "j'ai perdu ."}} {
		if _, err := run.Apply(sim.Command{Type: sim.SetCommand, Params: change}); err != nil {
			t.Fatalf("set %v: %v", change, err)
		}
	}
	m := unlabelled(run.Model()).(*mtDataModel)
	if m.src.Missing || m.tgt.Missing || !m.ownRow || !slices.Equal(m.tgt.Tokens, []string{"j'ai", "perdu", "."}) {
		t.Errorf("after both sets: got %q → %q (own row %v), want the typed pair in row 1", m.src.Tokens, m.tgt.Tokens, m.ownRow)
	}
}

// TestMTDataUnkRateMarksMinFreq: the unk-rate export marks the page's min_freq, so two
// views export two figures.
func TestMTDataUnkRateMarksMinFreq(t *testing.T) {
	var marks [][]float64
	for _, f := range []string{"2", "4"} {
		series := unkRateSeries(buildMT(t, map[string]string{"min_freq": f}))
		last := series[len(series)-1]
		if !strings.Contains(last.Label, "min_freq = "+f) {
			t.Errorf("min_freq %s: marker labelled %q", f, last.Label)
		}
		marks = append(marks, last.X)
	}
	if !slices.Equal(marks[0], []float64{2, 2}) || !slices.Equal(marks[1], []float64{4, 4}) {
		t.Errorf("markers at x = %v and %v, want the vertical lines x = 2 and x = 4", marks[0], marks[1])
	}
}

func TestMTDataPlots(t *testing.T) {
	m := buildMT(t, nil)
	for _, p := range mtDataLesson.Plots {
		if s := p.Series(m); len(s) < 2 {
			t.Errorf("plot %s: got %d series want ≥ 2", p.Name, len(s))
		}
	}
}

// TestMTDataRawForm checks that the raw form shown for a corpus pair normalises back
// to the corpus's own text, for every training pair.
func TestMTDataRawForm(t *testing.T) {
	if got, want := mtRawForm("va !", true), "Va\u202f!"; got != want {
		t.Errorf("raw French: got %q want %q", got, want)
	}
	if got, want := mtRawForm("go .", false), "Go."; got != want {
		t.Errorf("raw English: got %q want %q", got, want)
	}
	train, _ := data.Corpus()
	for _, p := range train {
		if got := models.NormalizeMT(mtRawForm(p.En, false)); got != p.En {
			t.Fatalf("English %q: raw form normalises to %q", p.En, got)
		}
		if got := models.NormalizeMT(mtRawForm(p.Fr, true)); got != p.Fr {
			t.Fatalf("French %q: raw form normalises to %q", p.Fr, got)
		}
	}
}
