package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// writeJSON encodes v with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "the server could not encode its answer")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
	_, _ = w.Write([]byte("\n"))
}

// writeError sends docs/api.md's error body {"error": msg}.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	body, _ := json.Marshal(map[string]string{"error": msg})
	_, _ = w.Write(body)
	_, _ = w.Write([]byte("\n"))
}

// decodeBody reads one JSON object of at most limit bytes into dst, rejecting unknown
// fields and trailing data. The Content-Type is not checked: `curl -d` sends a form type. On failure it writes the 400 or 413 answer and returns false.
func decodeBody(w http.ResponseWriter, r *http.Request, limit int64, dst any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil && dec.More() {
		err = errors.New("unexpected data after the JSON object")
	}
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("unexpected data after the JSON object")
		}
	}
	if err == nil {
		return true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than the %d-byte limit", tooBig.Limit))
		return false
	}
	writeError(w, http.StatusBadRequest, describeJSONError(err))
	return false
}

// describeJSONError turns encoding/json's errors into sentences naming the field.
func describeJSONError(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "the body is empty: send a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON body ends too early"
	case errors.As(err, &syntax):
		return fmt.Sprintf("the body is not valid JSON (at byte %d): %v", syntax.Offset, syntax)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("%s: expected %s, got JSON %s", typ.Field, typ.Type, typ.Value)
		}
		return fmt.Sprintf("expected %s, got JSON %s", typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		if unq, err := strconv.Unquote(name); err == nil {
			name = fmt.Sprintf("%.60q", unq) // at most 60 runes of a pasted name
		}
		return "unknown field " + name
	}
	return "the body could not be read: " + err.Error()
}
