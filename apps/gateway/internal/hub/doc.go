// Package hub routes Kafka records to subscriptions: one live consumer per topic
// in use, records matched by key to the endpoint's subscribers, each frame encoded
// once and shared, and catch-up reads (from the endpoint cache, else from Kafka)
// for subscriptions that start at a position, a time or the earliest offset.
//
// Its locks (Hub.topicsMu, shard.mu, endpointState.mu, Subscription.mu,
// Hub.readersMu) have one order with the edge's, written down in package
// lockorder, which also says what a Sink may do while the hub's locks are held:
// more than enqueue, since a WebSocket writes its queue there with a
// non-blocking writev(2).
package hub
