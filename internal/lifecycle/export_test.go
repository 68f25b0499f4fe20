package lifecycle

import "time"

// SetSaveEvery spaces the cursor's saves (tests save after every page).
func (w *Worker) SetSaveEvery(d time.Duration) { w.saveEvery = d }
