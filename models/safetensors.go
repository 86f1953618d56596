package models

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// Checkpoints use the safetensors layout, so a student can open them with the
// safetensors package next to PyTorch (safetensors.torch.load_file):
//
//	[8 bytes]  N, the header length, unsigned 64-bit little-endian
//	[N bytes]  UTF-8 JSON header, padded with spaces to a multiple of 8 bytes:
//	           {"__metadata__":{"key":"value",…},
//	            "W_xr":{"dtype":"F64","shape":[d,h],"data_offsets":[start,end]},…}
//	[rest]     the tensors' bytes, little-endian, row-major, back to back; a tensor's
//	           data_offsets count from the first byte after the header
//
// Weights are written as 2-D tensors [rows, cols]; biases (Param.Vector) as 1-D [h].
const (
	// maxHeaderBytes bounds N: Unroll's tensors need a few KB of header; the rest
	// leaves room for a vocabulary in __metadata__ and refuses absurd lengths.
	maxHeaderBytes = 16 << 20
	// maxTensorRank bounds the rank of tensors we skip over; ours are 1-D or 2-D.
	maxTensorRank = 8
	// headerAlign is the multiple the header is padded to, as the reference writer does.
	headerAlign = 8
	// metadataKey is the header entry that holds string metadata instead of a tensor.
	metadataKey = "__metadata__"
)

// safetensorsDtypeBytes is the size of one element of each dtype the format names.
var safetensorsDtypeBytes = map[string]uint64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// tensorHeader is one tensor's entry in the JSON header.
type tensorHeader struct {
	Dtype       string   `json:"dtype"`
	Shape       []uint64 `json:"shape"`
	DataOffsets []uint64 `json:"data_offsets"`
}

// WriteSafetensors writes ps (in order) and meta to w in the safetensors format.
// Names must be non-empty, distinct and not "__metadata__", and every value finite
// (a checkpoint of a diverged model is refused, so every file written can be read back).
func WriteSafetensors(w io.Writer, ps Params, meta map[string]string) error {
	if err := writeSafetensors(w, ps, meta); err != nil {
		return fmt.Errorf("models: safetensors: %w", err)
	}
	return nil
}

// ReadSafetensors reads a safetensors stream and copies each tensor into the Value of
// the parameter with its name, converting F32 to float64; it returns the
// __metadata__ map (empty if absent). Tensors without a parameter are skipped. The
// stream is outside input and is validated in full: header length, UTF-8 JSON, known
// dtypes, offsets that tile the data exactly, no trailing bytes, finite values. A
// missing tensor, or one with the wrong shape or a non-float dtype, is an error that
// names it. On any error no Value is changed.
func ReadSafetensors(r io.Reader, ps Params) (map[string]string, error) {
	meta, err := readSafetensors(r, ps)
	if err != nil {
		return nil, fmt.Errorf("models: safetensors: %w", err)
	}
	return meta, nil
}

// safetensorsShape is the shape p is stored under: [h] for a bias, [rows, cols] otherwise.
func safetensorsShape(p *Param) []uint64 {
	r, c := p.Value.Dims()
	if p.Vector {
		mustDims("bias "+p.Name, p.Value, 1, c)
		return []uint64{uint64(c)}
	}
	return []uint64{uint64(r), uint64(c)}
}

// writeSafetensors is WriteSafetensors without the error prefix; it checks every
// parameter before writing a byte.
func writeSafetensors(w io.Writer, ps Params, meta map[string]string) error {
	seen := make(map[string]bool, len(ps))
	for _, p := range ps {
		switch {
		case p.Name == "":
			return errors.New("parameter with an empty name")
		case p.Name == metadataKey:
			return fmt.Errorf("parameter may not be called %q", metadataKey)
		case seen[p.Name]:
			return fmt.Errorf("two parameters called %q", p.Name)
		case !allFinite(p.Value):
			return fmt.Errorf("tensor %q holds NaN or Inf", p.Name)
		}
		seen[p.Name] = true
	}

	var header bytes.Buffer
	header.WriteByte('{')
	if len(meta) > 0 {
		encoded, err := json.Marshal(meta) // keys sorted
		if err != nil {
			return err
		}
		header.WriteString(`"` + metadataKey + `":`)
		header.Write(encoded)
	}
	var offset uint64
	for i, p := range ps {
		r, c := p.Value.Dims()
		size := uint64(r*c) * 8
		entry, err := json.Marshal(tensorHeader{Dtype: "F64", Shape: safetensorsShape(p), DataOffsets: []uint64{offset, offset + size}})
		if err != nil {
			return err
		}
		name, err := json.Marshal(p.Name)
		if err != nil {
			return err
		}
		if i > 0 || len(meta) > 0 {
			header.WriteByte(',')
		}
		header.Write(name)
		header.WriteByte(':')
		header.Write(entry)
		offset += size
	}
	header.WriteByte('}')
	for header.Len()%headerAlign != 0 {
		header.WriteByte(' ')
	}

	var length [8]byte
	binary.LittleEndian.PutUint64(length[:], uint64(header.Len()))
	if _, err := w.Write(length[:]); err != nil {
		return err
	}
	if _, err := w.Write(header.Bytes()); err != nil {
		return err
	}
	for _, p := range ps {
		r, c := p.Value.Dims()
		data := make([]byte, 0, r*c*8)
		for i := 0; i < r; i++ {
			for _, v := range p.Value.RawRowView(i) {
				data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v))
			}
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return nil
}

// storedTensor is a validated header entry.
type storedTensor struct {
	name       string
	dtype      string
	shape      []uint64
	start, end uint64
}

// readSafetensors is ReadSafetensors without the error prefix.
func readSafetensors(r io.Reader, ps Params) (map[string]string, error) {
	var length [8]byte
	if _, err := io.ReadFull(r, length[:]); err != nil {
		return nil, fmt.Errorf("reading header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(length[:])
	if n < 2 || n > maxHeaderBytes {
		return nil, fmt.Errorf("header length %d outside [2, %d]", n, maxHeaderBytes)
	}
	// ReadAll grows with the data actually present, so a lying length costs nothing.
	raw, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return nil, fmt.Errorf("reading header: %w", err)
	}
	if uint64(len(raw)) != n {
		return nil, fmt.Errorf("header is %d bytes, file ends after %d", n, len(raw))
	}
	meta, tensors, err := parseSafetensorsHeader(raw)
	if err != nil {
		return nil, err
	}

	// Check every wanted tensor before reading any data.
	byName := make(map[string]int, len(tensors))
	for i, t := range tensors {
		byName[t.name] = i
	}
	wanted := make(map[string]*Param, len(ps))
	for _, p := range ps {
		i, ok := byName[p.Name]
		if !ok {
			return nil, fmt.Errorf("no tensor %q", p.Name)
		}
		t := tensors[i]
		if t.dtype != "F64" && t.dtype != "F32" {
			return nil, fmt.Errorf("tensor %q has dtype %s, want F64 or F32", p.Name, t.dtype)
		}
		if want := safetensorsShape(p); !slices.Equal(t.shape, want) {
			return nil, fmt.Errorf("tensor %q has shape %v, want %v", p.Name, t.shape, want)
		}
		wanted[p.Name] = p
	}

	values := make(map[string][]float64, len(wanted))
	for _, t := range tensors {
		size := int64(t.end - t.start) // validated: fits, and equals the shape's bytes
		if wanted[t.name] == nil {
			if _, err := io.CopyN(io.Discard, r, size); err != nil {
				return nil, fmt.Errorf("reading tensor %q: %w", t.name, err)
			}
			continue
		}
		data := make([]byte, size) // bounded by the parameter's own size
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("reading tensor %q: %w", t.name, err)
		}
		v, err := decodeFloats(t, data)
		if err != nil {
			return nil, err
		}
		values[t.name] = v
	}
	var extra [1]byte
	if k, _ := io.ReadFull(r, extra[:]); k != 0 {
		return nil, errors.New("bytes after the last tensor")
	}

	for _, p := range ps {
		v := values[p.Name]
		r, c := p.Value.Dims()
		for i := 0; i < r; i++ {
			copy(p.Value.RawRowView(i), v[i*c:(i+1)*c])
		}
	}
	return meta, nil
}

// parseSafetensorsHeader decodes and validates the JSON header; it returns the
// tensors sorted by offset.
func parseSafetensorsHeader(raw []byte) (map[string]string, []storedTensor, error) {
	if !utf8.Valid(raw) {
		return nil, nil, errors.New("header is not UTF-8")
	}
	if raw[0] != '{' {
		return nil, nil, errors.New("header is not a JSON object")
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	meta := map[string]string{}
	tensors := make([]storedTensor, 0, len(entries))
	for name, entry := range entries {
		if name == metadataKey {
			if err := json.Unmarshal(entry, &meta); err != nil {
				return nil, nil, errors.New("__metadata__ is not an object of strings")
			}
			if meta == nil { // "__metadata__": null
				meta = map[string]string{}
			}
			continue
		}
		t, err := parseTensorHeader(name, entry)
		if err != nil {
			return nil, nil, err
		}
		tensors = append(tensors, t)
	}
	slices.SortFunc(tensors, func(a, b storedTensor) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		if a.end != b.end {
			return cmp.Compare(a.end, b.end)
		}
		return strings.Compare(a.name, b.name)
	})
	var end uint64
	for _, t := range tensors {
		if t.start != end {
			return nil, nil, fmt.Errorf("tensor %q starts at byte %d, want %d (tensors must tile the data)", t.name, t.start, end)
		}
		end = t.end
	}
	if end > math.MaxInt64 {
		return nil, nil, fmt.Errorf("data of %d bytes is too large", end)
	}
	return meta, tensors, nil
}

// parseTensorHeader decodes one tensor entry and checks that its offsets span exactly
// the bytes its dtype and shape need.
func parseTensorHeader(name string, entry json.RawMessage) (storedTensor, error) {
	var h tensorHeader
	if err := json.Unmarshal(entry, &h); err != nil {
		return storedTensor{}, fmt.Errorf("tensor %q: %w", name, err)
	}
	elemBytes, ok := safetensorsDtypeBytes[h.Dtype]
	if !ok {
		return storedTensor{}, fmt.Errorf("tensor %q has unknown dtype %q", name, h.Dtype)
	}
	if h.Shape == nil || len(h.Shape) > maxTensorRank {
		return storedTensor{}, fmt.Errorf("tensor %q needs a shape of rank 0 to %d", name, maxTensorRank)
	}
	if len(h.DataOffsets) != 2 || h.DataOffsets[0] > h.DataOffsets[1] {
		return storedTensor{}, fmt.Errorf("tensor %q needs data_offsets [start, end] with start ≤ end", name)
	}
	size := elemBytes
	for _, d := range h.Shape {
		hi, lo := bits.Mul64(size, d)
		if hi != 0 {
			return storedTensor{}, fmt.Errorf("tensor %q: shape %v overflows", name, h.Shape)
		}
		size = lo
	}
	if span := h.DataOffsets[1] - h.DataOffsets[0]; span != size {
		return storedTensor{}, fmt.Errorf("tensor %q spans %d bytes, its %s shape %v needs %d", name, span, h.Dtype, h.Shape, size)
	}
	return storedTensor{name: name, dtype: h.Dtype, shape: h.Shape, start: h.DataOffsets[0], end: h.DataOffsets[1]}, nil
}

// decodeFloats turns little-endian F64 or F32 bytes into finite float64 values.
func decodeFloats(t storedTensor, data []byte) ([]float64, error) {
	var v []float64
	switch t.dtype {
	case "F64":
		v = make([]float64, len(data)/8)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
	case "F32":
		v = make([]float64, len(data)/4)
		for i := range v {
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
		}
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("tensor %q holds %v at element %d", t.name, x, i)
		}
	}
	return v, nil
}

// allFinite reports whether every entry of m is finite.
func allFinite(m *mat.Dense) bool {
	r, _ := m.Dims()
	for i := 0; i < r; i++ {
		for _, x := range m.RawRowView(i) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
	}
	return true
}
