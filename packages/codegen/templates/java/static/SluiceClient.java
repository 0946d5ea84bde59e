@@HEADER@@
package sluice;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A client for the Sluice wire protocol v1 (WebSocket, subprotocol {@code sluice.v1}) on
 * {@code java.net.http}.
 *
 * <p>One connection at a time. Subscriptions outlive connections: after a drop the client
 * reconnects with exponential backoff and full jitter and re-subscribes each endpoint from the
 * last delivered position, dropping anything at or before it, so a handler sees every message
 * once. A publish is sent once: if the connection drops before its acknowledgement it fails
 * (the outcome is unknown) rather than risk writing the record twice.
 */
public final class SluiceClient implements AutoCloseable {
    public static final String SUBPROTOCOL = "sluice.v1";
    /** The gateway (comma-separated nodes) this client was generated for; SLUICE_GATEWAY_URL overrides it. */
    public static final String DEFAULT_GATEWAY_URL = @@GATEWAY_URL@@;

    // Error codes of PROTOCOL.md ("Errors"), plus client-side ones (>= 6000).
    public static final int BAD_FRAME = 4000, UNAUTHENTICATED = 4001, FORBIDDEN = 4003, NOT_FOUND = 4004,
            NOT_ALLOWED = 4005, TOKEN_EXPIRED = 4008, REVOKED = 4009, INVALID_PAYLOAD = 4022,
            TOO_MANY_SUBSCRIPTIONS = 4029, ALREADY_SUBSCRIBED = 4090, INTERNAL = 5000, UNAVAILABLE = 5003, PUBLISH_UNCONFIRMED = 5004,
            TIMEOUT = 6001, DISCONNECTED = 6002, CLOSED = 6003,
            /** The first connection could be made to none of the gateway URLs. */
            UNREACHABLE = 6004;

    /** An error from the gateway (code as in PROTOCOL.md) or from this client (codes >= 6000). */
    public static final class SluiceException extends Exception {
        private static final long serialVersionUID = 1L;
        public final int code;
        public final String endpoint;
        /** The message without the code. */
        public final String detail;

        public SluiceException(int code, String message, String endpoint) {
            super(message + " (code " + code + ")");
            this.code = code;
            this.detail = message;
            this.endpoint = endpoint;
        }
    }

    /** Where a message lives in Kafka; subscribe from it to resume right after it. */
    public record Position(String epoch, int partition, long seq) {
        public Map<String, Object> toJson() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("epoch", epoch);
            m.put("partition", partition);
            m.put("seq", seq);
            return m;
        }
    }

    /**
     * One delivered message. {@code data} is the JSON value (Map, List, String, Number, Boolean,
     * null), or a {@code byte[]} when it travelled base64-encoded ({@code encoding} "base64");
     * {@code rawData} is the payload exactly as it travelled.
     */
    public record Message(String endpoint, String key, Object data, Object rawData, String encoding, long ts,
            Position position) {}

    /** Messages with fromSeq <= seq < toSeq will not arrive (reason: retention, epoch, slow_consumer). */
    public record Gap(String endpoint, String epoch, int partition, long fromSeq, long toSeq, String reason) {}

    /** A publish acknowledgement: Kafka stored the record here. */
    public record Ack(String endpoint, String epoch, int partition, long seq) {
        public Map<String, Object> toJson() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("endpoint", endpoint);
            m.put("epoch", epoch);
            m.put("partition", partition);
            m.put("seq", seq);
            return m;
        }
    }

    /** Where a subscription starts. */
    public static final class From {
        final Object value;

        private From(Object value) {
            this.value = value;
        }

        public static From latest() {
            return new From("latest");
        }

        public static From earliest() {
            return new From("earliest");
        }

        public static From time(long epochMillis) {
            return new From(Map.of("time", epochMillis));
        }

        public static From position(Position position) {
            return new From(position.toJson());
        }

        boolean isLatest() {
            return "latest".equals(value);
        }
    }

    /** Options of one subscription. */
    public static final class SubscribeOptions {
        From from = From.latest();
        Consumer<Gap> onGap;

        public SubscribeOptions from(From from) {
            this.from = from;
            return this;
        }

        public SubscribeOptions onGap(Consumer<Gap> onGap) {
            this.onGap = onGap;
            return this;
        }
    }

    /** Options of a client; every setter returns this. */
    public static final class Options {
        String gatewayUrl;
        String token;
        Duration requestTimeout = Duration.ofSeconds(10);
        Duration publishTimeout = Duration.ofSeconds(30);
        Duration pingInterval = Duration.ofSeconds(30);
        Duration firstConnectTimeout = Duration.ofSeconds(30);
        Duration backoffInitial = Duration.ofMillis(500);
        Duration backoffMax = Duration.ofSeconds(30);
        Consumer<String> log = line -> System.err.println("sluice: " + line);

        /**
         * One URL or several nodes separated by commas: the client puts them in a random order of its own, starts
         * at the first and moves to the next after a drop or a failed attempt (so the clients of a node that stops
         * spread over all the others). Default: SLUICE_GATEWAY_URL, then DEFAULT_GATEWAY_URL.
         */
        public Options gatewayUrl(String v) { gatewayUrl = v; return this; }
        /** Default: SLUICE_TOKEN. */
        public Options token(String v) { token = v; return this; }
        public Options requestTimeout(Duration v) { requestTimeout = v; return this; }
        public Options publishTimeout(Duration v) { publishTimeout = v; return this; }
        public Options pingInterval(Duration v) { pingInterval = v; return this; }
        /** Give up when no connection could be made at all within this time. */
        public Options firstConnectTimeout(Duration v) { firstConnectTimeout = v; return this; }
        public Options backoff(Duration initial, Duration max) { backoffInitial = initial; backoffMax = max; return this; }
        /** Status lines (reconnects, gaps); default stderr. */
        public Options log(Consumer<String> v) { log = v; return this; }
    }

    private record CloseInfo(int code, String reason) {}

    /** One WebSocket connection and what waits on it. */
    private final class Conn implements WebSocket.Listener {
        WebSocket ws;
        volatile boolean authenticated;
        final CompletableFuture<CloseInfo> closed = new CompletableFuture<>();
        final Map<String, CompletableFuture<Map<String, Object>>> pending = new ConcurrentHashMap<>();
        private CompletableFuture<?> sendChain = CompletableFuture.completedFuture(null);
        private final StringBuilder partial = new StringBuilder();
        private CloseInfo closing;

        @Override
        public void onOpen(WebSocket ws) {
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                try {
                    dispatch(this, text);
                } catch (RuntimeException e) {
                    options.log.accept("failed to handle a frame: " + e);
                }
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int code, String reason) {
            closed.complete(closing != null ? closing : new CloseInfo(code, reason));
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.complete(closing != null ? closing : new CloseInfo(1006, String.valueOf(error)));
        }

        synchronized CompletableFuture<?> send(String text) {
            sendChain = sendChain.thenCompose(x -> ws.sendText(text, true));
            return sendChain;
        }
    }

    private final Options options;
    private final List<URI> uris; // the gateway nodes
    private int uriIndex; // the one in use; only the connection thread changes it
    private final String token;
    private final HttpClient http;
    private final Object lock = new Object();
    private Conn current; // guarded by lock
    private final Map<String, Subscription> subs = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private final CompletableFuture<Void> first = new CompletableFuture<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private volatile boolean closing;
    private volatile String app;

    private SluiceClient(Options options, List<URI> uris, String token) {
        this.options = options;
        // A random order of its own: starts spread over the nodes, and so do the moves away from a node that stops.
        List<URI> order = new ArrayList<>(uris);
        Collections.shuffle(order, ThreadLocalRandom.current());
        this.uris = List.copyOf(order);
        this.uriIndex = 0;
        this.token = token;
        this.http = HttpClient.newBuilder().connectTimeout(options.requestTimeout).build();
    }

    /** Opens a client with the defaults (SLUICE_TOKEN, SLUICE_GATEWAY_URL) and waits until it is authenticated. */
    public static SluiceClient connect() throws SluiceException {
        return connect(new Options());
    }

    /** Opens a client and waits until it is authenticated. */
    public static SluiceClient connect(Options options) throws SluiceException {
        String token = options.token != null ? options.token : System.getenv("SLUICE_TOKEN");
        if (token == null || token.isEmpty()) {
            throw new SluiceException(UNAUTHENTICATED, "no token: set the environment variable SLUICE_TOKEN to an app token from the Sluice portal", null);
        }
        String url = options.gatewayUrl;
        if (url == null || url.isEmpty()) url = System.getenv("SLUICE_GATEWAY_URL");
        if (url == null || url.isEmpty()) url = DEFAULT_GATEWAY_URL;
        SluiceClient client = new SluiceClient(options, gatewayUris(url), token);
        Thread loop = new Thread(client::run, "sluice-connection");
        loop.setDaemon(true);
        loop.start();
        try {
            client.first.get();
        } catch (ExecutionException e) {
            throw asSluice(e.getCause(), null);
        } catch (InterruptedException e) {
            client.close();
            Thread.currentThread().interrupt();
            throw new SluiceException(CLOSED, "interrupted", null);
        }
        return client;
    }

    /** The app id of the token, once authenticated. */
    public String app() {
        return app;
    }

    /** Completes when the client has ended for good: normally after close(), exceptionally with the error that ended it. */
    public CompletableFuture<Void> done() {
        return done;
    }

    /** Ends the client: subscriptions end, pending calls fail. */
    @Override
    public void close() {
        shutdown(null);
    }

    /**
     * Subscribes to a concrete endpoint path and returns once the gateway acknowledged it. The
     * handler runs on the connection's thread, in order, once per message.
     *
     * @throws SluiceException when the gateway refuses (4003 not permitted, 4004 no such endpoint, ...)
     */
    public Subscription subscribe(String path, Consumer<Message> handler, SubscribeOptions opts) throws SluiceException {
        Paths.Parsed parsed = Paths.parse(path);
        Consumer<Gap> onGap = opts.onGap != null ? opts.onGap : g -> options.log.accept("gap on " + g.endpoint()
                + " partition " + g.partition() + ": seq " + g.fromSeq() + " to " + g.toSeq() + " will not arrive (" + g.reason() + ")");
        Subscription sub = new Subscription(parsed.canonical(), parsed.key(), opts.from, handler, onGap);
        if (done.isDone()) throw new SluiceException(CLOSED, "the client is closed", parsed.canonical());
        if (subs.putIfAbsent(sub.endpoint, sub) != null) {
            throw new SluiceException(ALREADY_SUBSCRIBED, "already subscribed to " + sub.endpoint, sub.endpoint);
        }
        Conn conn;
        synchronized (lock) {
            conn = current;
        }
        if (conn != null && conn.authenticated) sendSubscribe(conn, sub);
        try {
            sub.ready.get();
        } catch (ExecutionException e) {
            throw asSluice(e.getCause(), sub.endpoint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException(CLOSED, "interrupted", sub.endpoint);
        }
        return sub;
    }

    /**
     * Publishes one message (a JSON value: Map, List, String, Number, Boolean, null, or a
     * generated payload; a byte[] is sent base64-encoded) and returns where Kafka stored it.
     * Waits for a connection up to the publish timeout.
     *
     * @throws SluiceException 4022 payload rejected, 4003 not permitted, DISCONNECTED when the
     *     connection dropped before the acknowledgement (the record may or may not be written)
     */
    public Ack publish(String path, Object data) throws SluiceException {
        String endpoint = Paths.parse(path).canonical();
        Map<String, Object> frame = new LinkedHashMap<>();
        frame.put("type", "publish");
        frame.put("endpoint", endpoint);
        if (data instanceof byte[] bytes) {
            frame.put("data", Base64.getEncoder().encodeToString(bytes));
            frame.put("encoding", "base64");
        } else {
            frame.put("data", data);
        }
        long deadline = System.nanoTime() + options.publishTimeout.toNanos();
        Conn conn = connected(endpoint, deadline);
        Map<String, Object> answer = await(request(conn, frame), conn, deadline, endpoint, "publish");
        return new Ack(str(answer.get("endpoint")), str(answer.get("epoch")), (int) num(answer.get("partition")), num(answer.get("seq")));
    }

    private Conn connected(String endpoint, long deadline) throws SluiceException {
        synchronized (lock) {
            while (true) {
                if (done.isDone()) {
                    try {
                        done.getNow(null);
                    } catch (Exception e) {
                        throw asSluice(e.getCause(), endpoint);
                    }
                    throw new SluiceException(CLOSED, "the client is closed", endpoint);
                }
                if (current != null && current.authenticated) return current;
                long left = deadline - System.nanoTime();
                if (left <= 0) throw new SluiceException(TIMEOUT, endpoint + ": not connected in time", endpoint);
                try {
                    lock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SluiceException(CLOSED, "interrupted", endpoint);
                }
            }
        }
    }

    // ---- connection loop ----------------------------------------------------------------

    private record Outcome(boolean authenticated, String reason, SluiceException fatal) {}

    private void run() {
        boolean connectedOnce = false;
        int authFailures = 0;
        int attempt = 0;
        int refused = 0; // first attempts in a row that no node answered (a 502/503/504 from a loading node does not count)
        long firstDeadline = System.nanoTime() + options.firstConnectTimeout.toNanos();
        while (!closing) {
            Outcome o = connection();
            if (closing) return;
            SluiceException fatal = o.fatal();
            refused = o.reason().startsWith("HTTP 5") ? 0 : refused + 1;
            if (o.authenticated()) {
                connectedOnce = true;
                authFailures = 0;
                attempt = 0;
            } else if (fatal != null && fatal.code == UNAUTHENTICATED && connectedOnce && authFailures < 2) {
                // The token worked before: a node that just started may not know its key yet.
                authFailures++;
                fatal = null;
            }
            if (fatal != null) {
                shutdown(fatal);
                return;
            }
            if (!connectedOnce && (refused >= uris.size() || System.nanoTime() > firstDeadline)) {
                StringBuilder tried = new StringBuilder();
                for (URI u : uris) tried.append(tried.length() == 0 ? "" : ", ").append(u);
                shutdown(new SluiceException(UNREACHABLE, "no gateway reachable (" + tried + "): " + o.reason(), null));
                return;
            }
            // Whatever ended this connection may end the next attempt at the same node too
            // (it died, or is shutting down): try the next one.
            uriIndex = (uriIndex + 1) % uris.size();
            // Exponential backoff with full jitter: uniform in [0, min(max, initial * 2^attempt)).
            double cap = Math.min(options.backoffMax.toMillis(), options.backoffInitial.toMillis() * Math.pow(2, attempt));
            attempt++;
            long delay = (long) (ThreadLocalRandom.current().nextDouble() * cap);
            options.log.accept(String.format("disconnected (%s); reconnecting to %s in %.1f s", o.reason(), uris.get(uriIndex), delay / 1000.0));
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private Outcome connection() {
        Conn conn = new Conn();
        try {
            conn.ws = http.newWebSocketBuilder()
                    .subprotocols(SUBPROTOCOL)
                    .connectTimeout(options.requestTimeout)
                    .buildAsync(uris.get(uriIndex), conn)
                    .get(options.requestTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof WebSocketHandshakeException h) {
                int status = h.getResponse().statusCode();
                if (status == 502 || status == 503 || status == 504) {
                    return new Outcome(false, "HTTP " + status, null); // a node still loading its catalog
                }
                Object body = h.getResponse().body();
                return new Outcome(false, "HTTP " + status, new SluiceException(DISCONNECTED,
                        "the gateway refused the WebSocket upgrade with HTTP " + status + (body instanceof byte[] b ? " " + new String(b, StandardCharsets.UTF_8) : ""), null));
            }
            return new Outcome(false, String.valueOf(cause), null);
        } catch (TimeoutException e) {
            return new Outcome(false, "connect timeout", null);
        } catch (InterruptedException e) {
            return new Outcome(false, "interrupted", null);
        }
        synchronized (lock) {
            current = conn;
        }
        boolean authenticated = false;
        SluiceException fatal = null;
        CloseInfo end = null;
        try {
            Map<String, Object> auth = new LinkedHashMap<>();
            auth.put("type", "auth");
            auth.put("token", token);
            long deadline = System.nanoTime() + options.requestTimeout.toNanos();
            Map<String, Object> answer = await(request(conn, auth), conn, deadline, null, "auth");
            app = str(answer.get("app"));
            authenticated = true;
            synchronized (lock) {
                conn.authenticated = true;
                lock.notifyAll();
            }
            first.complete(null);
            for (Subscription sub : new ArrayList<>(subs.values())) sendSubscribe(conn, sub);
            while (end == null) {
                try {
                    end = conn.closed.get(options.pingInterval.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // The gateway's WebSocket pings keep the socket open; this one finds a dead
                    // connection that the operating system has not noticed yet.
                    Map<String, Object> ping = new HashMap<>();
                    ping.put("type", "ping");
                    try {
                        await(request(conn, ping), conn, System.nanoTime() + options.requestTimeout.toNanos(), null, "ping");
                    } catch (SluiceException pe) {
                        if (pe.code == TIMEOUT) {
                            options.log.accept("no pong: the connection is dead");
                            conn.ws.abort();
                            end = new CloseInfo(1006, "no pong");
                        }
                    }
                }
            }
        } catch (SluiceException e) {
            if (e.code == UNAUTHENTICATED || e.code == TOKEN_EXPIRED || e.code == REVOKED) fatal = e;
            end = conn.closed.getNow(new CloseInfo(1006, e.getMessage()));
        } catch (ExecutionException | InterruptedException e) {
            end = new CloseInfo(1006, String.valueOf(e));
        } finally {
            synchronized (lock) {
                if (current == conn) current = null;
                conn.authenticated = false;
                lock.notifyAll();
            }
            if (!conn.ws.isOutputClosed()) conn.ws.sendClose(WebSocket.NORMAL_CLOSURE, "");
            conn.ws.abort();
            conn.closed.complete(new CloseInfo(1006, "closed"));
            failInFlight(conn);
        }
        if (fatal == null) {
            if (end.code() == REVOKED) fatal = new SluiceException(REVOKED, "token revoked: " + end.reason() + "; a new token is needed", null);
            else if (end.code() == TOKEN_EXPIRED) fatal = new SluiceException(TOKEN_EXPIRED, "token expired: set SLUICE_TOKEN to a new token", null);
            else if (end.code() == UNAUTHENTICATED) fatal = new SluiceException(UNAUTHENTICATED, "not authenticated: " + end.reason(), null);
        }
        return new Outcome(authenticated, (end.code() + " " + end.reason()).trim(), fatal);
    }

    /** Waits for an answer, the end of the connection, or the deadline. */
    private Map<String, Object> await(CompletableFuture<Map<String, Object>> answer, Conn conn, long deadline,
            String endpoint, String what) throws SluiceException {
        try {
            CompletableFuture.anyOf(answer, conn.closed).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new SluiceException(TIMEOUT, what + ": no answer in time", endpoint);
        } catch (ExecutionException e) {
            // handled below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException(CLOSED, "interrupted", endpoint);
        }
        if (!answer.isDone()) {
            throw new SluiceException(DISCONNECTED, "connection lost before the answer to " + what
                    + ("publish".equals(what) ? ": the record may or may not have been written" : ""), endpoint);
        }
        try {
            return answer.get();
        } catch (ExecutionException e) {
            throw asSluice(e.getCause(), endpoint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException(CLOSED, "interrupted", endpoint);
        }
    }

    private CompletableFuture<Map<String, Object>> request(Conn conn, Map<String, Object> frame) {
        String id = Long.toString(nextId.incrementAndGet());
        CompletableFuture<Map<String, Object>> answer = new CompletableFuture<>();
        conn.pending.put(id, answer);
        Map<String, Object> withId = new LinkedHashMap<>(frame);
        withId.put("id", id);
        String text;
        try {
            text = Json.write(withId);
        } catch (IllegalArgumentException e) {
            conn.pending.remove(id);
            answer.completeExceptionally(new SluiceException(BAD_FRAME, "not JSON: " + e.getMessage(), str(frame.get("endpoint"))));
            return answer;
        }
        conn.send(text).whenComplete((ok, err) -> {
            if (err != null && conn.pending.remove(id) != null) {
                answer.completeExceptionally(new SluiceException(DISCONNECTED, "connection lost before " + frame.get("type") + " was sent", str(frame.get("endpoint"))));
            }
        });
        if (conn.closed.isDone()) failInFlight(conn);
        return answer;
    }

    private void failInFlight(Conn conn) {
        for (String id : new ArrayList<>(conn.pending.keySet())) {
            CompletableFuture<Map<String, Object>> f = conn.pending.remove(id);
            if (f != null) f.completeExceptionally(new SluiceException(DISCONNECTED, "connection lost before the answer: a publish may or may not have been written", null));
        }
    }

    @SuppressWarnings("unchecked")
    private void dispatch(Conn conn, String text) {
        Object parsed;
        try {
            parsed = Json.parse(text);
        } catch (Json.ParseException e) {
            options.log.accept("ignored a frame that is not JSON: " + e.getMessage());
            return;
        }
        if (!(parsed instanceof Map)) return;
        Map<String, Object> frame = (Map<String, Object>) parsed;
        String type = str(frame.get("type"));
        String endpoint = str(frame.get("endpoint"));
        String id = str(frame.get("id"));
        switch (type) {
            case "message" -> {
                Subscription sub = subs.get(endpoint);
                if (sub != null) sub.handleMessage(frame);
            }
            case "gap" -> {
                Subscription sub = subs.get(endpoint);
                if (sub != null) {
                    Gap gap = new Gap(endpoint, str(frame.get("epoch")), (int) num(frame.get("partition")),
                            num(frame.get("from_seq")), num(frame.get("to_seq")), str(frame.get("reason")));
                    try {
                        sub.onGap.accept(gap);
                    } catch (RuntimeException e) {
                        options.log.accept("gap handler failed: " + e);
                    }
                }
            }
            case "closing" -> conn.closing = new CloseInfo((int) num(frame.get("code")), str(frame.get("reason")));
            default -> {
                if ("unsubscribed".equals(type) && id.isEmpty()) {
                    Subscription sub = subs.remove(endpoint);
                    if (sub != null) {
                        int code = frame.get("code") == null ? NOT_FOUND : (int) num(frame.get("code"));
                        sub.end(new SluiceException(code, "subscription ended by the gateway: " + str(frame.get("reason")), endpoint));
                    }
                    return;
                }
                CompletableFuture<Map<String, Object>> answer = conn.pending.remove(id);
                if (answer == null) {
                    if ("error".equals(type)) options.log.accept("gateway error " + frame.get("code") + ": " + frame.get("message"));
                    return;
                }
                if ("error".equals(type)) {
                    answer.completeExceptionally(new SluiceException((int) num(frame.get("code")), str(frame.get("message")), endpoint.isEmpty() ? null : endpoint));
                } else {
                    answer.complete(frame);
                }
            }
        }
    }

    private void sendSubscribe(Conn conn, Subscription sub) {
        Map<String, Object> frame = new LinkedHashMap<>();
        frame.put("type", "subscribe");
        frame.put("endpoint", sub.endpoint);
        Object from = sub.resumeFrom();
        if (from != null) frame.put("from", from);
        request(conn, frame).whenComplete((answer, err) -> {
            if (subs.get(sub.endpoint) != sub) return;
            if (err == null) {
                sub.handleSubscribed(answer);
                return;
            }
            SluiceException e = asSluice(err instanceof java.util.concurrent.CompletionException ? err.getCause() : err, sub.endpoint);
            if (conn.closed.isDone() || e.code == DISCONNECTED) return; // the next connection subscribes again
            boolean notFoundOnResume;
            int retries;
            synchronized (sub) {
                notFoundOnResume = e.code == NOT_FOUND && sub.acks > 0 && sub.notFoundRetries < 3;
                if (notFoundOnResume) sub.notFoundRetries++;
                retries = sub.notFoundRetries;
            }
            if (e.code == INTERNAL || e.code == UNAVAILABLE || e.code == TIMEOUT || notFoundOnResume) {
                // Transient (Kafka unavailable, a node still loading): try again on this connection.
                options.log.accept("subscribe " + sub.endpoint + " failed (" + e.getMessage() + "); retrying");
                CompletableFuture.delayedExecutor(500L << retries, TimeUnit.MILLISECONDS).execute(() -> {
                    if (!conn.closed.isDone() && subs.get(sub.endpoint) == sub) sendSubscribe(conn, sub);
                });
                return;
            }
            subs.remove(sub.endpoint, sub);
            sub.end(e);
        });
    }

    private void shutdown(SluiceException error) {
        Conn conn;
        synchronized (lock) {
            if (closing && done.isDone()) return;
            closing = true;
            conn = current;
            lock.notifyAll();
        }
        if (conn != null) {
            try {
                conn.ws.sendClose(WebSocket.NORMAL_CLOSURE, "client closed").get(1, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // closing anyway
            }
            conn.ws.abort();
            conn.closed.complete(new CloseInfo(1000, "client closed"));
        }
        for (Subscription sub : new ArrayList<>(subs.values())) sub.end(error);
        subs.clear();
        SluiceException reason = error != null ? error : new SluiceException(CLOSED, "the client was closed", null);
        first.completeExceptionally(reason);
        if (error != null) done.completeExceptionally(error);
        else done.complete(null);
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    static SluiceException asSluice(Throwable t, String endpoint) {
        if (t instanceof SluiceException s) return s;
        return new SluiceException(INTERNAL, String.valueOf(t), endpoint);
    }

    static String str(Object v) {
        return v instanceof String s ? s : "";
    }

    static long num(Object v) {
        return v instanceof Number n ? n.longValue() : 0;
    }

    /** A comma-separated list of gateway URLs (SLUICE_GATEWAY_URL's form) as WebSocket URIs. */
    public static List<URI> gatewayUris(String list) throws SluiceException {
        List<URI> uris = new ArrayList<>();
        for (String part : list.split(",")) {
            if (!part.isBlank()) uris.add(URI.create(webSocketUrl(part)));
        }
        if (uris.isEmpty()) throw new SluiceException(BAD_FRAME, "SLUICE_GATEWAY_URL holds no gateway URL: " + list, null);
        return List.copyOf(uris);
    }

    /** http(s)://host[:port][/base] becomes ws(s)://host[:port][/base]/ws (a ws(s):// URL is taken as is). */
    public static String webSocketUrl(String gatewayUrl) throws SluiceException {
        String u = gatewayUrl.trim();
        while (u.endsWith("/")) u = u.substring(0, u.length() - 1);
        if (u.startsWith("ws://") || u.startsWith("wss://")) return u;
        if (u.startsWith("https://")) return "wss://" + u.substring(8) + "/ws";
        if (u.startsWith("http://")) return "ws://" + u.substring(7) + "/ws";
        throw new SluiceException(BAD_FRAME, "SLUICE_GATEWAY_URL must start with http://, https://, ws:// or wss://: " + gatewayUrl, null);
    }

    // ---- subscriptions ---------------------------------------------------------------------

    /** A subscription to one endpoint; it is restored after every reconnect from the last delivered message. */
    public final class Subscription {
        /** The canonical endpoint path. */
        public final String endpoint;
        /** The decoded Kafka record key. */
        public final String key;
        private final From from;
        private final long createdMillis = System.currentTimeMillis();
        private final Consumer<Message> handler;
        final Consumer<Gap> onGap;
        private String epoch;
        private final Map<Integer, Long> lastSeq = new HashMap<>(); // highest seq per partition in epoch
        private Position position;
        private boolean sent;
        int acks;
        int notFoundRetries;
        private int duplicates;
        final CompletableFuture<Void> ready = new CompletableFuture<>();
        private final CompletableFuture<Void> ended = new CompletableFuture<>();

        Subscription(String endpoint, String key, From from, Consumer<Message> handler, Consumer<Gap> onGap) {
            this.endpoint = endpoint;
            this.key = key;
            this.from = from;
            this.handler = handler;
            this.onGap = onGap;
        }

        /**
         * Where the subscription stands: the position of the last delivered message or, before
         * any, the start the gateway acknowledged (subscribed.seq); null before the first
         * acknowledgement. Resuming from it loses nothing.
         */
        public synchronized Position position() {
            return position;
        }

        /** How many messages were dropped as already delivered (overlap after a resume). */
        public synchronized int duplicatesDropped() {
            return duplicates;
        }

        /** Completes when the subscription ends: normally after unsubscribe(), exceptionally with the error that ended it. */
        public CompletableFuture<Void> ended() {
            return ended;
        }

        /** Ends the subscription. */
        public void unsubscribe() throws SluiceException {
            subs.remove(endpoint, this);
            boolean wasSent;
            synchronized (this) {
                wasSent = sent;
            }
            end(null);
            Conn conn;
            synchronized (lock) {
                conn = current;
            }
            if (conn == null || !conn.authenticated || !wasSent) return;
            Map<String, Object> frame = new LinkedHashMap<>();
            frame.put("type", "unsubscribe");
            frame.put("endpoint", endpoint);
            try {
                await(request(conn, frame), conn, System.nanoTime() + options.requestTimeout.toNanos(), endpoint, "unsubscribe");
            } catch (SluiceException e) {
                if (e.code != NOT_FOUND && e.code != DISCONNECTED) throw e;
            }
        }

        /**
         * After a message: right after it. Before any: right after the acknowledged start
         * (subscribed.seq). From a gateway that sends no seq: the original start, except
         * "latest", whose start moved on while disconnected: then the subscribe time.
         */
        synchronized Object resumeFrom() {
            boolean wasSent = sent;
            sent = true;
            if (position != null) return position.toJson();
            if (from.isLatest()) return wasSent ? Map.of("time", createdMillis) : null;
            return from.value;
        }

        synchronized void handleSubscribed(Map<String, Object> answer) {
            String newEpoch = str(answer.get("epoch"));
            int partition = (int) num(answer.get("partition"));
            if (epoch != null && !epoch.equals(newEpoch)) lastSeq.clear();
            epoch = newEpoch;
            // A resume is acknowledged with the position it asked for; only a start in
            // another epoch or partition (the topic was recreated) replaces it.
            if (answer.get("seq") instanceof Number seq
                    && (position == null || !position.epoch().equals(newEpoch) || position.partition() != partition)) {
                position = new Position(newEpoch, partition, seq.longValue());
            }
            acks++;
            notFoundRetries = 0;
            ready.complete(null);
        }

        void handleMessage(Map<String, Object> frame) {
            Message message;
            synchronized (this) {
                if (ended.isDone()) return;
                String e = str(frame.get("epoch"));
                int partition = (int) num(frame.get("partition"));
                long seq = num(frame.get("seq"));
                if (!e.equals(epoch)) {
                    lastSeq.clear(); // the topic was recreated: seqs restart
                    epoch = e;
                }
                Long last = lastSeq.get(partition);
                if (last != null && seq <= last) {
                    duplicates++;
                    return;
                }
                lastSeq.put(partition, seq);
                position = new Position(e, partition, seq);
                Object raw = frame.get("data");
                String encoding = frame.get("encoding") instanceof String s ? s : null;
                Object data = "base64".equals(encoding) && raw instanceof String s ? Base64.getDecoder().decode(s) : raw;
                message = new Message(endpoint, key, data, raw, encoding, num(frame.get("ts")), position);
            }
            try {
                handler.accept(message);
            } catch (RuntimeException ex) {
                options.log.accept("handler for " + endpoint + " failed: " + ex);
            }
        }

        void end(SluiceException error) {
            if (error != null) {
                ready.completeExceptionally(error);
                ended.completeExceptionally(error);
            } else {
                ready.completeExceptionally(new SluiceException(CLOSED, "the subscription ended", endpoint));
                ended.complete(null);
            }
        }
    }

    /** Endpoint paths (PROTOCOL.md, "Endpoints and paths"). */
    public static final class Paths {
        private Paths() {}

        /** A parsed path: canonical form, topic, decoded key. */
        public record Parsed(String canonical, String topic, String key) {}

        public static Parsed parse(String raw) throws SluiceException {
            if (!raw.startsWith("/")) throw bad("\"" + raw + "\" must start with /");
            String[] segments = raw.substring(1).split("/", -1);
            if (segments.length < 2) throw bad("\"" + raw + "\" needs a topic and a key (/topic/key)");
            List<String> decoded = new ArrayList<>();
            for (int i = 0; i < segments.length; i++) {
                String d = decode(segments[i]);
                if (d == null) throw bad("segment " + (i + 1) + " of \"" + raw + "\" is not valid percent-encoded UTF-8");
                if (d.isEmpty()) throw bad("\"" + raw + "\" has an empty segment");
                if (d.contains("/")) throw bad("segment " + (i + 1) + " of \"" + raw + "\" encodes a '/'");
                decoded.add(d);
            }
            String topic = decoded.get(0);
            if (topic.length() > 249 || topic.equals(".") || topic.equals("..") || !topic.matches("[A-Za-z0-9._-]+")) {
                throw bad("topic \"" + topic + "\" is not a valid Kafka topic name (A-Z a-z 0-9 . _ -)");
            }
            List<String> keySegments = decoded.subList(1, decoded.size());
            String key = String.join("/", keySegments);
            if (key.getBytes(StandardCharsets.UTF_8).length > 1024) throw bad("key is longer than 1024 bytes");
            for (int i = 0; i < key.length(); i++) {
                char c = key.charAt(i);
                if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) throw bad("key holds a control character");
            }
            StringBuilder canonical = new StringBuilder("/").append(topic);
            for (String s : keySegments) canonical.append('/').append(escapeSegment(s));
            return new Parsed(canonical.toString(), topic, key);
        }

        /** Percent-encodes one segment's UTF-8 bytes, keeping A-Z a-z 0-9 - . _ ~. */
        public static String escapeSegment(String segment) {
            StringBuilder out = new StringBuilder();
            for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
                int c = b & 0xff;
                if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
                    out.append((char) c);
                } else {
                    out.append('%').append(String.format("%02X", c));
                }
            }
            return out.toString();
        }

        /** prefix + "/" + key for a parameterised endpoint; a key may contain '/'. */
        public static String keyPath(String prefix, String key) {
            StringBuilder out = new StringBuilder(prefix);
            for (String s : key.split("/", -1)) out.append('/').append(escapeSegment(s));
            return out.toString();
        }

        private static String decode(String segment) {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            int i = 0;
            while (i < segment.length()) {
                int next = segment.indexOf('%', i);
                if (next < 0) next = segment.length();
                bytes.writeBytes(segment.substring(i, next).getBytes(StandardCharsets.UTF_8));
                if (next == segment.length()) break;
                if (next + 2 >= segment.length()) return null;
                try {
                    bytes.write(Integer.parseInt(segment.substring(next + 1, next + 3), 16));
                } catch (NumberFormatException e) {
                    return null;
                }
                i = next + 3;
            }
            try {
                return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes.toByteArray())).toString();
            } catch (java.nio.charset.CharacterCodingException e) {
                return null;
            }
        }

        private static SluiceException bad(String message) {
            return new SluiceException(BAD_FRAME, "endpoint: " + message, null);
        }
    }
}
