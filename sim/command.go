package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on commands from the browser (docs/protocol.md).
const (
	MaxCommandBytes = 16 << 10  // a command is small; a larger message closes the socket (1009)
	MinSpeed        = 0.01      // steps per second: one step every 100 s; slower is a pause (and 1 s/speed must fit a time.Duration)
	MaxSpeed        = 60        // steps per second: one per 60 Hz screen frame
	MaxTrainSteps   = 10000     // a few seconds of training for the lessons' small models
	MaxSeq          = 1<<53 - 1 // the largest integer a JavaScript number holds exactly
)

// CommandType is the "type" of a browser command.
type CommandType string

// The browser commands.
const (
	StepCommand   CommandType = "step"   // advance one time step
	BackCommand   CommandType = "back"   // go back one step
	SeekCommand   CommandType = "seek"   // jump to Command.Step
	PlayCommand   CommandType = "play"   // step on a timer at Command.Speed steps per second
	PauseCommand  CommandType = "pause"  // stop playing (or training)
	ResetCommand  CommandType = "reset"  // back to step 0
	SetCommand    CommandType = "set"    // change Command.Params and rebuild the model
	TrainCommand  CommandType = "train"  // train Command.Steps optimisation steps
	ResumeCommand CommandType = "resume" // after a reconnect: the page last drew Command.Seq
	PingCommand   CommandType = "ping"   // the page's heartbeat: answered at once with a pong message
)

// commandFields lists the field each command type requires besides "v" and "type".
var commandFields = map[CommandType]string{
	StepCommand: "", BackCommand: "", PauseCommand: "", ResetCommand: "", PingCommand: "",
	SeekCommand: "step", PlayCommand: "speed", SetCommand: "params", TrainCommand: "steps", ResumeCommand: "seq",
}

// commandList is the known types in the order error messages list them.
const commandList = "step, back, seek, play, pause, reset, set, train, resume, ping"

// Command is one decoded, validated browser command. Only the field its Type uses is
// set. Seek's upper bound depends on the model, so Run checks it.
type Command struct {
	Type   CommandType
	Step   int               // seek: 0 ≤ Step
	Speed  float64           // play: MinSpeed ≤ Speed ≤ MaxSpeed
	Params map[string]string // set: parameter name → value, checked by the lesson's Specs
	Steps  int               // train: 1 ≤ Steps ≤ MaxTrainSteps
	Seq    uint64            // resume: the last seq the page drew
	// ID numbers a command the page will send again after a reconnect unless the run
	// acknowledges it (Header.Ack): optional on every type, 1 ≤ ID ≤ MaxSeq; 0 when absent.
	ID uint64
}

// CommandError is a command the browser sent that cannot be carried out. Msg is a
// sentence for the student; Command is the command's type when it was readable.
type CommandError struct {
	Command string
	Msg     string
}

func (e *CommandError) Error() string { return "sim: " + e.Msg }

// Sentence is the message for the page: Msg starting with a capital and ending with a
// full stop.
func (e *CommandError) Sentence() string { return sentence(e.Msg) }

// sentence capitalises msg and ends it with a full stop.
func sentence(msg string) string {
	r, size := utf8.DecodeRuneInString(msg)
	if size == 0 {
		return msg
	}
	msg = string(unicode.ToUpper(r)) + msg[size:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// wireCommand is the JSON form; pointers tell a missing field from a zero one.
type wireCommand struct {
	V      *int                       `json:"v"`
	Type   *string                    `json:"type"`
	Step   *json.RawMessage           `json:"step"`
	Speed  *json.RawMessage           `json:"speed"`
	Params map[string]json.RawMessage `json:"params"`
	Steps  *json.RawMessage           `json:"steps"`
	Seq    *json.RawMessage           `json:"seq"`
	ID     *json.RawMessage           `json:"id"`
}

// DecodeCommand parses and validates one JSON command: version 1, a known type, the
// type's field present and in range, no other fields, nothing after the object.
// Every error is a *CommandError.
func DecodeCommand(b []byte) (Command, error) {
	if len(b) > MaxCommandBytes {
		return Command{}, &CommandError{Msg: fmt.Sprintf("the command is %d bytes long; the limit is %d", len(b), MaxCommandBytes)}
	}
	return parseCommand(b)
}

// parseCommand is DecodeCommand without the length limit: the limit is on what a client
// sends, and a command Go re-encodes may be longer (json.Marshal writes < as \u003c).
func parseCommand(b []byte) (Command, error) {
	bad := func(cmd, format string, args ...any) (Command, error) {
		return Command{}, &CommandError{Command: cmd, Msg: fmt.Sprintf(format, args...)}
	}
	var w wireCommand
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return bad("", "the command is not a valid JSON object: %s", describeDecodeError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("", "the command has data after its JSON object")
	}
	if w.Type == nil {
		return bad("", `the command has no "type"; use one of %s`, commandList)
	}
	name := *w.Type
	typ := CommandType(name)
	need, known := commandFields[typ]
	if !known {
		return bad("", "unknown command %q; the commands are %s", clip(name), commandList)
	}
	if w.V == nil || *w.V != Version {
		return bad(name, `the command must carry "v": %d (the protocol version); reload the page if it is out of date`, Version)
	}
	present := map[string]bool{"step": w.Step != nil, "speed": w.Speed != nil, "params": w.Params != nil, "steps": w.Steps != nil, "seq": w.Seq != nil}
	for _, f := range []string{"step", "speed", "params", "steps", "seq"} {
		if f != need && present[f] {
			if need == "" {
				return bad(name, "%s takes no fields, but got %q", name, f)
			}
			return bad(name, "%s takes %q, not %q", name, need, f)
		}
	}
	if need != "" && !present[need] {
		return bad(name, "%s needs a %q field", name, need)
	}
	c := Command{Type: typ}
	if w.ID != nil {
		n, err := strconv.ParseUint(number(*w.ID), 10, 64)
		if err != nil || n < 1 || n > MaxSeq {
			return bad(name, "id must be a whole number from 1 to %d, got %s", uint64(MaxSeq), clip(string(*w.ID)))
		}
		c.ID = n
	}
	switch typ {
	case SeekCommand:
		n, err := strconv.Atoi(number(*w.Step))
		if err != nil || n < 0 {
			return bad(name, "seek needs a step that is a whole number from 0 up, got %s", clip(string(*w.Step)))
		}
		c.Step = n
	case PlayCommand:
		s, err := strconv.ParseFloat(number(*w.Speed), 64)
		if err != nil || !(s >= MinSpeed && s <= MaxSpeed) {
			return bad(name, "play needs a speed from %g to %d steps per second, got %s", MinSpeed, MaxSpeed, clip(string(*w.Speed)))
		}
		c.Speed = s
	case TrainCommand:
		n, err := strconv.Atoi(number(*w.Steps))
		if err != nil || n < 1 || n > MaxTrainSteps {
			return bad(name, "train needs steps, a whole number from 1 to %d, got %s", MaxTrainSteps, clip(string(*w.Steps)))
		}
		c.Steps = n
	case ResumeCommand:
		n, err := strconv.ParseUint(number(*w.Seq), 10, 64)
		if err != nil || n > MaxSeq {
			return bad(name, "resume needs seq, the last message number the page drew, got %s", clip(string(*w.Seq)))
		}
		c.Seq = n
	case SetCommand:
		if len(w.Params) == 0 {
			return bad(name, "set needs at least one parameter in params")
		}
		c.Params = make(map[string]string, len(w.Params))
		for k, raw := range w.Params {
			v, err := paramText(raw)
			if err != nil {
				return bad(name, "parameter %q: %v", clip(k), err)
			}
			c.Params[k] = v
		}
	}
	return c, nil
}

// number returns a raw JSON value's text if it is a number literal and "" otherwise
// (so that "5" in quotes, true or an object fail to parse as numbers).
func number(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || !(t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) {
		return ""
	}
	return string(t)
}

// paramText accepts a parameter value as a JSON string, number or boolean (a slider
// may send a number) and returns its text; the lesson's Specs then check it.
func paramText(raw json.RawMessage) (string, error) {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0:
		return "", errors.New("no value")
	case t[0] == '"':
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return "", errors.New("the value is not a valid string")
		}
		return s, nil
	case string(t) == "true" || string(t) == "false":
		return string(t), nil
	case t[0] == '-' || (t[0] >= '0' && t[0] <= '9'):
		return string(t), nil // a JSON number, already checked by the decoder
	}
	return "", fmt.Errorf("the value must be text, a number or true/false, got %s", clip(string(t)))
}

// pingText is the heartbeat as the page sends it, matched without decoding (IsPing).
var pingText = []byte(`{"v":1,"type":"ping"}`)

// IsPing reports whether b is the page's heartbeat exactly as static/js/socket.js
// sends it: a reader answers it without decoding JSON. Any other spelling of a ping
// decodes to PingCommand and is answered too.
func IsPing(b []byte) bool { return bytes.Equal(b, pingText) }

// describeDecodeError words encoding/json's errors for a student.
func describeDecodeError(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "the message is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "it ends too early"
	case errors.As(err, &syntax):
		return fmt.Sprintf("%v (at byte %d)", strings.TrimPrefix(syntax.Error(), "json: "), syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("%q should be %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
		}
		return fmt.Sprintf("expected an object, got %s", typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names a Go kind the way JSON does.
func jsonKind(kind string) string {
	switch kind {
	case "int", "int64", "uint64", "float64":
		return "a number"
	case "string":
		return "text"
	case "map":
		return "an object"
	case "ptr":
		return "a value"
	}
	return kind
}

// MarshalJSON encodes c in the wire form DecodeCommand reads.
func (c Command) MarshalJSON() ([]byte, error) {
	m := map[string]any{"v": Version, "type": string(c.Type)}
	if c.ID > 0 {
		m["id"] = c.ID
	}
	switch c.Type {
	case SeekCommand:
		m["step"] = c.Step
	case PlayCommand:
		if math.IsNaN(c.Speed) || math.IsInf(c.Speed, 0) {
			return nil, errors.New("sim: speed is not finite")
		}
		m["speed"] = c.Speed
	case SetCommand:
		m["params"] = c.Params
	case TrainCommand:
		m["steps"] = c.Steps
	case ResumeCommand:
		m["seq"] = c.Seq
	}
	return json.Marshal(m)
}
