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
 *   java -cp build sluice.Main subscribe &lt;path&gt; [--from earliest|latest|&lt;ms since epoch&gt;]
 *   java -cp build sluice.Main publish &lt;path&gt; '&lt;json&gt;'
 * </pre>
 *
 * SLUICE_TOKEN (required) is the app token; SLUICE_GATEWAY_URL overrides the gateway.
 */
public final class Main {
    private static final String USAGE = "usage:\n"
            + "  java -cp build sluice.Main subscribe <path> [--from earliest|latest|<ms since epoch>]\n"
            + "  java -cp build sluice.Main publish <path> '<json>'";
    private static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
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
            System.err.println("sluice: " + e.getMessage());
            return 1;
        }
    }

    private static int usage() {
        System.err.println(USAGE);
        return 2;
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
        try (SluiceClient client = SluiceClient.connect()) {
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
                return 130;
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
        try (SluiceClient client = SluiceClient.connect()) {
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
