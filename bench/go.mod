module github.com/sluicehq/sluice/bench

go 1.26.0

require (
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/gorilla/websocket v1.5.3
	github.com/twmb/franz-go v1.22.2
	github.com/twmb/franz-go/pkg/kadm v1.19.0
)

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/twmb/franz-go/pkg/kmsg v1.15.0 // indirect
)

require github.com/sluicehq/sluice/apps/gateway v0.0.0

// The gateway's own Kafka settings (apps/gateway/kafkaenv), from this repository.
replace github.com/sluicehq/sluice/apps/gateway => ../apps/gateway
