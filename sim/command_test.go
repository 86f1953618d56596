package sim

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeCommand(t *testing.T) {
	tests := []struct {
		in   string
		want Command
	}{
		{`{"v":1,"type":"step"}`, Command{Type: StepCommand}},
		{` {"type":"back","v":1} `, Command{Type: BackCommand}},
		{`{"v":1,"type":"seek","step":0}`, Command{Type: SeekCommand}},
		{`{"v":1,"type":"seek","step":12}`, Command{Type: SeekCommand, Step: 12}},
		{`{"v":1,"type":"play","speed":0.5}`, Command{Type: PlayCommand, Speed: 0.5}},
		{`{"v":1,"type":"play","speed":60}`, Command{Type: PlayCommand, Speed: 60}},
		{`{"v":1,"type":"play","speed":0.01}`, Command{Type: PlayCommand, Speed: 0.01}},
		{`{"v":1,"type":"pause"}`, Command{Type: PauseCommand}},
		{`{"v":1,"type":"reset"}`, Command{Type: ResetCommand}},
		{`{"v":1,"type":"set","params":{"seed":"7","rho":1.5,"reset_after":true}}`,
			Command{Type: SetCommand, Params: map[string]string{"seed": "7", "rho": "1.5", "reset_after": "true"}}},
		{`{"v":1,"type":"train","steps":10000}`, Command{Type: TrainCommand, Steps: 10000}},
		{`{"v":1,"type":"resume","seq":9007199254740991}`, Command{Type: ResumeCommand, Seq: MaxSeq}},
		{`{"v":1,"type":"step","step":null}`, Command{Type: StepCommand}},
		{`{"v":1,"type":"ping"}`, Command{Type: PingCommand}},
		{`{"v":1,"type":"step","id":1764088021123000}`, Command{Type: StepCommand, ID: 1764088021123000}},
		{`{"v":1,"type":"seek","step":3,"id":9007199254740991}`, Command{Type: SeekCommand, Step: 3, ID: MaxSeq}},
	}
	for _, tt := range tests {
		got, err := DecodeCommand([]byte(tt.in))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestDecodeCommandErrors(t *testing.T) {
	tests := []struct {
		in, want, command string
	}{
		{``, "empty", ""},
		{`{"v":1,"type":"step"`, "ends too early", ""},
		{`[1]`, "expected an object", ""},
		{`{"v":1,"type":"step"} {}`, "data after", ""},
		{`{"v":1,"type":"step","x":1}`, `unknown field "x"`, ""},
		{`{"v":1}`, `no "type"`, ""},
		{`{"v":1,"type":5}`, `"type" should be text`, ""},
		{`{"v":1,"type":"jump"}`, `unknown command "jump"; the commands are step, back`, ""},
		{`{"type":"step"}`, `"v": 1`, "step"},
		{`{"v":2,"type":"step"}`, `"v": 1`, "step"},
		{`{"v":1,"type":"step","speed":3}`, `step takes no fields, but got "speed"`, "step"},
		{`{"v":1,"type":"seek"}`, `seek needs a "step" field`, "seek"},
		{`{"v":1,"type":"seek","step":-1}`, "from 0 up, got -1", "seek"},
		{`{"v":1,"type":"seek","step":1.5}`, "whole number", "seek"},
		{`{"v":1,"type":"seek","step":"3"}`, "whole number", "seek"},
		{`{"v":1,"type":"seek","speed":3}`, `seek takes "step", not "speed"`, "seek"},
		{`{"v":1,"type":"play","speed":0}`, "from 0.01 to 60", "play"},
		{`{"v":1,"type":"play","speed":61}`, "from 0.01 to 60", "play"},
		{`{"v":1,"type":"play","speed":1e-10}`, "from 0.01 to 60", "play"}, // 1 s/speed would overflow a time.Duration
		{`{"v":1,"type":"play","speed":5e-324}`, "from 0.01 to 60", "play"},
		{`{"v":1,"type":"play","speed":true}`, "from 0.01", "play"},
		{`{"v":1,"type":"train","steps":0}`, "from 1 to 10000", "train"},
		{`{"v":1,"type":"train","steps":10001}`, "from 1 to 10000", "train"},
		{`{"v":1,"type":"resume","seq":-1}`, "resume needs seq", "resume"},
		{`{"v":1,"type":"resume","seq":9007199254740992}`, "resume needs seq", "resume"},
		{`{"v":1,"type":"set","params":{}}`, "at least one parameter", "set"},
		{`{"v":1,"type":"step","id":0}`, "id must be a whole number from 1", "step"},
		{`{"v":1,"type":"step","id":9007199254740992}`, "id must be a whole number from 1", "step"},
		{`{"v":1,"type":"step","id":"7"}`, "id must be a whole number from 1", "step"},
		{`{"v":1,"type":"ping","seq":3}`, `ping takes no fields, but got "seq"`, "ping"},
		{`{"v":1,"type":"set","params":{"a":[1]}}`, `parameter "a": the value must be text`, "set"},
		{`{"v":1,"type":"set","params":{"a":null}}`, `parameter "a"`, "set"},
		{`{"v":1,"type":"set","params":[]}`, `"params" should be an object`, ""},
		{`{"v":1,"type":"step"}` + strings.Repeat(" ", MaxCommandBytes), "the limit is 16384", ""},
	}
	for _, tt := range tests {
		_, err := DecodeCommand([]byte(tt.in))
		ce, ok := err.(*CommandError)
		if !ok {
			t.Errorf("%.60s: got %v, want a *CommandError", tt.in, err)
			continue
		}
		if !strings.Contains(ce.Msg, tt.want) || ce.Command != tt.command || !strings.HasPrefix(err.Error(), "sim: ") {
			t.Errorf("%.60s: got %q (command %q), want it to contain %q (command %q)", tt.in, err, ce.Command, tt.want, tt.command)
		}
		if s := ce.Sentence(); !strings.HasSuffix(s, ".") || strings.HasPrefix(s, "sim") {
			t.Errorf("%.60s: sentence %q should start with a capital and end with a full stop", tt.in, s)
		}
	}
}

// FuzzDecodeCommand: DecodeCommand never panics, fails only with *CommandError, and
// what it accepts survives MarshalJSON and a second decode unchanged.
func FuzzDecodeCommand(f *testing.F) {
	for _, s := range []string{`{"v":1,"type":"step"}`, `{"v":1,"type":"seek","step":3}`,
		`{"v":1,"type":"play","speed":2.5}`, `{"v":1,"type":"set","params":{"seed":"1","x":2}}`,
		`{"v":1,"type":"train","steps":5}`, `{"v":1,"type":"resume","seq":9}`, `{"v":1,"type":"pause"}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCommand(b)
		if err != nil {
			if _, ok := err.(*CommandError); !ok {
				t.Fatalf("got %T %v, want *CommandError", err, err)
			}
			return
		}
		again, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("accepted %q but cannot re-encode: %v", b, err)
		}
		c2, err := parseCommand(again) // the re-encoding may pass the wire limit (< becomes \u003c)
		if err != nil || !reflect.DeepEqual(c, c2) {
			t.Fatalf("round trip of %q: got %+v, %v; want %+v", b, c2, err, c)
		}
	})
}

// TestPing: the heartbeat as socket.js sends it is matched without decoding (IsPing)
// and decodes to PingCommand; the pong is the same header-only bytes every time, seq 0.
func TestPing(t *testing.T) {
	if !IsPing([]byte(`{"v":1,"type":"ping"}`)) || IsPing([]byte(`{"v":1,"type":"step"}`)) {
		t.Error("IsPing does not tell the page's ping from a step")
	}
	if c, err := DecodeCommand(pingText); err != nil || c.Type != PingCommand {
		t.Errorf("the page's ping decodes to %+v, %v", c, err)
	}
	m, err := DecodeMessage(Pong())
	if err != nil {
		t.Fatal(err)
	}
	if h := m.Header; h.Type != PongMessage || h.Seq != 0 || len(m.Arrays) != 0 {
		t.Errorf("the pong is %+v", h)
	}
	if want := `{"v":1,"type":"pong","seq":0,"step":0,"steps":0,"arrays":[]}`; !strings.Contains(string(Pong()), want) || len(Pong()) != 64 {
		t.Errorf("the pong is %q (%d bytes), want %s padded to 64 bytes", Pong(), len(Pong()), want)
	}
}

// TestCommandIDRoundTrip: a numbered command encodes its id and decodes to the same.
func TestCommandIDRoundTrip(t *testing.T) {
	c := Command{Type: SeekCommand, Step: 4, ID: 1764088021123001}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeCommand(b); err != nil || !reflect.DeepEqual(got, c) {
		t.Errorf("%s decodes to %+v, %v; want %+v", b, got, err, c)
	}
}
