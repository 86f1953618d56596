package lessons

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"unicode/utf8"

	"unroll/sim"
	"unroll/torchload"
)

// A student's file on the yours page: the Upload its session holds, the builder that
// runs it, and the example model the page runs until a file comes.

// Upload is a student's own model file, read and mapped: held in memory by the session
// that received it and by nothing else (never written to disk, never sent to another
// page: a room's followers get frames, and a follower's own copy starts without it).
type Upload struct {
	Name   string // the file's name as the page gave it, shown in the facts
	Format torchload.Format
	Arch   torchload.Architecture // as mapped with tanh (an nn.RNN's nonlinearity is a parameter)
	// Bytes is what the upload holds in memory: its float64 tensors and the cells they
	// are mapped onto (twice for an nn.RNN, once per nonlinearity), counted against the
	// server's memory budget by the session that holds it.
	Bytes int

	tensors []*torchload.Tensor
	mu      sync.Mutex
	mapped  map[string]*torchload.Model // by nonlinearity
}

// ReadUpload reads a torch.save or safetensors file and maps it (torchload.Load and
// Map): every refusal is the file's, with torchload's message.
func ReadUpload(name string, data []byte) (*Upload, error) {
	ts, format, err := torchload.Load(data)
	if err != nil {
		return nil, err
	}
	m, err := torchload.Map(ts, torchload.Options{})
	if err != nil {
		return nil, err
	}
	n := 0
	for _, t := range ts {
		n += len(t.Data)
	}
	copies := 2 // the tensors and one mapping
	if m.Arch.Kind == torchload.KindRNNTanh {
		copies = 3 // and the relu mapping, made when asked for
	}
	name = strings.Map(func(r rune) rune { // a name for the facts, not a path
		if r < ' ' || r == '/' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	if utf8.RuneCountInString(name) > 80 {
		name = string([]rune(name)[:80]) + "…"
	}
	up := &Upload{Name: name, Format: format, Arch: m.Arch, Bytes: copies*8*n + 4<<10, tensors: ts,
		mapped: map[string]*torchload.Model{"tanh": m}}
	return up, nil
}

// model is the upload mapped with nn.RNN's nonlinearity nl (tanh or relu; ignored for a
// GRU or an LSTM). The mapped cells are only read afterwards (forward passes and BPTT
// without parameter gradients), so the runs that share an upload may read it at once.
func (u *Upload) model(nl string) (*torchload.Model, error) {
	if u.Arch.Kind != torchload.KindRNNTanh {
		nl = "tanh"
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if m := u.mapped[nl]; m != nil {
		return m, nil
	}
	m, err := torchload.Map(u.tensors, torchload.Options{Nonlinearity: nl})
	if err != nil {
		return nil, err
	}
	u.mapped[nl] = m
	return m, nil
}

// exampleModel is the page's model until a file comes: an untrained character LSTM
// (nn.Embedding, nn.LSTM, nn.Linear) with PyTorch's names and initialisation
// U(−1/√h, 1/√h) drawn from seed, mapped by the same torchload.Map as a student's file.
func exampleModel(seed uint64) *torchload.Model {
	rng := rand.New(rand.NewPCG(seed, 0x7005))
	V, d, h := utf8.RuneCountInString(yoursExampleVocab), yoursExampleEmbed, yoursExampleHidden
	k := 1 / math.Sqrt(float64(h))
	tensor := func(name string, shape ...int) *torchload.Tensor {
		n := 1
		for _, s := range shape {
			n *= s
		}
		data := make([]float64, n)
		for i := range data {
			if strings.HasPrefix(name, "emb.") {
				data[i] = rng.NormFloat64() // nn.Embedding's N(0, 1)
			} else {
				data[i] = (2*rng.Float64() - 1) * k
			}
		}
		return &torchload.Tensor{Name: name, Shape: shape, Dtype: torchload.F32, Data: data}
	}
	ts := []*torchload.Tensor{
		tensor("emb.weight", V, d),
		tensor("rnn.weight_ih_l0", 4*h, d), tensor("rnn.weight_hh_l0", 4*h, h),
		tensor("rnn.bias_ih_l0", 4*h), tensor("rnn.bias_hh_l0", 4*h),
		tensor("out.weight", V, h), tensor("out.bias", V),
	}
	m, err := torchload.Map(ts, torchload.Options{})
	if err != nil {
		panic(err) // a bug: the example is built to map
	}
	return m
}

// WithUpload is the yours page's builder with the student's model up (labelled with the
// page's facts, as Lesson.Model): what a session that received a file runs.
func WithUpload(up *Upload) sim.Builder {
	return func(v sim.Values) (sim.Model, error) {
		m, err := buildYours(v, up)
		if err != nil {
			return nil, err
		}
		return labelled(m, yoursLesson.Facts), nil
	}
}

// UploadOf is the student's upload model m holds (a yours page's model, as a run
// holds it), or nil: what must not leave its session.
func UploadOf(m sim.Model) *Upload {
	if y, ok := Unwrap(m).(*yoursModel); ok {
		return y.up
	}
	return nil
}
