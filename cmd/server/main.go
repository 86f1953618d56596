// Command server runs Unroll: every lesson page, its websocket and the JSON API on one
// address, with all assets and checkpoints embedded in the binary.
//
//	go run ./cmd/server            # http://localhost:8080
//	go run ./cmd/server -addr :9000
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

func main() {
	addr := flag.String("addr", "localhost:8080", "listen address, HOST:PORT")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, logger); err != nil {
		logger.Error("server stopped", "err", err)
		os.Exit(1)
	}
}

// run serves until SIGINT or SIGTERM, then shuts down gracefully within shutdownTimeout.
func run(addr string, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	start := time.Now()
	handler, err := web.New(logger)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
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
	logger.Info("serving Unroll", "url", "http://"+ln.Addr().String()+"/", "startup", time.Since(start).Round(time.Millisecond))

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
