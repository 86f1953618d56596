// Command server runs Unroll: every lesson page, its websocket and the JSON API on one
// address, with all assets and checkpoints embedded in the binary.
//
//	go run ./cmd/server            # http://localhost:8080
//	go run ./cmd/server -addr :9000
//	go run ./cmd/server -addr :8080   # teaching: students join from the hall's network
//	unroll -version                # prints the version, commit, system and Go release
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"unroll/web"
)

const (
	readHeaderTimeout = 5 * time.Second   // a slow-loris client cannot hold a connection open
	readTimeout       = 30 * time.Second  // the largest legal /api/v1/cell body is ~15 MB
	idleTimeout       = 120 * time.Second // keep-alive between a page's requests
	shutdownTimeout   = 10 * time.Second  // Ctrl-C in a lecture hall must not hang
)

// version and commit name the build. The release build (cmd/release) stamps them:
//
//	go build -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234" ./cmd/server
//
// Unstamped, version is "dev" and commit is the revision go build recorded from git.
var (
	version = "dev"
	commit  = ""
)

// buildCommit is the stamped commit, else the git revision go build recorded (its first
// 12 hex digits, "-dirty" when the tree had uncommitted changes), else "unknown" (go run
// and go test record none).
func buildCommit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// versionLine is what -version prints: unroll v1.2.3 (abc1234) darwin/arm64 go1.26.8.
func versionLine() string {
	return fmt.Sprintf("unroll %s (%s) %s/%s %s", version, buildCommit(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func main() {
	addr := flag.String("addr", "localhost:8080", "listen address, HOST:PORT")
	showVersion := flag.Bool("version", false, "print the version and exit")
	roomIdle := flag.Duration("room-idle", 30*time.Minute, "how long a class's room waits for its instructor's page to come back before it ends")
	var allow []string
	flag.Func("allow-host", "a host name the server answers to besides its own addresses, e.g. unroll.example.edu (repeat, or separate with commas)", func(v string) error {
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				allow = append(allow, h)
			}
		}
		return nil
	})
	flag.Parse()
	if *showVersion {
		fmt.Println(versionLine())
		return
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, allow, *roomIdle, logger); err != nil {
		logger.Error("server stopped", "err", err)
		os.Exit(1)
	}
}

// run serves until SIGINT or SIGTERM, then shuts down gracefully within shutdownTimeout.
// The server answers to the names of the address it listens on and to allow (web.Hosts).
func run(addr string, allow []string, roomIdle time.Duration, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	start := time.Now()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	handler, err := web.New(logger, web.Options{Hosts: web.Hosts(ln.Addr(), allow), Version: version, Commit: buildCommit(),
		Listen: ln.Addr(), RoomIdle: roomIdle})
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	logger.Info("serving Unroll", "version", version, "commit", buildCommit(), "url", "http://"+ln.Addr().String()+"/", "startup", time.Since(start).Round(time.Millisecond))
	for _, u := range web.LANURLs(ln.Addr()) { // what students type, or scan from a room's join panel
		logger.Info("reachable on the network", "url", u)
	}

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	handler.Shutdown() // tell long-lived connections (websockets) to close first
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
