package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The run-phpt hint names the script where the user can run it: from the checkout's root as
// README types it; elsewhere (a php-src tree, with a difffuzz that is not bin/difffuzz of a
// checkout) as a path in the checkout, said so.
func TestRunPHPTPath(t *testing.T) {
	t.Chdir("..")
	assert.Equal(t, "adapters/php/run-phpt", runPHPT())
	t.Chdir(t.TempDir())
	assert.Equal(t, "DIFFFUZZ/adapters/php/run-phpt (DIFFFUZZ: your difffuzz checkout)", runPHPT())
}
