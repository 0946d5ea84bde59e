// Package kafka is the gateway's Kafka side, with franz-go, and the one place
// its Kafka clients are built (client.go: every client starts from one
// ClientOptions value, so connection settings are made once — security.go:
// TLS around the broker dialer and a SASL mechanism, oauth.go's
// client-credentials tokens for OAUTHBEARER, explain.go naming the setting
// behind a TLS or SASL failure). *Cluster implements hub.Backend: topic
// metadata (meta.go), one live consumer per topic in use with partitions
// assigned directly, no consumer group (consume.go), bounded reads for
// catch-up (read.go), and acks=all publishing (produce.go). NewCatalogReader
// builds the client the catalog reads its topic with.
package kafka
