package objects

// SetMoveHook makes f run between a move's copies and its switch; it
// returns what puts the hook back.
func SetMoveHook(f func()) (restore func()) {
	moveHook = f
	return func() { moveHook = nil }
}
