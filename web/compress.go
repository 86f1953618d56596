package web

import (
	"compress/gzip"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
)

// The pages' HTML and the JSON answers are compressed as they are written, with
// brotli (github.com/andybalholm/brotli) or gzip (compress/gzip), as the
// request's Accept-Encoding prefers. Static files are not: they were compressed once
// when the server started (assets.go).
const (
	// minCompressBytes: a body shorter than this goes as it is; it fits a packet or two
	// either way, and an error's JSON stays readable to curl.
	minCompressBytes = 1024
	// dynamicBrotliLevel is brotli's quality for HTML and JSON, compressed per
	// response: BenchmarkCompressLessonPage measures it on the largest lesson page.
	dynamicBrotliLevel = 4
)

// compressible reports whether a response of this Content-Type is worth compressing:
// text, JSON, JavaScript and SVG. Images, fonts, PDFs, ZIPs and GIFs carry their own
// compression.
func compressible(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	switch {
	case strings.HasPrefix(mt, "text/"):
		return true
	case mt == "application/json", mt == "application/javascript", mt == "image/svg+xml", strings.HasSuffix(mt, "+json"):
		return true
	}
	return false
}

var (
	gzipWriters   = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return w }}
	brotliWriters = sync.Pool{New: func() any { return brotli.NewWriterLevel(nil, dynamicBrotliLevel) }}
)

// resettableWriter is what both pooled compressors are.
type resettableWriter interface {
	io.WriteCloser
	Flush() error
	Reset(io.Writer)
}

// compressWriter compresses a response when its request accepts it and the response
// is worth it: a compressible Content-Type, no Content-Encoding of its own, a status
// that has a body, and at least minCompressBytes (or a Flush, which streams). It
// holds the first bytes until it knows. Websocket upgrades never reach it
// (compressResponse), and Unwrap gives http.ResponseController the connection.
type compressWriter struct {
	http.ResponseWriter
	encoding string // "br" or "gzip": what the request accepts
	status   int    // the status the handler asked for, not yet sent
	held     []byte // the body so far, while undecided
	decided  bool
	zw       resettableWriter // the compressor, nil when the body goes as it is
}

// compressResponse returns the writer to hand the handler for r, and a func to call
// when the handler returns (it ends the body). It returns w itself for a request
// that accepts no compression, a websocket upgrade, and a HEAD.
func compressResponse(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func()) {
	enc := acceptedEncoding(r, true, true)
	if enc == "" || r.Method == http.MethodHead || r.Header.Get("Upgrade") != "" {
		return w, func() {}
	}
	cw := &compressWriter{ResponseWriter: w, encoding: enc}
	return cw, cw.finish
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (c *compressWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c *compressWriter) WriteHeader(code int) {
	if c.decided || c.status != 0 {
		if c.decided && c.zw == nil {
			c.ResponseWriter.WriteHeader(code) // as net/http would: a superfluous call is its to report
		}
		return
	}
	if code >= 100 && code < 200 { // informational: goes now, the real status follows
		c.ResponseWriter.WriteHeader(code)
		return
	}
	c.status = code
	if !bodyAllowed(code) {
		c.decide(false)
	}
}

func (c *compressWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if !c.decided {
		c.held = append(c.held, p...)
		if len(c.held) < minCompressBytes {
			return len(p), nil
		}
		if err := c.decide(true); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if c.zw != nil {
		return c.zw.Write(p)
	}
	return c.ResponseWriter.Write(p)
}

// Flush sends what is written so far: a streamed response is compressed (when it may
// be) from its first flush on, each flush a complete block for the reader.
func (c *compressWriter) Flush() {
	if !c.decided {
		if c.status == 0 {
			c.status = http.StatusOK
		}
		_ = c.decide(true)
	}
	if c.zw != nil {
		_ = c.zw.Flush()
	}
	_ = http.NewResponseController(c.ResponseWriter).Flush()
}

// bodyAllowed reports whether a response with this status has a body to compress.
func bodyAllowed(code int) bool {
	return code != http.StatusNoContent && code != http.StatusNotModified && code != http.StatusPartialContent
}

// decide sends the status and the held bytes, compressed when big says the body is
// long enough (or streams) and the response may be compressed.
func (c *compressWriter) decide(big bool) error {
	c.decided = true
	h := c.Header()
	if big && bodyAllowed(c.status) && h.Get("Content-Encoding") == "" && h.Get("Content-Range") == "" && compressible(h.Get("Content-Type")) {
		h.Set("Content-Encoding", c.encoding)
		h.Add("Vary", "Accept-Encoding")
		h.Del("Content-Length")
		if tag := h.Get("ETag"); tag != "" && !strings.HasPrefix(tag, "W/") {
			h.Set("ETag", "W/"+tag) // the same content, not the same bytes
		}
		if c.encoding == "br" {
			c.zw = brotliWriters.Get().(resettableWriter)
		} else {
			c.zw = gzipWriters.Get().(resettableWriter)
		}
		c.zw.Reset(c.ResponseWriter)
	}
	c.ResponseWriter.WriteHeader(c.status)
	held := c.held
	c.held = nil
	if len(held) == 0 {
		return nil
	}
	var err error
	if c.zw != nil {
		_, err = c.zw.Write(held)
	} else {
		_, err = c.ResponseWriter.Write(held)
	}
	return err
}

// finish ends the response when the handler returns: a short body goes as it is, a
// compressed one gets its last block and its compressor goes back to the pool.
func (c *compressWriter) finish() {
	if !c.decided {
		if c.status == 0 && len(c.held) == 0 {
			return // nothing written: net/http sends its 200, or the panic handler its 500
		}
		if c.status == 0 {
			c.status = http.StatusOK
		}
		_ = c.decide(false)
	}
	if c.zw == nil {
		return
	}
	_ = c.zw.Close()
	c.zw.Reset(nil)
	if c.encoding == "br" {
		brotliWriters.Put(c.zw)
	} else {
		gzipWriters.Put(c.zw)
	}
	c.zw = nil
}
