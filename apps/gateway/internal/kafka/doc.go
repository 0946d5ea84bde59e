// Package kafka is the gateway's Kafka side, with franz-go, and the one place
// its Kafka clients are built (client.go: every client starts from one
// ClientOptions value, so connection settings such as TLS or SASL are made
// once). *Cluster implements hub.Backend: topic metadata (meta.go), one live
// consumer per topic in use with partitions assigned directly, no consumer
// group (consume.go), bounded reads for catch-up (read.go), and acks=all
// publishing (produce.go). NewCatalogReader builds the client the catalog
// reads its topic with.
package kafka
