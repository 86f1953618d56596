// Package web is Unroll's HTTP surface: it registers the routes of docs/api.md, decodes and
// validates requests, calls the packages that do the work, and encodes the answers. It
// is the only package that imports net/http.
package web

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"unroll/lessons"
	"unroll/models"
	"unroll/sim"
)

// Server is the http.Handler for the whole application.
type Server struct {
	mux    *http.ServeMux
	log    *slog.Logger
	ready  atomic.Bool
	hosts  hostPolicy     // the Host names the server answers to
	sched  *sim.Scheduler // the CPU, shared between API answers, exports and training
	memory budget         // the memory of lesson runs: sessions and exports (maxSessionBytes)

	// machine names how this server's training rounds: GOARCH and models.Fingerprint,
	// which a trained model's URL records (trained_on).
	machine string

	catalog  []*lessons.Lesson // the lessons in lecture order
	sessions sessionSet        // open lesson websockets, closed by Shutdown
	parked   *parking          // the runs of dropped connections, waiting for their pages
	rooms    *roomSet          // the classes following their instructors (room.go)
	listen   net.Addr          // Options.Listen: where the server listens, for the rooms' join URLs
	static   *assetSet         // package static's files, hashed and compressed (assets.go)
	build    buildInfo         // what GET /api/v1/version answers
	models   chan struct{}     // a token per model upload being read (maxModelUploads, models_run.go)
}

// Options are a server's settings beyond its defaults.
type Options struct {
	// Hosts are the host names the server answers to besides the loopback names
	// (see Hosts); a request for any other name is refused (DNS rebinding).
	Hosts []string

	// Version and Commit name the build for GET /api/v1/version: the release it is
	// (e.g. v1.2.3) and the git commit it was built from. cmd/server passes what the
	// release build stamped; empty, they read "dev" and "unknown".
	Version, Commit string

	// Listen is the address the server listens on: a room's join panel offers the
	// LAN addresses when it is not loopback. Unset, each request's local address.
	Listen net.Addr
	// RoomIdle is how long a room waits for its instructor's page to come back before
	// it ends (0: defaultRoomIdle, 30 minutes).
	RoomIdle time.Duration
}

// New builds the handler with every route registered. It returns once everything the
// routes need is loaded, after which /healthz answers 200.
func New(logger *slog.Logger, opts Options) (*Server, error) {
	if err := lessons.LoadCheckpoints(); err != nil { // before /healthz says ready
		return nil, err
	}
	return newServer(logger, lessons.Catalog(), opts)
}

// newServer is New with the lesson catalog given (tests use their own lessons).
func newServer(logger *slog.Logger, catalog []*lessons.Lesson, opts Options) (*Server, error) {
	s := &Server{
		mux: http.NewServeMux(), log: logger, catalog: catalog,
		hosts:   newHostPolicy(opts.Hosts),
		sched:   sim.NewScheduler(runtime.GOMAXPROCS(0)),
		memory:  budget{limit: maxSessionBytes},
		parked:  newParking(),
		machine: runtime.GOARCH + "-" + models.Fingerprint(),
		build:   newBuildInfo(opts.Version, opts.Commit),
		listen:  opts.Listen,
		models:  make(chan struct{}, maxModelUploads),
	}
	s.rooms = newRoomSet(s, opts.RoomIdle)
	st, err := loadAssets()
	if err != nil {
		return nil, err
	}
	s.static = st
	s.routes()
	s.ready.Store(true)
	return s, nil
}

// Shutdown sends every open lesson websocket a 1001 close, ends every room (its
// followers are told why), and waits for the sessions and the followers to end (at most
// shutdownWait, for both at once); http.Server.Shutdown does the rest. New websockets
// are refused from then on.
func (s *Server) Shutdown() {
	s.ready.Store(false)
	rooms := make(chan bool, 1)
	go func() { rooms <- s.rooms.closeAll(shutdownWait) }() // every follower is told why, while the sessions close
	if !s.sessions.closeAll(shutdownWait) {
		s.log.Warn("some lesson websockets did not close in time", "wait", shutdownWait)
	}
	if !<-rooms {
		s.log.Warn("some followers' websockets did not close in time", "wait", shutdownWait)
	}
	s.parked.clear()
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if !s.ready.Load() {
		writeError(w, http.StatusServiceUnavailable, "not ready")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}

// buildInfo is the body of GET /api/v1/version: which build of Unroll this is and
// what it runs on.
type buildInfo struct {
	Version string `json:"version"` // the release, e.g. v1.2.3, or "dev"
	Commit  string `json:"commit"`  // the git commit, with "-dirty" when the tree had changes
	Go      string `json:"go"`      // the Go release it was built with, e.g. go1.26.8
	OS      string `json:"os"`      // GOOS, e.g. darwin
	Arch    string `json:"arch"`    // GOARCH, e.g. arm64
}

func newBuildInfo(version, commit string) buildInfo {
	if version == "" {
		version = "dev"
	}
	if commit == "" {
		commit = "unknown"
	}
	return buildInfo{Version: version, Commit: commit, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

func (s *Server) version(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.build)
}

// ServeHTTP logs each request and turns a panic in a handler into a logged 500, so one
// bad request never stops the server.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("handler panic", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			if !rec.wrote {
				writeError(rec, http.StatusInternalServerError, "the server hit a bug; it has been logged")
			}
		}
		s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "took", time.Since(start))
	}()
	if !s.hosts.allows(r.Host) {
		writeError(rec, http.StatusForbidden, fmt.Sprintf("this server does not answer to the name %.60q; open it as http://localhost (or start it with -allow-host NAME for the name you use)", r.Host))
		return
	}
	if strings.HasPrefix(r.URL.Path, "/static/") { // compressed once, at start (assets.go)
		s.mux.ServeHTTP(rec, r)
		return
	}
	cw, finish := compressResponse(rec, r)
	defer finish() // before the recover above: what the handler wrote goes out first
	s.mux.ServeHTTP(cw, r)
}

// statusRecorder remembers the status code for the request log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer (websocket hijack).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
