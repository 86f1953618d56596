package sim

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Version is the protocol version every message carries in "v" (docs/protocol.md).
const Version = 1

// MessageType is the "type" of a server message.
type MessageType string

// The server message types.
const (
	SnapshotMessage MessageType = "snapshot" // the whole state, for a redraw from scratch
	FrameMessage    MessageType = "frame"    // one step's arrays
	TrainMessage    MessageType = "train"    // training progress
	ErrorMessage    MessageType = "error"    // a command was refused
)

// Header is the JSON header of a server message. EncodeMessage writes it (the
// "arrays" list comes from the arrays it is given); DecodeMessage reads it back.
type Header struct {
	V      int            `json:"v"`
	Type   MessageType    `json:"type"`
	Seq    uint64         `json:"seq"`
	Step   int            `json:"step"`
	Steps  int            `json:"steps"`
	Arrays []ArraySpec    `json:"arrays"`
	Meta   map[string]any `json:"meta,omitempty"`

	// Playing is sent with every snapshot and frame; Params, Speed, Static, Trained and
	// Session with snapshots only.
	Playing bool           `json:"playing"`
	Params  Values         `json:"params,omitempty"`
	Speed   float64        `json:"speed,omitempty"`
	Static  map[string]any `json:"static,omitempty"`
	Trained int            `json:"trained,omitempty"` // optimisation steps since the model was built (Run.Trained)
	Session string         `json:"session,omitempty"` // the run's name for a reconnecting page (Run.SetSession)
}

// ArraySpec names one float32 array of a message body and its row-major shape.
type ArraySpec struct {
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
}

// Message is a decoded server message: its header and its arrays (as float64).
type Message struct {
	Header Header
	Arrays []Array
}

// EncodeMessage appends the binary message of docs/protocol.md to dst[:0] and returns
// it: a uint32 little-endian header length n, the n-byte JSON header, zero padding to
// a multiple of 4, then every array as float32 little-endian, in order. h.V and
// h.Arrays are ignored: the version is Version and the array list is built from
// arrays. Reusing dst across calls makes the hot path allocation-free apart from Meta.
func EncodeMessage(dst []byte, h Header, arrays []Array) []byte {
	dst = append(dst[:0], 0, 0, 0, 0)
	dst = appendHeader(dst, h, arrays)
	n := len(dst) - 4
	binary.LittleEndian.PutUint32(dst[:4], uint32(n))
	for len(dst)%4 != 0 {
		dst = append(dst, 0)
	}
	size := 0
	for _, a := range arrays {
		size += 4 * len(a.Data)
	}
	off := len(dst)
	dst = slices.Grow(dst, size)[:off+size]
	for _, a := range arrays {
		body := dst[off : off+4*len(a.Data)]
		for i, f := range a.Data {
			binary.LittleEndian.PutUint32(body[4*i:], math.Float32bits(float32(f)))
		}
		off += len(body)
	}
	return dst
}

// appendHeader writes the JSON header by hand, in a fixed key order, so that the
// same message is always the same bytes and a frame costs no reflection.
func appendHeader(b []byte, h Header, arrays []Array) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, Version, 10)
	b = append(b, `,"type":`...)
	b = appendString(b, string(h.Type))
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, h.Seq, 10)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(h.Step), 10)
	b = append(b, `,"steps":`...)
	b = strconv.AppendInt(b, int64(h.Steps), 10)
	b = append(b, `,"arrays":[`...)
	for i, a := range arrays {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, a.Name)
		b = append(b, `,"shape":[`...)
		for j, d := range a.Shape {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(d), 10)
		}
		b = append(b, "]}"...)
	}
	b = append(b, ']')
	if len(h.Meta) > 0 {
		b = append(b, `,"meta":`...)
		b = appendJSON(b, h.Meta)
	}
	if h.Type == SnapshotMessage || h.Type == FrameMessage {
		b = append(b, `,"playing":`...)
		b = strconv.AppendBool(b, h.Playing)
	}
	if h.Type == SnapshotMessage {
		b = append(b, `,"params":`...)
		b = appendJSON(b, h.Params)
		b = append(b, `,"speed":`...)
		b = strconv.AppendFloat(b, h.Speed, 'g', -1, 64)
		b = append(b, `,"static":`...)
		b = appendJSON(b, h.Static)
		if h.Trained > 0 {
			b = append(b, `,"trained":`...)
			b = strconv.AppendInt(b, int64(h.Trained), 10)
		}
		if h.Session != "" {
			b = append(b, `,"session":`...)
			b = appendString(b, h.Session)
		}
	}
	return append(b, '}')
}

// appendJSON appends v as JSON with encoding/json (maps in sorted key order); a value
// that cannot be encoded (NaN, a channel) is a bug in the lesson, so it panics.
func appendJSON(b []byte, v any) []byte {
	if m, ok := v.(map[string]any); ok && m == nil {
		return append(b, "{}"...)
	}
	if m, ok := v.(Values); ok && m == nil {
		return append(b, "{}"...)
	}
	if m, ok := v.(map[string]any); ok && len(m) <= maxFastMeta {
		if out, ok := appendFastMap(b, m); ok {
			return out
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("sim: message header: %v", err))
	}
	return append(b, out...)
}

// maxFastMeta bounds the meta maps appendFastMap writes: a frame's meta has a few keys.
const maxFastMeta = 8

// appendFastMap writes a small map of strings, numbers and booleans exactly as
// encoding/json would (sorted keys, the same number format), without reflection; it
// reports false, leaving b unchanged, for anything else.
func appendFastMap(b []byte, m map[string]any) ([]byte, bool) {
	var keys [maxFastMeta]string
	n := 0
	for k, v := range m {
		switch v := v.(type) {
		case string, bool, int:
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return b, false
			}
		default:
			return b, false
		}
		keys[n] = k
		n++
	}
	sorted := keys[:n]
	slices.Sort(sorted)
	b = append(b, '{')
	for i, k := range sorted {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		switch v := m[k].(type) {
		case string:
			b = appendString(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case float64:
			b = appendFloat(b, v)
		}
	}
	return append(b, '}'), true
}

// appendFloat formats f as encoding/json does: shortest form, exponent notation
// below 1e-6 and from 1e21, with a one-digit exponent written without its zero.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString appends s as a JSON string exactly as encoding/json does: invalid
// UTF-8 becomes U+FFFD, and <, >, &, U+2028 and U+2029 are escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20 || c == '<' || c == '>' || c == '&': // as encoding/json, safe inside HTML
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029': // valid JSON, but not valid JavaScript source
			b = append(b, `\u202`...)
			b = append(b, hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// DecodeMessage parses a binary server message, checking its layout: the header
// length, the zero padding, and that the body holds exactly the arrays the header
// lists. It is what the tests (and any Go client) use to read what the browser reads.
func DecodeMessage(b []byte) (Message, error) {
	if len(b) < 4 {
		return Message{}, errors.New("sim: message shorter than its length prefix")
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n > len(b)-4 {
		return Message{}, fmt.Errorf("sim: header length %d exceeds the message (%d bytes)", n, len(b))
	}
	var m Message
	if err := json.Unmarshal(b[4:4+n], &m.Header); err != nil {
		return Message{}, fmt.Errorf("sim: message header: %w", err)
	}
	if m.Header.V != Version {
		return Message{}, fmt.Errorf("sim: message version %d, want %d", m.Header.V, Version)
	}
	off := 4 + n
	for off%4 != 0 {
		if off >= len(b) || b[off] != 0 {
			return Message{}, errors.New("sim: header padding is not zero bytes")
		}
		off++
	}
	for _, spec := range m.Header.Arrays {
		size := 1
		for _, d := range spec.Shape {
			if d < 0 {
				return Message{}, fmt.Errorf("sim: array %q has a negative dimension", spec.Name)
			}
			size *= d
		}
		if len(b)-off < 4*size {
			return Message{}, fmt.Errorf("sim: array %q needs %d bytes, %d left", spec.Name, 4*size, len(b)-off)
		}
		data := make([]float64, size)
		for i := range data {
			data[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[off:])))
			off += 4
		}
		m.Arrays = append(m.Arrays, Array{Name: spec.Name, Shape: spec.Shape, Data: data})
	}
	if off != len(b) {
		return Message{}, fmt.Errorf("sim: %d bytes after the last array", len(b)-off)
	}
	return m, nil
}
