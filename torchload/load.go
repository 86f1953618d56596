// Package torchload reads a student's own PyTorch recurrent model — a state_dict saved with
// torch.save, or a safetensors file with PyTorch's tensor names — maps nn.RNN, nn.GRU and
// nn.LSTM (with an optional nn.Embedding and nn.Linear head) onto the cells of package
// models, and runs it, recording every gate of every layer, direction and step.
//
// The pickle inside a torch.save file is read, never executed: before gopickle sees a
// byte, a scan of every opcode refuses any global outside a short allowlist (the tensor
// rebuilders, the four float storage types, collections.OrderedDict), any opcode a
// state_dict does not need, and any length the file cannot back; the same allowlist is
// gopickle's FindClass hook. See docs/checkpoints.md ("Your own PyTorch model").
package torchload

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Limits on what Load accepts. Every one is a named bound with its reason; a file past
// one is refused with an error that names the limit.
const (
	// MaxFileBytes bounds the file: a recurrent model a student trains for this page is
	// KBs to a few MB; 50 MB leaves room for a large character model and its head, and
	// bounds what a request may make the server hold.
	MaxFileBytes = 50 << 20
	// MaxTensors bounds the tensors in one file: 4 layers × 2 directions × 4 tensors is
	// 32, plus an embedding and a head; 256 leaves room for names we then refuse clearly.
	MaxTensors = 256
	// MaxRank bounds a tensor's rank: the modules we map have 1-D and 2-D tensors only.
	MaxRank = 4
	// MaxElements bounds the elements of all tensors together, 4 M float64 values
	// (32 MB): far above a teaching model (a 4-layer bidirectional LSTM with h = 256 has
	// 3.7 M), and what one request may hold in memory.
	MaxElements = 4 << 20
	// MaxPickleBytes bounds data.pkl: a state_dict costs about 150 bytes of pickle per
	// tensor, so MaxTensors need about 40 KB.
	MaxPickleBytes = 256 << 10
	// maxPickleObjects bounds the opcodes that build a container or call a global (each
	// costs up to a few hundred bytes in gopickle): a torch.save state_dict needs about
	// 12 per tensor.
	maxPickleObjects = 64 * MaxTensors
	// maxZipEntries bounds the entries of a torch.save zip: data.pkl, version, byteorder,
	// .data/serialization_id and one storage per tensor.
	maxZipEntries = MaxTensors + 16
)

// Dtype is a tensor's element type as stored.
type Dtype string

// The element types Load reads; every one becomes float64.
const (
	F32  Dtype = "F32"
	F64  Dtype = "F64"
	F16  Dtype = "F16"
	BF16 Dtype = "BF16"
)

// size is the bytes of one element.
func (d Dtype) size() int {
	switch d {
	case F64:
		return 8
	case F32:
		return 4
	}
	return 2
}

// Tensor is one named tensor of a file, converted to float64, row-major.
type Tensor struct {
	Name  string
	Dtype Dtype // as stored
	Shape []int
	Data  []float64
}

// String is "name [r c] F32".
func (t *Tensor) String() string { return fmt.Sprintf("%s %v %s", t.Name, t.Shape, t.Dtype) }

// Format says which of the two file formats a file is.
type Format string

// The formats Load reads.
const (
	FormatTorch       Format = "torch.save"
	FormatSafetensors Format = "safetensors"
)

// Load reads a torch.save zip (PyTorch ≥ 1.6) or a safetensors file from data and returns
// its tensors in file order (the state_dict's order for torch.save, the data order for
// safetensors). Values must be finite. Every error says what was found.
func Load(data []byte) ([]*Tensor, Format, error) {
	if len(data) > MaxFileBytes {
		return nil, "", fmt.Errorf("torchload: the file is %d bytes, over the limit of %d (MaxFileBytes)", len(data), MaxFileBytes)
	}
	var (
		ts  []*Tensor
		f   Format
		err error
	)
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		f = FormatTorch
		ts, err = loadTorch(data)
	case len(data) >= 9 && data[8] == '{':
		f = FormatSafetensors
		ts, err = loadSafetensors(data)
	case bytes.HasPrefix(data, []byte{0x80}) || bytes.HasPrefix(data, []byte{0x8a, 0x0a}):
		err = errors.New("this is a pickle without the zip around it (torch.save before PyTorch 1.6, or _use_new_zipfile_serialization=False); save it again with a recent torch.save")
	default:
		err = errors.New("neither a torch.save zip (it starts with PK) nor a safetensors file (8 bytes of length, then a JSON header)")
	}
	if err != nil {
		return nil, "", fmt.Errorf("torchload: %s: %w", f, err)
	}
	if len(ts) == 0 {
		return nil, "", fmt.Errorf("torchload: %s: the file holds no tensors", f)
	}
	return ts, f, nil
}

// elements checks a shape (rank, non-negative dimensions) and returns its element count,
// refusing more than budget. An empty name is "a tensor".
func elements(name string, shape []int, budget int) (int, error) {
	if name == "" {
		name = "a tensor"
	} else {
		name = strconv.Quote(name)
	}
	if len(shape) > MaxRank {
		return 0, fmt.Errorf("tensor %s has rank %d, over MaxRank %d", name, len(shape), MaxRank)
	}
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("tensor %s has a negative dimension in %v", name, shape)
		}
		if d > 0 && n > budget/d {
			return 0, fmt.Errorf("tensor %s of shape %v has more elements than the %d left of MaxElements", name, shape, budget)
		}
		n *= d
	}
	if n > budget {
		return 0, fmt.Errorf("tensor %s of shape %v has more elements than the %d left of MaxElements", name, shape, budget)
	}
	return n, nil
}

// decode turns the little-endian element at b of type d into a float64.
func decode(d Dtype, b []byte) float64 {
	switch d {
	case F64:
		return math.Float64frombits(uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56)
	case F32:
		return float64(math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24))
	case BF16:
		return float64(math.Float32frombits((uint32(b[0]) | uint32(b[1])<<8) << 16))
	}
	return halfToFloat(uint16(b[0]) | uint16(b[1])<<8)
}

// halfToFloat converts an IEEE 754 binary16 value, subnormals, infinities and NaN
// included, exactly.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10)&0x1f, float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// checkFinite refuses a tensor holding NaN or ±Inf.
func checkFinite(t *Tensor) error {
	for i, v := range t.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("tensor %q holds %v at element %d", t.Name, v, i)
		}
	}
	return nil
}
