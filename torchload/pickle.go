package torchload

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// allowedGlobals are the only globals a state_dict's pickle may name, each with why it is
// needed. Nothing else resolves: not os.system, not builtins.eval, not even a harmless
// class, since a state_dict never needs one.
var allowedGlobals = map[string]string{
	"collections.OrderedDict":         "the state_dict itself, and each tensor's (empty) backward hooks",
	"torch._utils._rebuild_tensor_v2": "rebuilds each tensor from its storage, offset, size and stride",
	"torch._utils._rebuild_parameter": "wraps a tensor as an nn.Parameter (a dict of model.named_parameters())",
	"torch.FloatStorage":              "the element type F32 of a storage",
	"torch.DoubleStorage":             "the element type F64 of a storage",
	"torch.HalfStorage":               "the element type F16 of a storage",
	"torch.BFloat16Storage":           "the element type BF16 of a storage",
}

// storageTypes maps the storage globals to their element types.
var storageTypes = map[string]Dtype{
	"torch.FloatStorage": F32, "torch.DoubleStorage": F64, "torch.HalfStorage": F16, "torch.BFloat16Storage": BF16,
}

// RefusedGlobalError is the error of a pickle that names a global outside the allowlist.
// Nothing named by the pickle was resolved or called.
type RefusedGlobalError struct {
	Global string // "module.name", e.g. "os.system"
}

func (e *RefusedGlobalError) Error() string {
	allowed := make([]string, 0, len(allowedGlobals))
	for g := range allowedGlobals {
		allowed = append(allowed, g)
	}
	sort.Strings(allowed)
	return fmt.Sprintf("the pickle names the global %s, which is refused: a state_dict needs only %s; nothing was run", e.Global, strings.Join(allowed, ", "))
}

// refusedOpcodes are pickle opcodes a torch.save state_dict never uses, refused by the
// scan: they build instances of classes (INST, OBJ, NEWOBJ, NEWOBJ_EX), read the
// extension registry (EXT1, EXT2, EXT4) or out-of-band buffers, or take a text
// persistent id (torch uses BINPERSID).
var refusedOpcodes = map[byte]string{
	'i': "INST", 'o': "OBJ", 0x81: "NEWOBJ", 0x92: "NEWOBJ_EX",
	0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 'P': "PERSID",
	0x97: "NEXT_BUFFER", 0x98: "READONLY_BUFFER",
}

// objectOpcodes build a container or call something: each is counted against
// maxPickleObjects.
const objectOpcodes = "(tl]}d)\x85\x86\x87\x8f\x91RbQ\x93c"

// scanPickle walks every opcode of p without building anything and returns the length of
// the pickle up to its STOP. It refuses a global outside allowedGlobals (GLOBAL by its
// text, STACK_GLOBAL by the two strings pushed just before it; a STACK_GLOBAL whose names
// are computed any other way is refused), the refusedOpcodes, any length argument longer
// than the bytes left (so gopickle never allocates what the file cannot back), integers
// longer than 8 bytes (big.Int parsing is quadratic) and more than maxPickleObjects
// objects.
func scanPickle(p []byte) (int, error) {
	i, objects := 0, 0
	memo := map[int]*string{}
	var top [2]*string // the two topmost stack values when both are known strings
	push := func(s *string) { top[0], top[1] = top[1], s }
	need := func(n uint64) error {
		if n > uint64(len(p)-i) {
			return fmt.Errorf("pickle opcode at byte %d needs %d bytes, %d are left", i, n, len(p)-i)
		}
		return nil
	}
	line := func() (string, error) {
		j := bytes.IndexByte(p[i:], '\n')
		if j < 0 {
			return "", fmt.Errorf("pickle opcode at byte %d: unterminated line", i)
		}
		s := string(p[i : i+j])
		i += j + 1
		return s, nil
	}
	uintLE := func(n int) (uint64, error) {
		if err := need(uint64(n)); err != nil {
			return 0, err
		}
		var b [8]byte
		copy(b[:], p[i:i+n])
		i += n
		return binary.LittleEndian.Uint64(b[:]), nil
	}
	checkGlobal := func(module, name string) error {
		g := module + "." + name
		if _, ok := allowedGlobals[g]; !ok {
			return &RefusedGlobalError{Global: g}
		}
		return nil
	}
	for i < len(p) {
		op := p[i]
		i++
		if name, bad := refusedOpcodes[op]; bad {
			return 0, fmt.Errorf("the pickle uses opcode %s (byte %d), which a state_dict never needs", name, i-1)
		}
		if strings.IndexByte(objectOpcodes, op) >= 0 {
			if objects++; objects > maxPickleObjects {
				return 0, fmt.Errorf("the pickle builds more than %d objects (maxPickleObjects)", maxPickleObjects)
			}
		}
		neutral := false // the op leaves the stack as it was (memo ops, PROTO, FRAME)
		var err error
		switch op {
		case '.': // STOP
			return i, nil
		case 0x80: // PROTO
			_, err = uintLE(1)
			neutral = true
		case 0x95: // FRAME: its 8-byte length; the framed opcodes follow inline
			var n uint64
			if n, err = uintLE(8); err == nil {
				err = need(n)
			}
			neutral = true
		case 'K', 'C', 'U', 0x8c, 0x8a: // BININT1, SHORT_BINBYTES, SHORT_BINSTRING, SHORT_BINUNICODE, LONG1
			var n uint64
			if n, err = uintLE(1); err != nil || op == 'K' {
				break
			}
			if op == 0x8a && n > 8 {
				err = fmt.Errorf("the pickle holds a %d-byte integer (byte %d); a state_dict's are at most 8", n, i-2)
				break
			}
			if err = need(n); err == nil {
				if op == 0x8c || op == 'U' {
					s := string(p[i : i+int(n)])
					i += int(n)
					push(&s)
					continue
				}
				i += int(n)
			}
		case 'M': // BININT2
			_, err = uintLE(2)
		case 'J': // BININT
			_, err = uintLE(4)
		case 'G': // BINFLOAT
			_, err = uintLE(8)
		case 'X', 'T', 'B', 0x8b: // BINUNICODE, BINSTRING, BINBYTES, LONG4
			var n uint64
			if n, err = uintLE(4); err != nil {
				break
			}
			if op == 0x8b && n > 8 {
				err = fmt.Errorf("the pickle holds a %d-byte integer (byte %d); a state_dict's are at most 8", n, i-5)
				break
			}
			if err = need(n); err == nil {
				if op == 'X' || op == 'T' {
					s := string(p[i : i+int(n)])
					i += int(n)
					push(&s)
					continue
				}
				i += int(n)
			}
		case 0x8d, 0x8e, 0x96: // BINUNICODE8, BINBYTES8, BYTEARRAY8
			var n uint64
			if n, err = uintLE(8); err == nil {
				if err = need(n); err == nil {
					if op == 0x8d {
						s := string(p[i : i+int(n)])
						i += int(n)
						push(&s)
						continue
					}
					i += int(n)
				}
			}
		case 'q': // BINPUT
			var k uint64
			k, err = uintLE(1)
			memo[int(k)] = top[1]
			neutral = true
		case 'r': // LONG_BINPUT
			var k uint64
			k, err = uintLE(4)
			memo[int(k)] = top[1]
			neutral = true
		case 0x94: // MEMOIZE: gopickle's index is the memo's size
			memo[len(memo)] = top[1]
			neutral = true
		case 'h', 'j': // BINGET, LONG_BINGET
			n := 1
			if op == 'j' {
				n = 4
			}
			var k uint64
			if k, err = uintLE(n); err == nil {
				push(memo[int(k)])
				continue
			}
		case 'I', 'L', 'F', 'S', 'V', 'p', 'g': // INT, LONG, FLOAT, STRING, UNICODE, PUT, GET
			var s string
			if s, err = line(); err != nil {
				break
			}
			if (op == 'I' || op == 'L') && len(s) > 32 {
				err = fmt.Errorf("the pickle holds a %d-digit integer; a state_dict's are short", len(s))
			}
			if op == 'p' || op == 'g' {
				err = errors.New("the pickle uses the text memo opcodes PUT/GET (protocol 0), which torch.save never writes")
			}
		case 'c': // GLOBAL
			var module, name string
			if module, err = line(); err == nil {
				if name, err = line(); err == nil {
					err = checkGlobal(module, name)
				}
			}
		case 0x93: // STACK_GLOBAL
			if top[0] == nil || top[1] == nil {
				err = errors.New("the pickle names a global (STACK_GLOBAL) from computed strings; refused")
				break
			}
			err = checkGlobal(*top[0], *top[1])
		case '(', '0', '1', '2', 'N', 0x88, 0x89, ')', 't', 0x85, 0x86, 0x87, ']', 'a', 'e', 'l',
			'}', 'd', 's', 'u', 0x8f, 0x90, 0x91, 'R', 'b', 'Q':
			// no argument
		default:
			err = fmt.Errorf("the pickle has an unknown opcode 0x%02x at byte %d", op, i-1)
		}
		if err != nil {
			return 0, err
		}
		if !neutral {
			top = [2]*string{}
		}
	}
	return 0, errors.New("the pickle ends without STOP")
}

// storage is one storage of a torch.save zip, read whole.
type storage struct {
	key   string
	dtype Dtype
	numel int
	data  []byte
}

// tensorRebuilder and parameterRebuilder are what the allowed globals resolve to.
type (
	tensorRebuilder    struct{ l *torchLoader }
	parameterRebuilder struct{}
	storageType        struct{ dtype Dtype }
)

// torchLoader is one torch.save file being read.
type torchLoader struct {
	root     string               // the zip's top directory ("archive")
	entries  map[string]*zip.File // by name
	storages map[string]*storage  // by key, as read
	read     int                  // bytes read from the zip so far
	budget   int                  // elements left of MaxElements
}

// loadTorch reads the state_dict of a torch.save zip.
func loadTorch(data []byte) ([]*Tensor, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // names are looked up, never written
		return nil, fmt.Errorf("not a readable zip: %w", err)
	}
	if len(z.File) > maxZipEntries {
		return nil, fmt.Errorf("the zip has %d entries, over %d (maxZipEntries)", len(z.File), maxZipEntries)
	}
	l := &torchLoader{entries: map[string]*zip.File{}, storages: map[string]*storage{}, budget: MaxElements}
	var pkls []string
	for _, f := range z.File {
		l.entries[f.Name] = f
		switch path.Base(f.Name) {
		case "data.pkl":
			pkls = append(pkls, f.Name)
		case "constants.pkl":
			return nil, errors.New("this is a TorchScript archive (torch.jit.save); save model.state_dict() with torch.save instead")
		}
	}
	if len(pkls) != 1 || strings.Count(pkls[0], "/") != 1 {
		return nil, fmt.Errorf("a torch.save zip has one <name>/data.pkl; this one has %d (%s)", len(pkls), strings.Join(pkls, ", "))
	}
	l.root = path.Dir(pkls[0])
	if _, ok := l.entries[l.root+"/byteorder"]; ok { // PyTorch ≥ 2.1 records it
		order, err := l.entry(l.root+"/byteorder", 16, "16 bytes")
		if err != nil {
			return nil, err
		}
		if string(order) != "little" {
			return nil, fmt.Errorf("the storages are %q-endian; Unroll reads little-endian ones", order)
		}
	}
	p, err := l.entry(pkls[0], MaxPickleBytes, "MaxPickleBytes")
	if err != nil {
		return nil, err
	}
	n, err := scanPickle(p)
	if err != nil {
		return nil, err
	}
	v, err := l.unpickle(p[:n])
	if err != nil {
		return nil, err
	}
	return l.stateDict(v)
}

// entry reads a stored (uncompressed) zip entry of at most limit bytes. torch.save stores
// every entry uncompressed; refusing compression means no entry can hold more than the
// file, so the declared size bounds what is allocated.
func (l *torchLoader) entry(name string, limit int, limitName string) ([]byte, error) {
	f := l.entries[name]
	if f == nil {
		return nil, fmt.Errorf("the zip has no entry %s", name)
	}
	if f.Method != zip.Store {
		return nil, fmt.Errorf("zip entry %s is compressed (method %d); torch.save stores entries uncompressed", name, f.Method)
	}
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("zip entry %s is %d bytes, over %d (%s)", name, f.UncompressedSize64, limit, limitName)
	}
	size := int(f.UncompressedSize64)
	if l.read += size; l.read > MaxFileBytes {
		return nil, fmt.Errorf("the zip's entries add up to more than %d bytes (MaxFileBytes)", MaxFileBytes)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("zip entry %s: %w", name, err)
	}
	defer rc.Close()
	buf := make([]byte, size)
	if _, err := io.ReadFull(rc, buf); err != nil {
		return nil, fmt.Errorf("zip entry %s: %w", name, err)
	}
	var extra [1]byte
	if k, err := rc.Read(extra[:]); k != 0 || (err != nil && err != io.EOF) { // EOF checks the CRC
		if err == nil {
			err = errors.New("longer than declared")
		}
		return nil, fmt.Errorf("zip entry %s: %w", name, err)
	}
	return buf, nil
}

// unpickle runs gopickle on a scanned pickle with the allowlist as its FindClass hook.
// gopickle can panic on malformed input (an odd number of dict items, an unhashable
// key); that is an error here.
func (l *torchLoader) unpickle(p []byte) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("malformed pickle: %v", r)
		}
	}()
	u := pickle.NewUnpickler(bytes.NewReader(p))
	u.FindClass = l.findClass
	u.PersistentLoad = l.persistentLoad
	v, err = u.Load()
	if err != nil {
		return nil, fmt.Errorf("pickle: %w", err)
	}
	return v, nil
}

// findClass is gopickle's hook: the allowlist again, after the scan. gopickle v0.2.0
// resolves three names itself without calling it: collections.OrderedDict (allowed),
// __builtin__.object and copy_reg._reconstructor (inert Go values, but not a state_dict's:
// the scan refuses them before gopickle runs).
func (l *torchLoader) findClass(module, name string) (any, error) {
	g := module + "." + name
	if d, ok := storageTypes[g]; ok {
		return &storageType{d}, nil
	}
	switch g {
	case "torch._utils._rebuild_tensor_v2":
		return &tensorRebuilder{l}, nil
	case "torch._utils._rebuild_parameter":
		return &parameterRebuilder{}, nil
	case "collections.OrderedDict":
		return &types.OrderedDictClass{}, nil
	}
	return nil, &RefusedGlobalError{Global: g}
}

// persistentLoad resolves ('storage', type, key, location, numel) to the storage's bytes,
// checking numel against the zip entry's size before reading.
func (l *torchLoader) persistentLoad(pid any) (any, error) {
	t, ok := pid.(*types.Tuple)
	if !ok || t.Len() != 5 {
		return nil, fmt.Errorf("a persistent id must be ('storage', type, key, location, numel), got %T", pid)
	}
	kind, _ := t.Get(0).(string)
	st, okType := t.Get(1).(*storageType)
	key, okKey := t.Get(2).(string)
	numel, okNumel := t.Get(4).(int)
	if kind != "storage" || !okType || !okKey || !okNumel || numel < 0 {
		return nil, errors.New("a persistent id must be ('storage', type, key, location, numel)")
	}
	if s, ok := l.storages[key]; ok {
		if s.dtype != st.dtype || s.numel != numel {
			return nil, fmt.Errorf("storage %s is declared twice with different types or sizes", key)
		}
		return s, nil
	}
	name := l.root + "/data/" + key
	f := l.entries[name]
	if f == nil {
		return nil, fmt.Errorf("storage %s has no zip entry %s", key, name)
	}
	if numel > MaxFileBytes || uint64(numel*st.dtype.size()) != f.UncompressedSize64 {
		return nil, fmt.Errorf("storage %s declares %d %s elements, its zip entry has %d bytes", key, numel, st.dtype, f.UncompressedSize64)
	}
	data, err := l.entry(name, MaxFileBytes, "MaxFileBytes")
	if err != nil {
		return nil, err
	}
	s := &storage{key: key, dtype: st.dtype, numel: numel, data: data}
	l.storages[key] = s
	return s, nil
}

// Call is torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
// requires_grad, backward_hooks[, metadata]): it copies the view into a new Tensor,
// in row-major order whatever the strides.
func (r *tensorRebuilder) Call(args ...any) (any, error) {
	if len(args) != 6 && len(args) != 7 {
		return nil, fmt.Errorf("_rebuild_tensor_v2 takes 6 or 7 arguments, got %d", len(args))
	}
	s, ok := args[0].(*storage)
	offset, okOff := args[1].(int)
	size, okSize := ints(args[2])
	stride, okStride := ints(args[3])
	if !ok || !okOff || !okSize || !okStride || len(size) != len(stride) || offset < 0 {
		return nil, errors.New("_rebuild_tensor_v2 needs (storage, offset, size, stride, …) with as many strides as sizes")
	}
	k, err := elements("", size, r.l.budget)
	if err != nil {
		return nil, err
	}
	if k > s.numel { // only overlapping strides (0, or expand()) make a view larger than its storage
		return nil, fmt.Errorf("a tensor view of size %v has more elements than storage %s (%d); overlapping views are refused", size, s.key, s.numel)
	}
	r.l.budget -= k
	t := &Tensor{Dtype: s.dtype, Shape: size, Data: make([]float64, k)}
	if k == 0 {
		return t, nil
	}
	if offset >= s.numel { // and so every sum below stays far from overflowing
		return nil, fmt.Errorf("a tensor view starts at element %d of storage %s of %d elements", offset, s.key, s.numel)
	}
	last := offset // the largest element index the view reads
	for d := range size {
		if stride[d] < 0 || stride[d] > s.numel {
			return nil, fmt.Errorf("a tensor view has stride %v outside storage %s of %d elements", stride, s.key, s.numel)
		}
		last += (size[d] - 1) * stride[d]
	}
	if last >= s.numel {
		return nil, fmt.Errorf("a tensor view (offset %d, size %v, stride %v) reads past storage %s of %d elements", offset, size, stride, s.key, s.numel)
	}
	idx := make([]int, len(size))
	sz := s.dtype.size()
	for i := range t.Data {
		at := offset
		for d, j := range idx {
			at += j * stride[d]
		}
		t.Data[i] = decode(s.dtype, s.data[at*sz:])
		for d := len(idx) - 1; d >= 0; d-- { // next index, row-major
			if idx[d]++; idx[d] < size[d] {
				break
			}
			idx[d] = 0
		}
	}
	return t, nil
}

// Call is torch._utils._rebuild_parameter(data, requires_grad, backward_hooks): the
// tensor itself.
func (parameterRebuilder) Call(args ...any) (any, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("_rebuild_parameter takes 3 arguments, got %d", len(args))
	}
	t, ok := args[0].(*Tensor)
	if !ok {
		return nil, fmt.Errorf("_rebuild_parameter of a %T, not a tensor", args[0])
	}
	return t, nil
}

// ints reads a tuple of non-negative ints.
func ints(v any) ([]int, bool) {
	t, ok := v.(*types.Tuple)
	if !ok || t.Len() > MaxRank {
		return nil, false
	}
	out := make([]int, t.Len())
	for i := range out {
		n, ok := t.Get(i).(int)
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// stateDict turns the unpickled value into named tensors: it must be a dict or
// OrderedDict from names to tensors.
func (l *torchLoader) stateDict(v any) ([]*Tensor, error) {
	type kv struct {
		k, v any
	}
	var items []kv
	switch d := v.(type) {
	case *types.OrderedDict:
		for e := d.List.Front(); e != nil; e = e.Next() {
			entry := e.Value.(*types.OrderedDictEntry)
			items = append(items, kv{entry.Key, entry.Value})
		}
	case *types.Dict:
		for _, e := range *d {
			items = append(items, kv{e.Key, e.Value})
		}
	default:
		return nil, fmt.Errorf("the file holds a %s, not a state_dict (save model.state_dict(), not the model)", pyType(v))
	}
	if len(items) > MaxTensors {
		return nil, fmt.Errorf("the state_dict has %d entries, over MaxTensors %d", len(items), MaxTensors)
	}
	out := make([]*Tensor, 0, len(items))
	seen := map[string]bool{}
	for _, it := range items {
		name, ok := it.k.(string)
		if !ok {
			return nil, fmt.Errorf("the state_dict has a key that is a %s, not a name", pyType(it.k))
		}
		t, ok := it.v.(*Tensor)
		if !ok {
			return nil, fmt.Errorf("the state_dict's %q is a %s, not a tensor", name, pyType(it.v))
		}
		if seen[name] {
			return nil, fmt.Errorf("the state_dict names %q twice", name)
		}
		seen[name] = true
		named := *t // one tensor may be stored under two names (tied weights)
		named.Name = name
		if err := checkFinite(&named); err != nil {
			return nil, err
		}
		out = append(out, &named)
	}
	return out, nil
}

// pyType names an unpickled value's kind for a message.
func pyType(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case string:
		return "string"
	case int:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case *types.Tuple:
		return "tuple"
	case *types.List:
		return "list"
	case *types.Dict, *types.OrderedDict:
		return "dict"
	case *Tensor:
		return "tensor"
	}
	return "value of another kind"
}
