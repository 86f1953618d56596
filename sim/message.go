package sim

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
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
	PongMessage     MessageType = "pong"     // the answer to the page's heartbeat (PingCommand)
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
	// Facts are the step's labelled values for the facts region (Frame.Facts): the
	// current step's, in snapshots and frames.
	Facts []Fact `json:"facts,omitempty"`
	// Ack is the ID of the last command the run carried out (Command.ID), in every
	// message the run makes once a page has numbered a command: the page sends again,
	// after a reconnect, only the commands numbered after it. 0 (no key) until then.
	Ack uint64 `json:"ack,omitempty"`

	// Playing is sent with every snapshot and frame; Params, Speed, Static, Trained and
	// Session with snapshots only.
	Playing bool           `json:"playing"`
	Params  Values         `json:"params,omitempty"`
	Speed   float64        `json:"speed,omitempty"`
	Static  map[string]any `json:"static,omitempty"`
	Trained int            `json:"trained,omitempty"` // optimisation steps since the model was built (Run.Trained)
	Session string         `json:"session,omitempty"` // the run's name for a reconnecting page (Run.SetSession)
	// StaticFacts are the static frame's facts and Passes the model's passes
	// (Timeline), with snapshots only.
	StaticFacts []Fact `json:"static_facts,omitempty"`
	Passes      []Pass `json:"passes,omitempty"`
	// Shapes is the shape of each of step 1's arrays, in a snapshot at step 0 only (a
	// later snapshot carries the arrays themselves): a page draws its empty grids at
	// the size they will have before the first step (static/js/store.js).
	Shapes map[string][]int `json:"shapes,omitempty"`
	// Sent is when the message was made (Run.SetClock), in any message type; zero (and
	// no key) for a run without a clock, so that the same commands still give the same
	// bytes.
	Sent UnixMillis `json:"sent,omitempty"`
}

// UnixMillis is a moment as milliseconds since the Unix epoch — the unit of a
// browser's Date.now() — with a microsecond fraction: t = ms + µs/1000. On the wire it
// is a JSON number with exactly three decimals, 1764088021123.456 (a float64 holds the
// microseconds of any date before the year 2100 exactly).
type UnixMillis float64

// MillisOf is t as UnixMillis, to the microsecond.
func MillisOf(t time.Time) UnixMillis { return UnixMillis(float64(t.UnixMicro()) / 1000) }

// Time is m as a time.Time, to the microsecond.
func (m UnixMillis) Time() time.Time { return time.UnixMicro(int64(math.Round(float64(m) * 1000))) }

// MarshalJSON writes m with three decimals (microseconds), never in exponent form.
func (m UnixMillis) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(m), 'f', 3, 64), nil
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
// arrays. Reusing dst across calls saves the body's allocation; the header is
// encoding/json's.
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

// wireHeader is Header as it travels. Its own fields hide Header's keys that only some
// message types carry (encoding/json prefers the shallower field): a nil pointer or
// a zero value leaves the key out. The keys come in Header's order, then these.
type wireHeader struct {
	Header
	Playing     *bool           `json:"playing,omitempty"`      // snapshots and frames
	Params      *Values         `json:"params,omitempty"`       // snapshots, "{}" when empty
	Speed       *float64        `json:"speed,omitempty"`        // snapshots
	Static      *map[string]any `json:"static,omitempty"`       // snapshots, "{}" when empty
	Trained     int             `json:"trained,omitempty"`      // snapshots, when trained
	Session     string          `json:"session,omitempty"`      // snapshots, when named
	StaticFacts []Fact          `json:"static_facts,omitempty"` // snapshots
	Passes      []Pass          `json:"passes,omitempty"`       // snapshots
	Sent        UnixMillis      `json:"sent,omitempty"`         // every type, when the run has a clock: the last key
}

// appendHeader appends h's JSON with encoding/json: the keys in a fixed order, maps
// sorted, so the same message is always the same bytes. (A hand-written encoder was
// measured at 0.3 µs a GRU frame header against 1.2–2 µs for this, about 2 % of a core
// for 1,000 students stepping at 20 a second: not worth keeping a second JSON encoder.)
// A header that cannot be encoded (a NaN in Meta) is a bug in the lesson: it panics.
func appendHeader(b []byte, h Header, arrays []Array) []byte {
	h.V, h.Arrays = Version, make([]ArraySpec, len(arrays))
	for i, a := range arrays {
		h.Arrays[i] = ArraySpec{Name: a.Name, Shape: a.Shape}
		if a.Shape == nil {
			h.Arrays[i].Shape = []int{}
		}
	}
	w := wireHeader{Header: h, Sent: h.Sent}
	if h.Type == SnapshotMessage || h.Type == FrameMessage {
		w.Playing = &h.Playing
	}
	if h.Type == SnapshotMessage {
		params, static := h.Params, h.Static
		if params == nil {
			params = Values{}
		}
		if static == nil {
			static = map[string]any{}
		}
		w.Params, w.Speed, w.Static = &params, &h.Speed, &static
		w.Trained, w.Session = h.Trained, h.Session
		w.StaticFacts, w.Passes = h.StaticFacts, h.Passes
	}
	out, err := json.Marshal(w)
	if err != nil {
		panic(fmt.Sprintf("sim: message header: %v", err))
	}
	return append(b, out...)
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

// pong is the one pong message: a header with nothing in it, encoded once.
var pong = EncodeMessage(nil, Header{Type: PongMessage}, nil)

// Pong is the encoded pong message, the same bytes for every connection (the caller
// must not change them): {"v":1,"type":"pong","seq":0,"step":0,"steps":0,"arrays":[]}.
// Its seq is 0: a pong is no message of the run, and the page does not count it.
func Pong() []byte { return pong }
