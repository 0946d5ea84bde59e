@@HEADER@@
package sluice;

import java.nio.charset.StandardCharsets;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * Command line: subscribe to or publish on an endpoint of @@TITLE@@.
 *
 * <pre>
 *   java -cp build sluice.Main [--gateway &lt;url&gt;[,&lt;url&gt;...]] subscribe &lt;path&gt; [--from earliest|latest|&lt;ms since epoch&gt;]
 *   java -cp build sluice.Main [--gateway &lt;url&gt;[,&lt;url&gt;...]] publish &lt;path&gt; '&lt;json&gt;'
 * </pre>
 *
 * SLUICE_TOKEN (required) is the app token; SLUICE_GATEWAY_URL (or --gateway) overrides the gateway: one URL or
 * several nodes separated by commas. Exit codes: 0 done, 1 error, 2 usage, 3 no token or token refused,
 * 4 token expired, 5 token revoked, 6 no gateway reachable.
 */
public final class Main {
    private static final String USAGE = "usage:\n"
            + "  java -cp build sluice.Main [--gateway <url>[,<url>...]] subscribe <path> [--from earliest|latest|<ms since epoch>]\n"
            + "  java -cp build sluice.Main [--gateway <url>[,<url>...]] publish <path> '<json>'";
    // Exit codes shared by every generated client (codegen README, "Exit codes").
    static final int EXIT_ERROR = 1, EXIT_USAGE = 2, EXIT_TOKEN_REFUSED = 3, EXIT_TOKEN_EXPIRED = 4, EXIT_TOKEN_REVOKED = 5,
            EXIT_NO_GATEWAY = 6, EXIT_INTERRUPTED = 130;
    private static String gatewayFlag; // --gateway, over SLUICE_GATEWAY_URL
    private static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        if (args.length >= 2 && args[0].equals("--gateway")) {
            gatewayFlag = args[1];
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
        }
        try {
            if (args.length >= 2 && args[0].equals("subscribe")) {
                SluiceClient.From from = SluiceClient.From.latest();
                if (args.length == 4 && args[2].equals("--from")) from = parseFrom(args[3]);
                else if (args.length != 2) return usage();
                return subscribe(args[1], from);
            }
            if (args.length == 3 && args[0].equals("publish")) return publish(args[1], args[2]);
            return usage();
        } catch (SluiceClient.SluiceException e) {
            return end(e);
        } catch (RuntimeException e) {
            // A bug or an unexpected failure: still one line, never a stack trace.
            System.err.println("sluice: unexpected error: " + e);
            return EXIT_ERROR;
        }
    }

    /** Prints the one line that ends the program after e and returns its exit code. */
    static int end(SluiceClient.SluiceException e) {
        int exit;
        String line;
        switch (e.code) {
            case SluiceClient.REVOKED -> {
                exit = EXIT_TOKEN_REVOKED;
                line = "token revoked (4009): mint a new token in the portal";
            }
            case SluiceClient.TOKEN_EXPIRED -> {
                exit = EXIT_TOKEN_EXPIRED;
                line = "token expired (4008): mint a new token in the portal";
            }
            case SluiceClient.UNAUTHENTICATED -> {
                exit = EXIT_TOKEN_REFUSED;
                String token = System.getenv("SLUICE_TOKEN");
                line = token == null || token.isEmpty()
                        ? "no token: set SLUICE_TOKEN to an app token from the portal"
                        : "token refused (4001): " + e.detail;
            }
            case SluiceClient.UNREACHABLE -> {
                exit = EXIT_NO_GATEWAY;
                line = e.detail;
            }
            default -> {
                exit = EXIT_ERROR;
                line = e.getMessage();
            }
        }
        System.err.println("sluice: " + line);
        return exit;
    }

    private static SluiceClient connect() throws SluiceClient.SluiceException {
        SluiceClient.Options options = new SluiceClient.Options();
        if (gatewayFlag != null) options.gatewayUrl(gatewayFlag);
        return SluiceClient.connect(options);
    }

    private static int usage() {
        System.err.println(USAGE);
        return EXIT_USAGE;
    }

    private static SluiceClient.From parseFrom(String v) throws SluiceClient.SluiceException {
        if (v.equals("earliest")) return SluiceClient.From.earliest();
        if (v.equals("latest")) return SluiceClient.From.latest();
        try {
            return SluiceClient.From.time(Long.parseLong(v));
        } catch (NumberFormatException e) {
            throw new SluiceClient.SluiceException(4000, "--from must be earliest, latest or a time in ms since the epoch, not \"" + v + "\"", null);
        }
    }

    private static synchronized void println(Object value) {
        OUT.println(Json.write(value));
        OUT.flush();
    }

    /** The channel serving a concrete path: an exact endpoint first, then its topic's parameterised one. */
    static Api.Channel findChannel(SluiceClient.Paths.Parsed parsed) throws SluiceClient.SluiceException {
        for (Api.Channel ch : Api.CHANNELS) {
            if (ch.key() != null && SluiceClient.Paths.parse(ch.address()).canonical().equals(parsed.canonical())) return ch;
        }
        for (Api.Channel ch : Api.CHANNELS) {
            if (ch.key() == null && ch.topic().equals(parsed.topic())) return ch;
        }
        return null;
    }

    private static int subscribe(String path, SluiceClient.From from) throws SluiceClient.SluiceException {
        SluiceClient.Paths.Parsed parsed = SluiceClient.Paths.parse(path);
        try (SluiceClient client = connect()) {
            SluiceClient.SubscribeOptions options = new SluiceClient.SubscribeOptions().from(from);
            java.util.function.Consumer<SluiceClient.Message> handler = m -> {
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("endpoint", m.endpoint());
                line.put("partition", m.position().partition());
                line.put("seq", m.position().seq());
                line.put("epoch", m.position().epoch());
                line.put("key", m.key());
                line.put("data", m.rawData());
                if (m.encoding() != null) line.put("encoding", m.encoding());
                line.put("ts", m.ts());
                println(line);
            };
            Api.Channel channel = findChannel(parsed);
            SluiceClient.Subscription sub;
            if (channel != null && channel.subscribe() != null) {
                sub = channel.subscribe().subscribe(client, parsed.key(), handler, options);
            } else {
                System.err.println("sluice: " + path + " is not a subscribable endpoint of this API; trying anyway");
                sub = client.subscribe(path, handler, options);
            }
            println(Map.of("subscribed", sub.endpoint));
            try {
                java.util.concurrent.CompletableFuture.anyOf(sub.ended(), client.done()).get();
            } catch (ExecutionException e) {
                throw SluiceClient.asSluice(e.getCause(), sub.endpoint);
            } catch (InterruptedException e) {
                return EXIT_INTERRUPTED;
            }
        }
        return 0;
    }

    private static int publish(String path, String text) throws SluiceClient.SluiceException {
        Object data;
        try {
            data = Json.parse(text);
        } catch (Json.ParseException e) {
            System.err.println("sluice: the message is not JSON: " + e.getMessage());
            return 2;
        }
        SluiceClient.Paths.Parsed parsed = SluiceClient.Paths.parse(path);
        try (SluiceClient client = connect()) {
            Api.Channel channel = findChannel(parsed);
            SluiceClient.Ack ack;
            if (channel != null && channel.publish() != null) {
                ack = channel.publish().publish(client, parsed.key(), data);
            } else {
                System.err.println("sluice: " + path + " is not a publishable endpoint of this API; trying anyway");
                ack = client.publish(path, data);
            }
            println(ack.toJson());
        }
        return 0;
    }
}
