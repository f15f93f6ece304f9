module github.com/difffuzz/difffuzz/bench/peers

go 1.26.0

require (
	github.com/bytedance/sonic v1.15.5
	github.com/difffuzz/difffuzz v0.0.0
	github.com/goccy/go-json v0.12.0
	github.com/segmentio/encoding v0.5.4
)

require (
	github.com/bytedance/gopkg v0.1.3 // indirect
	github.com/bytedance/sonic/loader v0.5.3 // indirect
	github.com/cloudwego/base64x v0.1.6 // indirect
	github.com/klauspost/cpuid/v2 v2.2.9 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/twitchyliquid64/golang-asm v0.15.1 // indirect
	golang.org/x/arch v0.0.0-20210923205945-b76863e36670 // indirect
	golang.org/x/sys v0.50.0 // indirect
)

replace github.com/difffuzz/difffuzz => ../..
