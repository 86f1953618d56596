package torchload

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxSafetensorsHeader bounds the JSON header: MaxTensors entries take about 100 bytes
// each, and __metadata__ is a few short strings; 1 MiB also bounds what parsing it costs.
const maxSafetensorsHeader = 1 << 20

// safetensorsTensor is one entry of a safetensors header.
type safetensorsTensor struct {
	Dtype       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets []uint64 `json:"data_offsets"`
}

// loadSafetensors reads every tensor of a safetensors file (the layout of
// docs/checkpoints.md). models.ReadSafetensors reads into known parameters, F64 and F32
// only; here the names are the student's and F16 and BF16 are common, so the header is
// walked on its own, with the same rules: UTF-8 JSON, offsets that tile the data exactly,
// no trailing bytes, finite values.
func loadSafetensors(data []byte) ([]*Tensor, error) {
	n := binary.LittleEndian.Uint64(data)
	if n < 2 || n > uint64(len(data)-8) {
		return nil, fmt.Errorf("header length %d, but the file has %d bytes after the length", n, len(data)-8)
	}
	if n > maxSafetensorsHeader {
		return nil, fmt.Errorf("header of %d bytes, over %d (maxSafetensorsHeader)", n, maxSafetensorsHeader)
	}
	raw, body := data[8:8+n], data[8+n:]
	if !utf8.Valid(raw) {
		return nil, errors.New("header is not UTF-8")
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	delete(entries, "__metadata__")
	if len(entries) > MaxTensors {
		return nil, fmt.Errorf("%d tensors, over MaxTensors %d", len(entries), MaxTensors)
	}
	type entry struct {
		name string
		h    safetensorsTensor
	}
	list := make([]entry, 0, len(entries))
	for name, e := range entries {
		var h safetensorsTensor
		if err := json.Unmarshal(e, &h); err != nil {
			return nil, fmt.Errorf("tensor %q: %w", name, err)
		}
		if len(h.DataOffsets) != 2 || h.DataOffsets[0] > h.DataOffsets[1] {
			return nil, fmt.Errorf("tensor %q needs data_offsets [start, end] with start ≤ end", name)
		}
		list = append(list, entry{name, h})
	}
	slices.SortFunc(list, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.h.DataOffsets[0], b.h.DataOffsets[0]),
			cmp.Compare(a.h.DataOffsets[1], b.h.DataOffsets[1]), strings.Compare(a.name, b.name))
	})

	budget := MaxElements
	var end uint64
	out := make([]*Tensor, 0, len(list))
	for _, e := range list {
		d := Dtype(e.h.Dtype)
		switch d {
		case F32, F64, F16, BF16:
		default:
			return nil, fmt.Errorf("tensor %q has dtype %q; only F32, F64, F16 and BF16 are read", e.name, e.h.Dtype)
		}
		if e.h.Shape == nil {
			return nil, fmt.Errorf("tensor %q has no shape", e.name)
		}
		k, err := elements(e.name, e.h.Shape, budget)
		if err != nil {
			return nil, err
		}
		budget -= k
		start, stop := e.h.DataOffsets[0], e.h.DataOffsets[1]
		if start != end {
			return nil, fmt.Errorf("tensor %q starts at byte %d, want %d (tensors must tile the data)", e.name, start, end)
		}
		if want := uint64(k * d.size()); stop-start != want {
			return nil, fmt.Errorf("tensor %q spans %d bytes, its %s shape %v needs %d", e.name, stop-start, d, e.h.Shape, want)
		}
		if stop > uint64(len(body)) {
			return nil, fmt.Errorf("tensor %q ends at byte %d, the data has %d", e.name, stop, len(body))
		}
		end = stop
		t := &Tensor{Name: e.name, Dtype: d, Shape: e.h.Shape, Data: make([]float64, k)}
		b, sz := body[start:stop], d.size()
		for i := range t.Data {
			t.Data[i] = decode(d, b[i*sz:])
		}
		if err := checkFinite(t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if end != uint64(len(body)) {
		return nil, fmt.Errorf("%d bytes after the last tensor", uint64(len(body))-end)
	}
	return out, nil
}
