//go:build !windows

package web

import (
	"errors"
	"syscall"
)

// peerClosed reports whether err is the server closing the connection while the client
// was still sending: a broken pipe or a reset.
func peerClosed(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}
