package web

import (
	"errors"
	"syscall"
)

// peerClosed reports whether err is the server closing the connection while the client
// was still sending: Winsock says reset or aborted (there is no EPIPE).
func peerClosed(err error) bool {
	return errors.Is(err, syscall.WSAECONNRESET) || errors.Is(err, syscall.WSAECONNABORTED)
}
