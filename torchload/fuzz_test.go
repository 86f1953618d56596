package torchload

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// allocSlack is what a Load may allocate beyond fuzzAllocPerByte per byte of its input:
// the zip reader's and gopickle's fixed costs, and up to maxPickleObjects small objects.
const (
	allocSlack       = 16 << 20
	fuzzAllocPerByte = 32 // an F16 element (2 bytes) becomes a float64 (8) plus copies
)

// FuzzLoad: Load never panics, never allocates more than its input justifies (a lying
// length, numel or shape costs nothing), never runs anything (the hostile fixtures'
// marker never appears), and whatever it returns is consistent: shapes match the data,
// values are finite, MaxElements holds. Whatever Map accepts runs.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.pt"))
	more, _ := filepath.Glob(filepath.Join("testdata", "*.safetensors"))
	for _, name := range append(files, more...) {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(raw) > 4000 {
			continue
		}
		f.Add(raw)
		f.Add(raw[:len(raw)/2]) // truncated
		f.Add(raw[:100])
	}
	f32 := map[string][]byte{"0": make([]byte, 24)}
	f.Add(torchZip(f, tensorPickle("rnn.weight_ih_l0", "FloatStorage", 6, 0, []int{2, 3}, []int{3, 1}), f32))        // wrong shapes for any RNN
	f.Add(torchZip(f, tensorPickle("w", "FloatStorage", 1<<30, 0, []int{1 << 15, 1 << 15}, []int{1 << 15, 1}), f32)) // huge declared sizes
	f.Add(torchZip(f, binary.LittleEndian.AppendUint64([]byte("\x80\x04\x8d"), 1<<40), nil))
	f.Add(torchZip(f, []byte("\x80\x02]q\x00h\x00a."), nil))                                  // a list that holds itself
	f.Add(torchZip(f, []byte("\x80\x02}q\x00X\x01\x00\x00\x00ah\x00s."), nil))                // a dict that holds itself
	f.Add(torchZip(f, []byte("\x80\x02ccollections\nOrderedDict\n)Rq\x00h\x00h\x00s."), nil)) // an OrderedDict keyed by itself
	f.Add(torchZip(f, []byte("\x80\x02(\x8a\x00."), nil))                                     // LONG1 of no bytes (gopickle indexes [-1])
	f.Add(torchZip(f, []byte("\x80\x02(X\x01\x00\x00\x00ad."), nil))                          // a dict of an odd number of items
	f.Add(append(binary.LittleEndian.AppendUint64(nil, 1<<40), '{'))                          // safetensors header of 1 TB

	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ts, _, err := Load(data)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(fuzzAllocPerByte*len(data)+allocSlack) {
			t.Fatalf("Load of %d bytes allocated %d bytes", len(data), alloc)
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the marker %s exists", marker)
		}
		if err != nil {
			return
		}
		total := 0
		for _, x := range ts {
			n := 1
			for _, d := range x.Shape {
				n *= d
			}
			if n != len(x.Data) {
				t.Fatalf("%v holds %d values", x, len(x.Data))
			}
			for _, v := range x.Data {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%v holds %v", x, v)
				}
			}
			total += n
		}
		if total > MaxElements {
			t.Fatalf("%d elements, over MaxElements", total)
		}
		m, err := Map(ts, Options{})
		if err != nil {
			return
		}
		x := make([][]float64, 2)
		for i := range x {
			x[i] = make([]float64, m.Arch.InputSize)
		}
		if _, err := m.RunInput(Input{X: x}); err != nil {
			t.Fatalf("a mapped model does not run: %v", err)
		}
	})
}
