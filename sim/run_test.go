package sim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// gruSpecs are the parameters of the test lesson: a GRU reading a fixed token string.
var gruSpecs = Specs{
	{Name: "seed", Label: "Seed", Kind: Int, Default: "1", Min: 0, Max: 1 << 30},
	{Name: "hidden", Label: "Hidden units", Kind: Int, Default: "8", Min: 1, Max: 64},
	{Name: "input", Label: "Input", Kind: Text, Default: "abcabcab", MaxLen: MaxSteps},
}

// gruModel is a real models.GRU over a one-hot encoding of the input text, the way a
// lesson wraps one: it precomputes every step's trace when built.
type gruModel struct {
	cell   *models.GRU
	tokens []string
	traces []*models.StepTrace
	losses []float64
}

const gruAlphabet = "abc"

func buildGRU(v Values) (Model, error) {
	rng := rand.New(rand.NewPCG(uint64(v.Int("seed")), 1))
	m := &gruModel{cell: models.NewGRU(len(gruAlphabet), v.Int("hidden"), rng)}
	for _, r := range v.String("input") {
		if !strings.ContainsRune(gruAlphabet, r) {
			return nil, fmt.Errorf("the input may only use the letters %s, got %q", gruAlphabet, r)
		}
		m.tokens = append(m.tokens, string(r))
	}
	m.forward()
	return m, nil
}

func (m *gruModel) forward() {
	m.traces = m.traces[:0]
	var s models.State
	for _, tok := range m.tokens {
		x := mat.NewDense(1, len(gruAlphabet), nil)
		x.Set(0, strings.Index(gruAlphabet, tok), 1)
		tr := m.cell.Step(x, s)
		m.traces = append(m.traces, tr)
		s = tr.Next
	}
}

func (m *gruModel) Steps() int { return len(m.tokens) }

func (m *gruModel) Static() Frame {
	return Frame{
		Arrays: []Array{Matrix("W_hz", m.cell.HiddenSize(), m.cell.HiddenSize(), m.cell.Whz.Value.RawMatrix().Data)},
		Meta:   map[string]any{"tokens": m.tokens, "scale": []float64{0, 1}, "trained": len(m.losses)},
		Facts:  []Fact{{Label: "hidden units h", Value: m.cell.HiddenSize()}},
	}
}

func (m *gruModel) At(t int) Frame {
	tr := m.traces[t-1]
	row := func(d *mat.Dense) []float64 { return mat.Row(nil, 0, d) }
	return Frame{
		Arrays: []Array{
			Vector("R", row(tr.Gate("R"))), Vector("Z", row(tr.Gate("Z"))),
			Vector("H_tilde", row(tr.Gate("H_tilde"))), Vector("H", row(tr.Gate("H"))),
		},
		Meta:  map[string]any{"token": m.tokens[t-1]},
		Facts: []Fact{{Label: "input x_t", Value: m.tokens[t-1]}, {Label: "mean update gate z̄_t", Value: mat.Sum(tr.Gate("Z")) / float64(m.cell.HiddenSize()), Measured: true}},
	}
}

// TrainStep shrinks W_hz a little (a stand-in for an optimiser step, deterministic)
// and reports the mean squared final state as the loss.
func (m *gruModel) TrainStep() (Frame, error) {
	m.cell.Whz.Value.Scale(0.9, m.cell.Whz.Value)
	m.forward()
	h := m.traces[len(m.traces)-1].Next.H
	loss := mat.Norm(h, 2) / float64(m.cell.HiddenSize())
	m.losses = append(m.losses, loss)
	return Frame{Meta: map[string]any{"loss": loss}, Arrays: []Array{Vector("loss", append([]float64(nil), m.losses...))}}, nil
}

func newTestRun(t *testing.T) *Run {
	t.Helper()
	r, err := NewRun(gruSpecs, buildGRU, gruSpecs.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func decode(t *testing.T, e Encoded) Message {
	t.Helper()
	m, err := DecodeMessage(e.Data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Seq != e.Seq || m.Header.Type != e.Type {
		t.Fatalf("Encoded says seq %d type %s, header says %d %s", e.Seq, e.Type, m.Header.Seq, m.Header.Type)
	}
	return m
}

// script is a session's worth of commands covering every command type.
var script = []Command{
	{Type: StepCommand}, {Type: StepCommand}, {Type: BackCommand}, {Type: SeekCommand, Step: 6},
	{Type: PlayCommand, Speed: 10}, {Type: PauseCommand},
	{Type: SetCommand, Params: map[string]string{"hidden": "4"}}, {Type: StepCommand},
	{Type: SetCommand, Params: map[string]string{"hidden": "99"}}, // refused
	{Type: SeekCommand, Step: 100},                                // refused
	{Type: TrainCommand, Steps: 3}, {Type: ResetCommand}, {Type: ResumeCommand, Seq: 40},
	{Type: StepCommand},
}

// playScript applies script, running ticks after play and training to the end, and
// returns every message.
func playScript(t *testing.T) [][]byte {
	r := newTestRun(t)
	out := [][]byte{r.Snapshot().Data}
	for _, c := range script {
		msgs, _ := r.Apply(c)
		for r.Training() {
			msgs = append(msgs, r.Continue()...)
		}
		for i := 0; i < 3; i++ {
			if e, ok := r.Tick(); ok {
				msgs = append(msgs, e)
			}
		}
		for _, m := range msgs {
			out = append(out, m.Data)
		}
	}
	return out
}

func TestRunDeterministic(t *testing.T) {
	a, b := playScript(t), playScript(t)
	if len(a) != len(b) {
		t.Fatalf("got %d messages then %d, want the same count", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("message %d differs between two identical runs", i)
		}
	}
	// seq increases by one per message, and resume lifts it past the page's seq.
	var last uint64
	for i, data := range a {
		m, err := DecodeMessage(data)
		if err != nil {
			t.Fatal(err)
		}
		if m.Header.Seq <= last {
			t.Fatalf("message %d: got seq %d after %d, want increasing", i, m.Header.Seq, last)
		}
		last = m.Header.Seq
	}
	if last < 41 {
		t.Errorf("got last seq %d, want > 40 after resume 40", last)
	}
}

func TestRunCommands(t *testing.T) {
	tests := []struct {
		name      string
		cmds      []Command
		wantStep  int
		wantType  MessageType
		wantError string // substring of the refusal, "" when accepted
		playing   bool
	}{
		{"step", []Command{{Type: StepCommand}}, 1, FrameMessage, "", false},
		{"step at end stays", []Command{{Type: SeekCommand, Step: 8}, {Type: StepCommand}}, 8, FrameMessage, "", false},
		{"back at 0 stays", []Command{{Type: BackCommand}}, 0, FrameMessage, "", false},
		{"back", []Command{{Type: SeekCommand, Step: 5}, {Type: BackCommand}}, 4, FrameMessage, "", false},
		{"seek end", []Command{{Type: SeekCommand, Step: 8}}, 8, FrameMessage, "", false},
		{"seek past end", []Command{{Type: SeekCommand, Step: 3}, {Type: SeekCommand, Step: 9}}, 3, ErrorMessage, "steps 0 to 8", false},
		{"play", []Command{{Type: PlayCommand, Speed: 5}}, 0, FrameMessage, "", true},
		{"play at end restarts", []Command{{Type: SeekCommand, Step: 8}, {Type: PlayCommand, Speed: 5}}, 0, FrameMessage, "", true},
		{"pause", []Command{{Type: PlayCommand, Speed: 5}, {Type: PauseCommand}}, 0, FrameMessage, "", false},
		{"reset", []Command{{Type: SeekCommand, Step: 4}, {Type: ResetCommand}}, 0, SnapshotMessage, "", false},
		{"set keeps step", []Command{{Type: SeekCommand, Step: 4}, {Type: SetCommand, Params: map[string]string{"hidden": "3"}}}, 4, SnapshotMessage, "", false},
		{"set shorter input clamps", []Command{{Type: SeekCommand, Step: 6}, {Type: SetCommand, Params: map[string]string{"input": "ab"}}}, 2, SnapshotMessage, "", false},
		{"set unknown", []Command{{Type: SetCommand, Params: map[string]string{"speed": "3"}}}, 0, ErrorMessage, `no parameter "speed"`, false},
		{"set out of range", []Command{{Type: SetCommand, Params: map[string]string{"hidden": "0"}}}, 0, ErrorMessage, "between 1 and 64", false},
		{"set build fails", []Command{{Type: SetCommand, Params: map[string]string{"input": "abz"}}}, 0, ErrorMessage, "only use the letters", false},
		{"resume", []Command{{Type: SeekCommand, Step: 3}, {Type: ResumeCommand, Seq: 7}}, 3, SnapshotMessage, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRun(t)
			var msgs []Encoded
			var err error
			for _, c := range tt.cmds {
				msgs, err = r.Apply(c)
			}
			if len(msgs) != 1 {
				t.Fatalf("got %d messages, want 1", len(msgs))
			}
			m := decode(t, msgs[0])
			if m.Header.Type != tt.wantType || r.Step() != tt.wantStep || m.Header.Step != tt.wantStep || r.Playing() != tt.playing {
				t.Errorf("got %s at step %d (header %d) playing %v, want %s at %d playing %v",
					m.Header.Type, r.Step(), m.Header.Step, r.Playing(), tt.wantType, tt.wantStep, tt.playing)
			}
			var ce *CommandError
			switch {
			case tt.wantError == "" && err != nil:
				t.Errorf("got error %v, want none", err)
			case tt.wantError != "" && (!errors.As(err, &ce) || !strings.Contains(err.Error(), tt.wantError)):
				t.Errorf("got error %v, want a *CommandError containing %q", err, tt.wantError)
			case tt.wantError != "":
				msg, _ := m.Header.Meta["message"].(string)
				if !strings.Contains(msg, tt.wantError) || m.Header.Meta["command"] != string(tt.cmds[len(tt.cmds)-1].Type) {
					t.Errorf("got error meta %v, want message containing %q and the command", m.Header.Meta, tt.wantError)
				}
			}
		})
	}
}

func TestRunFrameContents(t *testing.T) {
	r := newTestRun(t)
	r.Apply(Command{Type: SeekCommand, Step: 3})
	msgs, _ := r.Apply(Command{Type: StepCommand})
	m := decode(t, msgs[0])
	want := r.Model().At(4)
	if len(m.Arrays) != 4 || m.Header.Meta["token"] != "a" {
		t.Fatalf("got %d arrays and meta %v, want R, Z, H_tilde, H and token a", len(m.Arrays), m.Header.Meta)
	}
	for i, a := range m.Arrays {
		for j, v := range a.Data {
			if d := v - want.Arrays[i].Data[j]; d > 1e-6 || d < -1e-6 {
				t.Fatalf("%s[%d]: got %g want %g (float32 tolerance 1e-6)", a.Name, j, v, want.Arrays[i].Data[j])
			}
		}
	}

	snap := decode(t, r.Snapshot())
	h := snap.Header
	if len(snap.Arrays) != 1+4*4 || snap.Arrays[0].Name != "W_hz" || snap.Arrays[len(snap.Arrays)-1].Name != "H@4" {
		t.Fatalf("got %d snapshot arrays (first %s, last %s), want W_hz then 4 arrays × 4 steps ending H@4",
			len(snap.Arrays), snap.Arrays[0].Name, snap.Arrays[len(snap.Arrays)-1].Name)
	}
	if h.Meta["token@2"] != "b" || h.Params["hidden"] != "8" || h.Speed != DefaultSpeed || h.Static["tokens"] == nil {
		t.Errorf("got snapshot meta %v params %v speed %g static %v, want token@2=b, hidden=8, default speed, tokens",
			h.Meta, h.Params, h.Speed, h.Static)
	}
}

func TestRunPlayTicksToEnd(t *testing.T) {
	r := newTestRun(t)
	r.Apply(Command{Type: PlayCommand, Speed: 30})
	var steps []int
	for {
		e, ok := r.Tick()
		if !ok {
			break
		}
		steps = append(steps, decode(t, e).Header.Step)
	}
	if fmt.Sprint(steps) != "[1 2 3 4 5 6 7 8]" || r.Playing() {
		t.Errorf("got ticks at steps %v, playing %v, want 1…8 then paused", steps, r.Playing())
	}
}

func TestRunTrain(t *testing.T) {
	r := newTestRun(t)
	r.Apply(Command{Type: SeekCommand, Step: 8})
	before := decode(t, r.Frame()).Arrays[1].Data // Z at step 8
	if msgs, err := r.Apply(Command{Type: TrainCommand, Steps: 3}); err != nil || len(msgs) != 0 || !r.Training() {
		t.Fatalf("train: got %d messages, err %v, training %v; want none, nil, true", len(msgs), err, r.Training())
	}
	if _, err := r.Apply(Command{Type: StepCommand}); err == nil {
		t.Errorf("step while training: got no error, want a refusal")
	}
	var types []MessageType
	var last Message
	for r.Training() {
		for _, e := range r.Continue() {
			last = decode(t, e)
			types = append(types, last.Header.Type)
			if last.Header.Type == TrainMessage && (last.Header.Meta["of"] != 3.0 || last.Header.Meta["loss"] == nil) {
				t.Errorf("train meta %v, want of=3 and a loss", last.Header.Meta)
			}
		}
	}
	if fmt.Sprint(types) != "[train train train snapshot]" {
		t.Fatalf("got messages %v, want three train then a snapshot", types)
	}
	after := last.Arrays[len(last.Arrays)-3].Data // Z@8
	if fmt.Sprint(before) == fmt.Sprint(after) {
		t.Errorf("Z at step 8 unchanged by training: the frame cache was not rebuilt")
	}
	if got := last.Header.Static["trained"]; got != 3.0 {
		t.Errorf("static meta trained = %v after 3 steps, want 3: the static frame was not re-read", got)
	}
	if last.Header.Trained != 3 || r.Trained() != 3 {
		t.Errorf("snapshot trained = %d, Run.Trained = %d after 3 steps, want 3", last.Header.Trained, r.Trained())
	}
	// The same model, built afresh and replayed 3 steps, shows the same frames.
	replayed, _ := buildGRU(r.Values())
	if err := Replay(context.Background(), nil, replayed, 3); err != nil {
		t.Fatal(err)
	}
	if got := replayed.At(8).Arrays[1].Data; fmt.Sprint(got) != fmt.Sprint(r.frame(8).Arrays[1].Data) {
		t.Errorf("Z at step 8 after Replay(3): got %v, want the trained run's %v", got, r.frame(8).Arrays[1].Data)
	}
	r.Apply(Command{Type: SetCommand, Params: map[string]string{"seed": "2"}})
	if r.Trained() != 0 {
		t.Errorf("after a set: Trained = %d, want 0 (a new model)", r.Trained())
	}

	// A model that does not train refuses.
	plain, _ := NewRun(gruSpecs, func(v Values) (Model, error) {
		m, err := buildGRU(v)
		return struct{ Model }{m}, err
	}, gruSpecs.Defaults())
	if _, err := plain.Apply(Command{Type: TrainCommand, Steps: 1}); err == nil || !strings.Contains(err.Error(), "does not train") {
		t.Errorf("got %v, want 'does not train'", err)
	}
}

func TestNewRunErrors(t *testing.T) {
	long := Specs{{Name: "n", Label: "N", Kind: Int, Default: "513", Min: 0, Max: 1000}}
	_, err := NewRun(long, func(v Values) (Model, error) {
		return stepsModel(v.Int("n")), nil
	}, long.Defaults())
	if err == nil || !strings.Contains(err.Error(), "512") {
		t.Errorf("got %v, want an error naming MaxSteps", err)
	}
	bad := gruSpecs.Defaults()
	bad["hidden"] = "x"
	if _, err := NewRun(gruSpecs, buildGRU, bad); err == nil {
		t.Errorf("got no error for hidden=x, want one")
	}
}

// stepsModel has n empty steps.
type stepsModel int

func (m stepsModel) Steps() int    { return int(m) }
func (m stepsModel) Static() Frame { return Frame{} }
func (m stepsModel) At(int) Frame  { return Frame{} }

func TestRunTrainReports(t *testing.T) {
	r := newTestRun(t)
	r.Apply(Command{Type: TrainCommand, Steps: 250})
	var done []float64
	for r.Training() {
		for _, e := range r.Continue() {
			if m := decode(t, e); m.Header.Type == TrainMessage {
				done = append(done, m.Header.Meta["done"].(float64))
			}
		}
	}
	// every = 250/100 = 2 steps: 2, 4, …, 250.
	if len(done) != 125 || done[0] != 2 || done[len(done)-1] != 250 {
		t.Errorf("got %d progress messages (%v … %v), want 125 from 2 to 250", len(done), done[0], done[len(done)-1])
	}
}

// passesModel has two passes over t = 1..n, forward then backward (BPTT's steps), or
// passes that do not cover its 2n steps when short.
type passesModel struct {
	n     int
	short bool
}

func (m passesModel) Steps() int { return 2 * m.n }
func (m passesModel) Static() Frame {
	return Frame{Facts: []Fact{{Label: "sequence length T", Value: m.n}}}
}
func (m passesModel) At(int) Frame { return Frame{} }
func (m passesModel) Passes() []Pass {
	ps := []Pass{{Name: "forward pass", Steps: m.n, Index: "t", First: 1, Last: m.n}, {Name: "backward pass", Steps: m.n, Index: "t", First: m.n, Last: 1}}
	if m.short {
		ps[1].Steps--
	}
	return ps
}

// TestRunPasses: a Timeline model's passes travel in its snapshots with its static
// facts; passes that do not cover the steps are refused; a model without a Timeline
// has one pass t = 1..Steps.
func TestRunPasses(t *testing.T) {
	build := func(short bool) Builder {
		return func(Values) (Model, error) { return passesModel{n: 4, short: short}, nil }
	}
	r, err := NewRun(nil, build(false), Values{})
	if err != nil {
		t.Fatal(err)
	}
	h := decode(t, r.Snapshot()).Header
	if len(h.Passes) != 2 || h.Passes[1].Name != "backward pass" || h.Passes[1].First != 4 || h.Passes[1].Last != 1 {
		t.Errorf("got passes %+v", h.Passes)
	}
	if len(h.StaticFacts) != 1 || h.StaticFacts[0].Label != "sequence length T" || h.StaticFacts[0].Value != 4.0 {
		t.Errorf("got static facts %+v", h.StaticFacts)
	}
	if _, err := NewRun(nil, build(true), Values{}); err == nil || !strings.Contains(err.Error(), "cover 7 steps of its 8") {
		t.Errorf("passes short of the steps: got %v", err)
	}
	if ps := PassesOf(stepsModel(5)); len(ps) != 1 || ps[0].Steps != 5 || ps[0].Index != "t" {
		t.Errorf("a model without a Timeline: got passes %+v", ps)
	}
}

// TestRunClockStampsEveryMessage: with a clock, every message type carries the time
// its header was made as the last key, to the microsecond, read back by
// DecodeMessage; without one there is no "sent" at all (the goldens hold that too).
func TestRunClockStampsEveryMessage(t *testing.T) {
	base := time.Date(2026, 11, 25, 16, 27, 1, 123456789, time.UTC)
	calls := 0
	r := newTestRun(t)
	r.SetClock(func() time.Time {
		calls++
		return base.Add(time.Duration(calls) * 1500 * time.Microsecond)
	})
	msgs := []Encoded{r.Snapshot()}
	step, _ := r.Apply(Command{Type: StepCommand})
	msgs = append(msgs, step...)
	r.Apply(Command{Type: TrainCommand, Steps: 1})
	msgs = append(msgs, r.Continue()...) // train, snapshot
	refusal, _ := r.Apply(Command{Type: SeekCommand, Step: 99})
	msgs = append(msgs, refusal...)
	types := map[MessageType]bool{}
	for i, e := range msgs {
		m := decode(t, e)
		types[m.Header.Type] = true
		want := base.Add(time.Duration(i+1) * 1500 * time.Microsecond).Truncate(time.Microsecond)
		if got := m.Header.Sent.Time(); !got.Equal(want) {
			t.Errorf("message %d (%s): sent %v, want %v", i, m.Header.Type, got, want)
		}
		n := binary.LittleEndian.Uint32(e.Data)
		header := string(e.Data[4 : 4+n])
		wantKey := fmt.Sprintf(`,"sent":%d.%03d}`, want.UnixMilli(), want.Nanosecond()/1000%1000)
		if !strings.HasSuffix(header, wantKey) {
			t.Errorf("message %d (%s): header %s does not end with %s", i, m.Header.Type, header, wantKey)
		}
	}
	if len(types) != 4 || calls != len(msgs) {
		t.Errorf("stamped %d messages of types %v with %d clock readings; want all four types, one reading each", len(msgs), types, calls)
	}
	plain := newTestRun(t)
	if e := plain.Snapshot(); bytes.Contains(e.Data, []byte(`"sent"`)) {
		t.Errorf("a run without a clock stamped its snapshot")
	}
}

// TestRunAck: a run's messages acknowledge the last numbered command it carried out or
// refused (Header.Ack), and none before the first.
func TestRunAck(t *testing.T) {
	r := newTestRun(t)
	first, _ := r.Apply(Command{Type: StepCommand})
	if h := header(t, first[0]); h.Ack != 0 || strings.Contains(string(first[0].Data), `"ack"`) {
		t.Errorf("before any numbered command the frame has ack %d", h.Ack)
	}
	for _, tt := range []struct {
		cmd  Command
		want MessageType
	}{
		{Command{Type: StepCommand, ID: 11}, FrameMessage},
		{Command{Type: SeekCommand, Step: 99, ID: 12}, ErrorMessage},
		{Command{Type: ResetCommand, ID: 13}, SnapshotMessage},
		{Command{Type: StepCommand}, FrameMessage}, // unnumbered: the last ack stands
	} {
		msgs, _ := r.Apply(tt.cmd)
		want := tt.cmd.ID
		if want == 0 {
			want = 13
		}
		if h := header(t, msgs[0]); h.Type != tt.want || h.Ack != want {
			t.Errorf("%s (id %d): %s with ack %d, want %s with ack %d", tt.cmd.Type, tt.cmd.ID, h.Type, h.Ack, tt.want, want)
		}
	}
	if r.Acked() != 13 {
		t.Errorf("Acked() = %d, want 13", r.Acked())
	}
}

// header decodes m's header.
func header(t *testing.T, m Encoded) Header {
	t.Helper()
	d, err := DecodeMessage(m.Data)
	if err != nil {
		t.Fatal(err)
	}
	return d.Header
}
