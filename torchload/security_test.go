package torchload

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlpodyssey/gopickle/types"
)

// marker is the file the hostile fixtures' commands would create (MARKER in
// bench/pytorch/torchload_fixtures.py).
const marker = "/tmp/unroll-torchload-pwned"

// torchZip wraps a pickle and storages (key → bytes) as torch.save does: archive/data.pkl,
// archive/data/<key>, stored uncompressed.
func torchZip(t testing.TB, pkl []byte, storages map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	write := func(name string, data []byte) {
		w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	write("archive/data.pkl", pkl)
	for _, k := range sortedKeys(storages) {
		write("archive/data/"+k, storages[k])
	}
	write("archive/version", []byte("3\n"))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// binunicode is the pickle opcode BINUNICODE for s.
func binunicode(s string) []byte {
	return append(binary.LittleEndian.AppendUint32([]byte{'X'}, uint32(len(s))), s...)
}

// TestHostilePicklesRefused: a pickle that calls os.system (protocol 2, as torch.save
// writes), posix.system (how pickle spells it on Linux) or builtins.eval (protocol 4,
// STACK_GLOBAL, inside a valid-looking OrderedDict) is refused with an error naming the
// global, and nothing ran: the marker file their command would create does not exist.
func TestHostilePicklesRefused(t *testing.T) {
	if err := os.Remove(marker); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for file, global := range map[string]string{
		"hostile_os_system.pt":     "os.system",
		"hostile_posix_system.pt":  "posix.system",
		"hostile_builtins_eval.pt": "builtins.eval",
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte("touch "+marker)) {
			t.Fatalf("%s does not hold the command that would create the marker", file)
		}
		_, _, err = Load(raw)
		var refused *RefusedGlobalError
		if !errors.As(err, &refused) || refused.Global != global || !strings.Contains(err.Error(), global) {
			t.Errorf("%s: error %v, want a refusal naming %s", file, err, global)
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: the marker %s exists after loading (stat: %v)", file, marker, err)
		}
	}
}

// TestFindClassRefusesWithoutTheScan: the allowlist holds in gopickle's FindClass hook
// too, so a pickle that got past the scan would still be refused when its global is
// looked up, before REDUCE could call anything.
func TestFindClassRefusesWithoutTheScan(t *testing.T) {
	for _, global := range []string{"os.system", "posix.system", "builtins.eval", "subprocess.Popen", "torch.load"} {
		module, name, _ := strings.Cut(global, ".")
		if name == "load" {
			module, name = "torch", "load"
		}
		p := append([]byte("\x80\x02c"+module+"\n"+name+"\n"), binunicode("touch "+marker)...)
		p = append(p, "\x85R."...)
		l := &torchLoader{entries: nil, storages: map[string]*storage{}, budget: MaxElements}
		_, err := l.unpickle(p)
		var refused *RefusedGlobalError
		if !errors.As(err, &refused) || refused.Global != global {
			t.Errorf("unpickle with %s: %v, want a refusal naming it", global, err)
		}
	}
}

// TestScanRefuses: the scan refuses, before gopickle sees a byte, what gopickle would
// resolve on its own (__builtin__.object, copy_reg._reconstructor), globals named from
// computed strings, the opcodes a state_dict never uses, and lengths the file cannot back.
func TestScanRefuses(t *testing.T) {
	huge := binary.LittleEndian.AppendUint64([]byte("\x80\x04\x8d"), 1<<40) // BINUNICODE8 of 1 TB
	cases := map[string]struct {
		pkl  string
		want string
	}{
		"builtin-object":     {"\x80\x02c__builtin__\nobject\n)R.", "__builtin__.object"},
		"copyreg":            {"\x80\x02ccopy_reg\n_reconstructor\n)R.", "copy_reg._reconstructor"},
		"stack-global-dup":   {"\x80\x04\x8c\x02os\x8c\x06system2\x93.", "computed strings"},
		"stack-global-memo":  {"\x80\x04\x8c\x02os\x94\x8c\x06system\x94\x93.", "os.system"},
		"stack-global-get":   {"\x80\x04\x8c\x02os\x94\x8c\x06system\x94h\x00h\x01\x93.", "os.system"},
		"inst":               {"(ios\nsystem\n.", "INST"},
		"newobj":             {"\x80\x02ccollections\nOrderedDict\n)\x81.", "NEWOBJ"},
		"ext":                {"\x80\x02\x82\x01.", "EXT1"},
		"long4-huge":         {"\x80\x02\x8b\x00\x00\x10\x00.", "integer"},
		"binunicode8-1TB":    {string(huge), "needs 1099511627776 bytes"},
		"frame-1TB":          {string(binary.LittleEndian.AppendUint64([]byte("\x80\x04\x95"), 1<<40)), "needs"},
		"no-stop":            {"\x80\x02}", "without STOP"},
		"unknown-opcode":     {"\x80\x02\xff.", "unknown opcode"},
		"text-memo":          {"\x80\x02}p0\n.", "PUT/GET"},
		"long-decimal":       {"I" + strings.Repeat("9", 100) + "\n.", "digit"},
		"unterminated-line":  {"\x80\x02ccollections", "unterminated"},
		"global-in-dict-val": {"\x80\x02}X\x01\x00\x00\x00acos\nsystem\ns.", "os.system"},
	}
	for name, c := range cases {
		_, err := scanPickle([]byte(c.pkl))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: scan error %v, want one containing %q", name, err, c.want)
		}
	}
	// The same refusals through Load, in a torch.save zip.
	_, _, err := Load(torchZip(t, huge, nil))
	if err == nil || !strings.Contains(err.Error(), "needs 1099511627776 bytes") {
		t.Errorf("Load of a 1 TB string: %v", err)
	}
}

// tensorPickle is a protocol-2 state_dict {name: tensor} of one storage "0" of the given
// storage type, numel, offset, size and stride, as torch.save writes it.
func tensorPickle(name, storageType string, numel, offset int, size, stride []int) []byte {
	p := []byte("\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01(")
	p = append(p, binunicode(name)...)
	p = append(p, "ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\n"+storageType+"\n"...)
	p = append(p, binunicode("0")...)
	p = append(p, binunicode("cpu")...)
	p = append(p, 'J')
	p = binary.LittleEndian.AppendUint32(p, uint32(numel))
	p = append(p, "tQJ"...)
	p = binary.LittleEndian.AppendUint32(p, uint32(offset))
	tuple := func(v []int) {
		p = append(p, '(')
		for _, x := range v {
			p = append(p, 'J')
			p = binary.LittleEndian.AppendUint32(p, uint32(x))
		}
		p = append(p, 't')
	}
	tuple(size)
	tuple(stride)
	p = append(p, "\x89h\x00)Rtq\x02Ru."...)
	return p
}

// TestStorageBounds: a tensor is read only within its storage, and a storage's declared
// size must be its zip entry's.
func TestStorageBounds(t *testing.T) {
	f32 := func(n int) []byte { return make([]byte, 4*n) }
	cases := map[string]struct {
		pkl      []byte
		storages map[string][]byte
		want     string
	}{
		"ok": {tensorPickle("w", "FloatStorage", 6, 0, []int{2, 3}, []int{3, 1}), map[string][]byte{"0": f32(6)}, ""},
		"numel-lies": {tensorPickle("w", "FloatStorage", 1<<30, 0, []int{2, 3}, []int{3, 1}),
			map[string][]byte{"0": f32(6)}, "declares 1073741824 F32 elements"},
		"view-past-end": {tensorPickle("w", "FloatStorage", 6, 1, []int{2, 3}, []int{3, 1}),
			map[string][]byte{"0": f32(6)}, "reads past storage"},
		"huge-shape": {tensorPickle("w", "FloatStorage", 6, 0, []int{1 << 20, 1 << 20}, []int{0, 0}),
			map[string][]byte{"0": f32(6)}, "MaxElements"},
		"huge-stride": {tensorPickle("w", "FloatStorage", 6, 0, []int{2, 3}, []int{1 << 30, 1}),
			map[string][]byte{"0": f32(6)}, "stride"},
		"overlapping": {tensorPickle("w", "FloatStorage", 6, 0, []int{1000, 1000}, []int{0, 0}),
			map[string][]byte{"0": f32(6)}, "overlapping views are refused"},
		"offset-overflow": {tensorPickle("w", "FloatStorage", 6, 1<<31-1, []int{2}, []int{6}),
			map[string][]byte{"0": f32(6)}, "starts at element 2147483647"},
		"no-entry": {tensorPickle("w", "FloatStorage", 6, 0, []int{2, 3}, []int{3, 1}), nil, "no zip entry"},
		"bad-storage-type": {tensorPickle("w", "LongStorage", 6, 0, []int{2, 3}, []int{3, 1}),
			map[string][]byte{"0": f32(6)}, "torch.LongStorage"},
	}
	for name, c := range cases {
		ts, _, err := Load(torchZip(t, c.pkl, c.storages))
		if c.want == "" {
			if err != nil || len(ts) != 1 || ts[0].Name != "w" || len(ts[0].Data) != 6 {
				t.Errorf("%s: %v %v", name, ts, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
}

// TestStridedStorage: gru_bi2_strided.pt holds gru_bi2's tensors as views into one shared
// storage, 2-D ones transposed (stride (1, rows)) after an offset, and lstm_bi1_params.pt
// holds lstm_bi1's as a plain dict of nn.Parameters (_rebuild_parameter); they read back
// equal to the state_dicts'.
func TestStridedStorage(t *testing.T) {
	sameTensors(t, "gru_bi2.pt", "gru_bi2_strided.pt")
	sameTensors(t, "lstm_bi1.pt", "lstm_bi1_params.pt")
}

// sameTensors fails unless the two fixture files hold the same tensors, bit for bit.
func sameTensors(t *testing.T, wantFile, gotFile string) {
	read := func(name string) []*Tensor {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		ts, _, err := Load(raw)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	want, got := read(wantFile), read(gotFile)
	if len(got) != len(want) {
		t.Fatalf("%d tensors, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].String() != want[i].String() {
			t.Fatalf("tensor %d is %v, want %v", i, got[i], want[i])
		}
		for j := range want[i].Data {
			if got[i].Data[j] != want[i].Data[j] {
				t.Fatalf("%s[%d] = %v, want %v", want[i].Name, j, got[i].Data[j], want[i].Data[j])
			}
		}
	}
}

// TestFileLimits: a file over MaxFileBytes, a compressed zip entry, a legacy pickle and a
// TorchScript archive are refused by name.
func TestFileLimits(t *testing.T) {
	if _, _, err := Load(make([]byte, MaxFileBytes+1)); err == nil || !strings.Contains(err.Error(), "MaxFileBytes") {
		t.Errorf("over the limit: %v", err)
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, _ := z.CreateHeader(&zip.FileHeader{Name: "archive/data.pkl", Method: zip.Deflate})
	w.Write(make([]byte, 1<<20)) // 1 MB of zeros in a few KB
	z.Close()
	if _, _, err := Load(b.Bytes()); err == nil || !strings.Contains(err.Error(), "compressed") {
		t.Errorf("compressed entry: %v", err)
	}
	if _, _, err := Load([]byte("\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.")); err == nil || !strings.Contains(err.Error(), "zip around it") {
		t.Errorf("legacy pickle: %v", err)
	}
	b.Reset()
	z = zip.NewWriter(&b)
	for _, name := range []string{"archive/data.pkl", "archive/constants.pkl"} {
		w, _ := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		w.Write([]byte("\x80\x02}."))
	}
	z.Close()
	if _, _, err := Load(b.Bytes()); err == nil || !strings.Contains(err.Error(), "TorchScript") {
		t.Errorf("TorchScript: %v", err)
	}
}

// TestSafetensorsHeaderLimit: a header over maxSafetensorsHeader is refused by name
// before it is parsed.
func TestSafetensorsHeaderLimit(t *testing.T) {
	n := maxSafetensorsHeader + 8
	data := binary.LittleEndian.AppendUint64(nil, uint64(n))
	data = append(data, '{')
	data = append(data, bytes.Repeat([]byte(" "), n-2)...)
	data = append(data, '}')
	if _, _, err := Load(data); err == nil || !strings.Contains(err.Error(), "maxSafetensorsHeader") {
		t.Errorf("a %d-byte header: %v", n, err)
	}
}

// TestHalfAndBFloat16: binary16 and bfloat16 decode exactly, subnormals and signs
// included, and a non-finite value in a tensor is refused by name.
func TestHalfAndBFloat16(t *testing.T) {
	for h, want := range map[uint16]float64{
		0x3c00: 1, 0xc000: -2, 0x0001: math.Ldexp(1, -24), 0x03ff: 1023 * math.Ldexp(1, -24),
		0x0400: math.Ldexp(1, -14), 0x7bff: 65504, 0x3555: 0.333251953125, 0x0000: 0,
	} {
		if got := decode(F16, []byte{byte(h), byte(h >> 8)}); got != want {
			t.Errorf("F16 %#04x = %v, want %v", h, got, want)
		}
	}
	if v := decode(F16, []byte{0x00, 0x80}); v != 0 || !math.Signbit(v) {
		t.Errorf("F16 0x8000 = %v, want −0", v)
	}
	if !math.IsInf(decode(F16, []byte{0x00, 0x7c}), 1) || !math.IsInf(decode(F16, []byte{0x00, 0xfc}), -1) || !math.IsNaN(decode(F16, []byte{0x00, 0x7e})) {
		t.Error("F16 infinities or NaN decode wrongly")
	}
	for b, want := range map[uint16]float64{0x3f80: 1, 0xc000: -2, 0x3eab: 0.333984375, 0x0001: math.Ldexp(1, -133)} {
		if got := decode(BF16, []byte{byte(b), byte(b >> 8)}); got != want {
			t.Errorf("BF16 %#04x = %v, want %v", b, got, want)
		}
	}
	data := []byte{0, 0, 0, 0, 0, 0, 0xc0, 0x7f} // F32 0, NaN
	_, _, err := Load(torchZip(t, tensorPickle("rnn.w", "FloatStorage", 2, 0, []int{2}, []int{1}), map[string][]byte{"0": data}))
	if err == nil || !strings.Contains(err.Error(), `"rnn.w" holds NaN`) {
		t.Errorf("a NaN: %v", err)
	}
}

// TestByteOrder: a torch.save zip that records big-endian storages is refused.
func TestByteOrder(t *testing.T) {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for name, data := range map[string]string{"archive/data.pkl": "\x80\x02}.", "archive/byteorder": "big"} {
		w, _ := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		w.Write([]byte(data))
	}
	z.Close()
	if _, _, err := Load(b.Bytes()); err == nil || !strings.Contains(err.Error(), "little-endian") {
		t.Errorf("big-endian: %v", err)
	}
}

// TestRebuildOffsetOverflow: an offset near the largest int (as an 8-byte LONG1 could
// give) is refused before any index arithmetic could wrap around.
func TestRebuildOffsetOverflow(t *testing.T) {
	l := &torchLoader{budget: MaxElements}
	s := &storage{key: "0", dtype: F32, numel: 6, data: make([]byte, 24)}
	size, stride := types.Tuple{2}, types.Tuple{100}
	_, err := (&tensorRebuilder{l}).Call(s, math.MaxInt-10, &size, &stride, false, nil)
	if err == nil || !strings.Contains(err.Error(), "starts at element") {
		t.Errorf("offset MaxInt−10: %v", err)
	}
}
