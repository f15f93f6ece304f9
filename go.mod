module github.com/difffuzz/difffuzz

go 1.26.0

require (
	github.com/google/gofuzz v1.2.0
	github.com/jstemmer/go-junit-report/v2 v2.1.0
	github.com/leanovate/gopter v0.2.11
	github.com/mattn/go-shellwords v1.0.16
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/stretchr/testify v1.11.1
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
