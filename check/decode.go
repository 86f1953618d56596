package check

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"unroll/models"
)

// Limits of the /api/v1/cell body, checked by DecodeCell while it reads, so that a
// request never holds more than the numbers a legal request needs (MaxCellNumbers × 8
// bytes, 6.3 MB) plus the tokenizer's buffer (4 KiB, at most 32 KiB while it holds a
// long token or run of white space), whatever the body's size or shape.
const (
	// MaxCellNumbers is how many numbers the largest legal request holds: an lstm with
	// d = h = MaxSize and T = MaxSteps (four gates' W_x*, W_h* and b_*, then x, dh, h0, c0).
	MaxCellNumbers = 4*(2*MaxSize*MaxSize+MaxSize) + 2*MaxSteps*MaxSize + 2*MaxSize
	// maxTokenBytes bounds one string or number of the body: no field of a cell request
	// needs more (a kind, a parameter name, a float64 written with 17 significant digits
	// takes at most 25 bytes).
	maxTokenBytes = 1024
	// maxSpaceBytes bounds the white space between two tokens, or after the object: an
	// indented request needs a line break and a few spaces. As much is always read;
	// past maxHeldBytes with the token after it, it is refused.
	maxSpaceBytes = 16 << 10
	// maxHeldBytes is what jsontext may hold past the last token it returned: white
	// space, a ',' or ':' and the token it is reading. Its buffer grows to hold a token
	// whole, so the reader under it stops there (heldLimit).
	maxHeldBytes = maxSpaceBytes + 1 + maxTokenBytes
)

// cellFields are the top-level keys of a cell request, in docs/api.md's order.
var cellFields = []string{"kind", "params", "x", "h0", "c0", "dh"}

// DecodeCell reads the body of POST /api/v1/cell and checks the limits while it reads:
// x and dh at most MaxSteps rows, every row, h0 and c0 at most MaxSize numbers, each
// weight at most MaxSize × MaxSize, at most MaxCellNumbers numbers in all, only the
// known fields and parameter names, each once, and lists nested only as deep as a
// matrix. It reads the JSON token by token with jsontext (the tokenizer of the proposed
// encoding/json/v2), lets it hold at most a token of maxTokenBytes and maxSpaceBytes of
// white space before it, and keeps only the numbers, so it stops at the first problem
// having held some kilobytes, however long or deep the body. It reads to the end of r
// to reject data after the object.
//
// Every error is an *Error worded for a student; when reading r failed (for example
// http.MaxBytesReader's limit) the *Error wraps that error. As with encoding/json, the
// JSON must be valid, field names match case-insensitively, a null counts as an
// omitted field, and a null inside a list of numbers is refused (it is how JavaScript
// writes NaN). Shapes and the kind's parameter names are left to Cell when the kind
// comes after the params.
func DecodeCell(r io.Reader) (*CellRequest, error) {
	in := &heldLimit{r: r}
	// Duplicate names are refused below, case-insensitively and naming the field;
	// invalid UTF-8 in a string is read as encoding/json reads it.
	in.dec = jsontext.NewDecoder(in, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	d := &cellDecoder{dec: in.dec, in: in}
	return d.request()
}

// cellDecoder holds the decoding state of one body.
type cellDecoder struct {
	dec     *jsontext.Decoder
	in      *heldLimit
	numbers int // numbers read so far
}

func (d *cellDecoder) request() (*CellRequest, error) {
	k := d.dec.PeekKind()
	if k == 0 {
		if _, err := d.dec.ReadToken(); err == io.EOF {
			return nil, errorf("the body is empty: send a JSON object")
		}
		return nil, d.delimError(0, "", "looking for the beginning of a value")
	}
	if k != '{' {
		if _, err := d.peekValue(); err != nil {
			return nil, err
		}
		return nil, errorf(`the body must be a JSON object, like {"kind": "gru", "params": {…}, "x": […]}; got %s`, describe(byte(k)))
	}
	req := &CellRequest{}
	var seen []string
	err := d.object(func(key string) error {
		i := slices.IndexFunc(cellFields, func(f string) bool { return strings.EqualFold(f, key) })
		if i < 0 {
			return errorf("unknown field %.60q", key)
		}
		field := cellFields[i]
		if slices.Contains(seen, field) {
			return errorf("%s: given twice; give each field once", field)
		}
		seen = append(seen, field)
		var err error
		switch field {
		case "kind":
			req.Kind, err = d.kind()
		case "params":
			req.Params, err = d.params(req.Kind)
		case "x":
			req.X, err = d.matrix("x", MaxSteps, "%d or more time steps", MaxSize, "input size d = %d or more")
		case "dh":
			req.DH, err = d.matrix("dh", MaxSteps, "%d or more time steps", MaxSize, "hidden size h = %d or more")
		case "h0":
			req.H0, err = d.vector("h0", MaxSize, "hidden size h = %d or more")
		case "c0":
			req.C0, err = d.vector("c0", MaxSize, "hidden size h = %d or more")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if d.dec.PeekKind() == 0 {
		var serr *jsontext.SyntacticError
		switch _, err := d.dec.ReadToken(); {
		case err == io.EOF:
			return req, nil
		case !errors.As(err, &serr): // reading failed, or too much white space
			return nil, d.readError(err)
		}
	}
	b := d.dec.UnreadBuffer()
	return nil, errorf("unexpected data after the JSON object (at byte %d)", d.dec.InputOffset()+int64(skipSpace(b, 0)))
}

// kind reads the kind: a string, or null.
func (d *cellDecoder) kind() (string, error) {
	c, err := d.peekValue()
	if err != nil {
		return "", err
	}
	switch c {
	case '"':
		return d.string()
	case 'n':
		return "", d.null()
	}
	return "", errorf(`kind: expected a string ("rnn", "gru" or "lstm"), got %s`, describe(c))
}

// params reads the params object: a weight (W_…) is a matrix, a bias (b_…) a list.
func (d *cellDecoder) params(kind string) (map[string][][]float64, error) {
	if null, err := d.valueStart('{', "params", `an object of named weights, like {"W_xh": [[…]], "W_hh": [[…]], "b_h": […]}`); null || err != nil {
		return nil, err
	}
	ps := map[string][][]float64{}
	err := d.object(func(name string) error {
		field := "params." + name
		if names, ok := paramNames[models.Kind(kind)]; ok && !slices.Contains(names, name) {
			return errorf("params.%.60s: not a %s parameter; a %s has %s", name, kind, kind, strings.Join(names, " "))
		}
		if !isParamName(name) { // the kind comes later in the body, or is wrong
			return errorf("params.%.60s: not a parameter of any cell; an rnn has %s, a gru %s, an lstm %s",
				name, strings.Join(paramNames["rnn"], " "), strings.Join(paramNames["gru"], " "), strings.Join(paramNames["lstm"], " "))
		}
		if _, dup := ps[name]; dup {
			return errorf("%s: given twice; give each parameter once", field)
		}
		var m [][]float64
		var err error
		switch {
		case strings.HasPrefix(name, "b_"):
			var v []float64
			if v, err = d.vector(field, MaxSize, "hidden size h = %d or more"); v != nil {
				m = [][]float64{v}
			}
		case strings.HasPrefix(name, "W_h"):
			m, err = d.matrix(field, MaxSize, "hidden size h = %d or more", MaxSize, "hidden size h = %d or more")
		default:
			m, err = d.matrix(field, MaxSize, "input size d = %d or more", MaxSize, "hidden size h = %d or more")
		}
		ps[name] = m
		return err
	})
	return ps, err
}

// matrix reads a list of at most maxRows rows of at most maxCols numbers (nil for null).
// rowsWhat and colsWhat describe a count over the limit, like "%d or more time steps".
func (d *cellDecoder) matrix(field string, maxRows int, rowsWhat string, maxCols int, colsWhat string) ([][]float64, error) {
	if null, err := d.valueStart('[', field, "a list of rows of numbers, like [[1, 2], [3, 4]]"); null || err != nil {
		return nil, err
	}
	m := [][]float64{}
	err := d.list(func() error {
		if len(m) == maxRows {
			return errorf("%s: %s is over the limit of %d", field, fmt.Sprintf(rowsWhat, maxRows+1), maxRows)
		}
		row, err := d.vector(fmt.Sprintf("%s[%d]", field, len(m)), maxCols, colsWhat)
		m = append(m, row)
		return err
	})
	return m, err
}

// valueStart looks at the value of field that comes next: null is read and reported
// (a missing matrix, vector or params object), the opening open ('[' of a list, '{'
// of an object) is left for list or object, and anything else is an error that says
// what was expected (like).
func (d *cellDecoder) valueStart(open byte, field, like string) (null bool, err error) {
	c, err := d.peekValue()
	if err != nil {
		return false, err
	}
	if c == 'n' {
		return true, d.null()
	}
	if c != open {
		return false, errorf("%s: expected %s; got %s", field, like, describe(c))
	}
	return false, nil
}

// vector reads a list of at most max numbers (nil for null).
func (d *cellDecoder) vector(field string, max int, what string) ([]float64, error) {
	if null, err := d.valueStart('[', field, "a list of numbers, like [0.5, -1]"); null || err != nil {
		return nil, err
	}
	v := []float64{}
	err := d.list(func() error {
		if len(v) == max {
			return errorf("%s: %s is over the limit of %d", field, fmt.Sprintf(what, max+1), max)
		}
		if d.numbers == MaxCellNumbers {
			return errorf("%s: the body holds more than %d numbers, the most a legal request needs (an lstm with d = h = %d and T = %d)",
				field, MaxCellNumbers, MaxSize, MaxSteps)
		}
		c, err := d.peekValue()
		if err != nil {
			return err
		}
		var x float64
		switch c {
		case '0':
			if x, err = d.number(); err != nil {
				if errors.Is(err, strconv.ErrRange) {
					return errorf("%s[%d]: %.40s is too large for a float64", field, len(v), err.(*strconv.NumError).Num)
				}
				return err
			}
		case 'n': // JSON.stringify writes NaN and ±Infinity as null: never read it as 0
			if err := d.null(); err != nil {
				return err
			}
			return errorf("%s[%d]: expected a number, got null (JSON has no NaN or Infinity, and JavaScript's JSON.stringify writes them as null): every number must be finite", field, len(v))
		default:
			return errorf("%s[%d]: expected a number, got %s", field, len(v), describe(c))
		}
		d.numbers++
		v = append(v, x)
		return nil
	})
	return v, err
}

// describe names the JSON value that starts with c (or is of jsontext.Kind c), for a message.
func describe(c byte) string {
	switch {
	case c == '[':
		return "a list"
	case c == '{':
		return "an object"
	case c == '"':
		return "a string"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	case c == 't' || c == 'f':
		return "true or false"
	case c == 'n':
		return "null"
	}
	return fmt.Sprintf("%q", c)
}

// isParamName reports whether name is a parameter of some cell kind.
func isParamName(name string) bool {
	for _, names := range paramNames {
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// The walk over the JSON, on jsontext's Decoder. PeekKind checks the ',' or ':' before
// the next token and gives its kind; ReadToken then reads it. jsontext's errors are
// reworded below in the words of package web's messages for encoding/json's, naming
// the byte at fault, which is still in the decoder's unread buffer after an error.

// object reads an object whose '{' is next, calling member with each name; member must
// read exactly the name's value.
func (d *cellDecoder) object(member func(name string) error) error {
	const looking = "looking for the beginning of an object key string"
	return d.elements('}', ']', "after an object key:value pair", looking, func() error {
		if d.dec.PeekKind() != '"' {
			return d.syntaxNext(looking)
		}
		name, err := d.string()
		if err != nil {
			return err
		}
		if d.dec.PeekKind() == 0 {
			return d.delimError(':', "after an object key", "looking for the beginning of a value")
		}
		if _, err := d.peekValue(); err != nil {
			return err
		}
		return member(name)
	})
}

// list reads a list whose '[' is next, calling elem for each element; elem must read
// exactly one value.
func (d *cellDecoder) list(elem func() error) error {
	return d.elements(']', '}', "after a list element", "looking for the beginning of a value", elem)
}

// elements reads the object or list whose opening delimiter is next, calling each for
// every element until the closing delimiter end. A missing delimiter or the other
// kind's closing one (wrong) is a syntax error in encoding/json's words: after names
// the place after an element, looking what the decoder expected there.
func (d *cellDecoder) elements(end, wrong jsontext.Kind, after, looking string, each func() error) error {
	if _, err := d.dec.ReadToken(); err != nil {
		return d.readError(err)
	}
	for i := 0; ; i++ {
		switch k := d.dec.PeekKind(); {
		case k == 0 && i == 0:
			return d.delimError(0, "", looking)
		case k == 0:
			return d.delimError(',', after, looking)
		case k == end:
			_, err := d.dec.ReadToken()
			return d.readError(err)
		case k == wrong && i > 0:
			return d.syntaxNext(after)
		}
		if err := each(); err != nil {
			return err
		}
	}
}

// peekValue returns the jsontext.Kind of the value that comes next ('0' for a number),
// or a syntax error if no value starts there.
func (d *cellDecoder) peekValue() (byte, error) {
	k := d.dec.PeekKind()
	if k == 0 {
		return 0, d.delimError(0, "", "looking for the beginning of a value")
	}
	if strings.IndexByte(`{["0tfn`, byte(k)) < 0 {
		return 0, d.syntaxNext("looking for the beginning of a value")
	}
	return byte(k), nil
}

// string reads the string that is next, at most maxTokenBytes as written.
func (d *cellDecoder) string() (string, error) {
	start := d.tokenStart()
	tok, err := d.dec.ReadToken()
	if err != nil {
		return "", d.tokenError('"', start, err)
	}
	if d.dec.InputOffset()-start > maxTokenBytes {
		return "", tooLong('"', start)
	}
	return tok.String(), nil
}

// number reads the number that is next, at most maxTokenBytes as written; a number
// beyond a float64 is a *strconv.NumError wrapping strconv.ErrRange.
func (d *cellDecoder) number() (float64, error) {
	start := d.tokenStart()
	tok, err := d.dec.ReadToken()
	if err != nil {
		return 0, d.tokenError('0', start, err)
	}
	if d.dec.InputOffset()-start > maxTokenBytes {
		return 0, tooLong('0', start)
	}
	if b := d.dec.UnreadBuffer(); len(b) > 0 && isNumberByte(b[0]) { // like 01 or 1.5.3
		n := numberBytes(b)
		return 0, d.badNumber(start, append([]byte(tok.String()), b[:n]...), n == len(b))
	}
	x := tok.Float()
	if math.Abs(x) == math.MaxFloat64 { // Float rounds a number beyond a float64 to the largest
		if _, err := strconv.ParseFloat(tok.String(), 64); err != nil {
			return 0, err
		}
	}
	return x, nil
}

// null reads the literal null, which is next.
func (d *cellDecoder) null() error {
	start := d.tokenStart()
	if _, err := d.dec.ReadToken(); err != nil {
		return d.tokenError('n', start, err)
	}
	return nil
}

// tokenStart is the offset of the token PeekKind saw: past white space and a ',' or ':'.
func (d *cellDecoder) tokenStart() int64 {
	b := d.dec.UnreadBuffer()
	i := skipSpace(b, 0)
	if i < len(b) && (b[i] == ',' || b[i] == ':') {
		i = skipSpace(b, i+1)
	}
	return d.dec.InputOffset() + int64(i)
}

// syntax is a syntax error at byte off.
func (d *cellDecoder) syntax(off int64, format string, args ...any) error {
	return errorf("the body is not valid JSON (at byte %d): %s", off, fmt.Sprintf(format, args...))
}

// syntaxNext is a syntax error naming the first byte of the token PeekKind saw.
func (d *cellDecoder) syntaxNext(what string) error {
	off := d.tokenStart()
	return d.syntax(off, "invalid character %q %s", d.dec.UnreadBuffer()[off-d.dec.InputOffset()], what)
}

// delimError words the error PeekKind kept where sep (',' or ':', or 0 for none) may
// come: a byte other than sep is wrong "after" the previous token; after sep, or where
// none may come, the byte is wrong where a value is expected ("then").
func (d *cellDecoder) delimError(sep byte, after, then string) error {
	_, err := d.dec.ReadToken()
	var serr *jsontext.SyntacticError
	if !errors.As(err, &serr) || errors.Is(err, io.ErrUnexpectedEOF) {
		return d.readError(err)
	}
	b := d.dec.UnreadBuffer()
	i, what := skipSpace(b, 0), then
	switch {
	case sep == 0:
	case i < len(b) && b[i] == sep:
		i = skipSpace(b, i+1)
	default:
		what = after
	}
	if i == len(b) {
		return d.readError(err)
	}
	return d.syntax(d.dec.InputOffset()+int64(i), "invalid character %q %s", b[i], what)
}

// tokenError words an error of ReadToken reading the token of kind k that starts at
// byte start, which the decoder still holds: as the hand-written lexer before it did,
// a number is every byte that may belong to one, and a string or number over
// maxTokenBytes is refused as such, whatever comes after.
func (d *cellDecoder) tokenError(k byte, start int64, err error) error {
	var serr *jsontext.SyntacticError
	if !errors.As(err, &serr) { // reading failed, or heldLimit refused
		return d.readError(err)
	}
	b, base := d.dec.UnreadBuffer(), d.dec.InputOffset()
	tok := b[start-base:]
	if k == '0' { // incomplete at the end of the body, or a wrong byte within
		n := numberBytes(tok)
		return d.badNumber(start, tok[:n], n == len(tok))
	}
	if errors.Is(serr.Err, io.ErrUnexpectedEOF) {
		if k == '"' && len(tok) > maxTokenBytes {
			return tooLong(k, start)
		}
		return d.readError(err)
	}
	at := serr.ByteOffset
	if at-start >= maxTokenBytes {
		return tooLong(k, start)
	}
	if at < base || at >= base+int64(len(b)) {
		return d.readError(err)
	}
	switch c := b[at-base]; { // at+1: past the byte, as encoding/json counts
	case k == 'n':
		return d.syntax(at+1, "invalid character %q in literal null", c)
	case c < ' ':
		return d.syntax(at+1, "invalid character %q in a string literal", c)
	default:
		return d.syntax(at, "invalid escape in the string starting at byte %d", start)
	}
}

// badNumber refuses the number at byte start, whose bytes the decoder holds are num;
// held tells whether num runs to the end of what it holds, before the end of the body.
func (d *cellDecoder) badNumber(start int64, num []byte, held bool) error {
	switch at := start + int64(len(num)); {
	case len(num) > maxTokenBytes:
		return tooLong('0', start)
	case held && d.in.err != io.EOF: // more may follow: name the number by its start
		return d.syntax(start, "%.40q… is not a JSON number", num)
	default:
		return d.syntax(at, "%.40q is not a JSON number", num)
	}
}

// readError words an error of the decoder that names no byte at fault: r's, the
// heldLimit's, the end of the body, or (in jsontext's words) a syntax error the
// callers do not expect.
func (d *cellDecoder) readError(err error) error {
	if err == nil {
		return nil
	}
	var serr *jsontext.SyntacticError // on the heap, hence after the test for nil
	switch syntactic := errors.As(err, &serr); {
	case syntactic && errors.Is(serr.Err, io.ErrUnexpectedEOF) || err == io.EOF:
		return &Error{Msg: "the JSON body ends too early", err: io.ErrUnexpectedEOF}
	case syntactic:
		return d.syntax(serr.ByteOffset, "%v", serr.Err)
	case errors.Is(err, errHeld):
		return d.held()
	case d.in.err != nil && d.in.err != io.EOF:
		return &Error{Msg: "the body could not be read: " + d.in.err.Error(), err: d.in.err}
	}
	return &Error{Msg: "the body could not be read: " + err.Error(), err: err}
}

// held words heldLimit's refusal: the token being read, or the white space before it,
// is too long.
func (d *cellDecoder) held() error {
	b, base, start := d.dec.UnreadBuffer(), d.dec.InputOffset(), d.tokenStart()
	if base+int64(len(b))-start > maxTokenBytes {
		return tooLong(b[start-base], start)
	}
	if len(b) > 0 && (b[0] == ',' || b[0] == ':') {
		base++ // the white space starts after it
	}
	return errorf("the body has more than %d bytes of white space in a row (at byte %d); a cell request needs a few", maxSpaceBytes, base)
}

// tooLong refuses the string (c is '"') or number that starts at byte start.
func tooLong(c byte, start int64) error {
	if c == '"' {
		return errorf("the body has a string longer than %d bytes (at byte %d); no field of a cell request needs one", maxTokenBytes, start)
	}
	return errorf("the body has a number longer than %d bytes (at byte %d); a float64 needs at most 25", maxTokenBytes, start)
}

// skipSpace returns the index of the first byte of b[i:] that is not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// numberBytes is how many bytes at the start of b may belong to a number.
func numberBytes(b []byte) int {
	n := 0
	for n < len(b) && isNumberByte(b[n]) {
		n++
	}
	return n
}

// errHeld is heldLimit's refusal.
var errHeld = errors.New("the body holds a token or white space over the limits")

// heldLimit is the reader under jsontext's Decoder. The decoder keeps in its buffer
// everything past the last token it returned (InputOffset) and grows the buffer to hold
// the token it is reading whole, so a 20 MiB string or run of white space would take
// 20 MiB. heldLimit reads no further than maxHeldBytes+1 past that token, and refuses
// to read on from there; the decoder then returns errHeld, wrapped. It also keeps r's
// error, so that DecodeCell wraps it whole.
type heldLimit struct {
	r    io.Reader
	dec  *jsontext.Decoder
	read int64 // bytes read from r
	err  error // r's error (io.EOF at the end), returned from then on
}

func (h *heldLimit) Read(p []byte) (int, error) {
	if h.err != nil {
		return 0, h.err
	}
	held := h.read - h.dec.InputOffset()
	if held > maxHeldBytes {
		return 0, errHeld
	}
	if room := maxHeldBytes + 1 - held; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := h.r.Read(p)
	h.read += int64(n)
	h.err = err
	if n > 0 {
		return n, nil // and err at the next call
	}
	return 0, err
}
