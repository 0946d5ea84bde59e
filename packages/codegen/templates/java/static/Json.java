@@HEADER@@
package sluice;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer, so that the client builds with {@code javac} alone.
 * Values are {@code Map<String, Object>} (insertion-ordered), {@code List<Object>},
 * {@code String}, {@code Long} or {@code BigInteger} (integers), {@code BigDecimal}
 * (other numbers), {@code Boolean} and {@code null}.
 */
public final class Json {
    private Json() {}

    /** Thrown for text that is not JSON. */
    public static final class ParseException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ParseException(String message, int at) {
            super(message + " at offset " + at);
        }
    }

    /** Parses one JSON value; the whole text must be that value (surrounding whitespace allowed). */
    public static Object parse(String text) {
        Reader r = new Reader(text);
        r.skipSpace();
        Object value = r.value(0);
        r.skipSpace();
        if (r.pos != text.length()) throw new ParseException("unexpected text after the value", r.pos);
        return value;
    }

    /** Writes a value as compact JSON. Maps, lists, arrays, strings, numbers, booleans and null. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            quote(s, out);
        } else if (value instanceof Boolean b) {
            out.append(b.booleanValue());
        } else if (value instanceof Double d && (d.isNaN() || d.isInfinite())
                || value instanceof Float f && (f.isNaN() || f.isInfinite())) {
            throw new IllegalArgumentException("JSON has no NaN or Infinity");
        } else if (value instanceof Number n) {
            out.append(n instanceof BigDecimal bd ? bd.toString() : n.toString());
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!first) out.append(',');
                first = false;
                quote(String.valueOf(e.getKey()), out);
                out.append(':');
                write(e.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof Iterable<?> list) {
            out.append('[');
            boolean first = true;
            for (Object item : list) {
                if (!first) out.append(',');
                first = false;
                write(item, out);
            }
            out.append(']');
        } else if (value instanceof Object[] array) {
            write(java.util.Arrays.asList(array), out);
        } else if (value instanceof JsonValue v) {
            write(v.toJson(), out);
        } else {
            throw new IllegalArgumentException("cannot write a " + value.getClass().getName() + " as JSON");
        }
    }

    // ---- conversions used by the generated payload types: null when the value does not fit ----

    public static String asString(Object v) {
        return v instanceof String s ? s : null;
    }

    public static Long asLong(Object v) {
        if (v instanceof Long l) return l;
        if (v instanceof Number n) {
            try {
                return new BigDecimal(n.toString()).longValueExact();
            } catch (ArithmeticException | NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    public static Double asDouble(Object v) {
        return v instanceof Number n ? n.doubleValue() : null;
    }

    public static Boolean asBoolean(Object v) {
        return v instanceof Boolean b ? b : null;
    }

    public static <T> List<T> asList(Object v, java.util.function.Function<Object, T> item) {
        if (!(v instanceof List<?> list)) return null;
        List<T> out = new ArrayList<>(list.size());
        for (Object o : list) out.add(item.apply(o));
        return out;
    }

    public static <T> Map<String, T> asMap(Object v, java.util.function.Function<Object, T> value) {
        if (!(v instanceof Map<?, ?> map)) return null;
        Map<String, T> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) out.put(String.valueOf(e.getKey()), value.apply(e.getValue()));
        return out;
    }

    /** A type that knows its JSON form (generated payload types implement it). */
    public interface JsonValue {
        Object toJson();
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('"');
    }

    private static final class Reader {
        private static final int MAX_DEPTH = 512;
        final String s;
        int pos;

        Reader(String s) {
            this.s = s;
        }

        void skipSpace() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
                pos++;
            }
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH) throw new ParseException("nested too deeply", pos);
            if (pos >= s.length()) throw new ParseException("unexpected end", pos);
            char c = s.charAt(pos);
            switch (c) {
                case '{': return object(depth);
                case '[': return array(depth);
                case '"': return string();
                case 't': return literal("true", Boolean.TRUE);
                case 'f': return literal("false", Boolean.FALSE);
                case 'n': return literal("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) return number();
                    throw new ParseException("unexpected character '" + c + "'", pos);
            }
        }

        Object literal(String word, Object value) {
            if (!s.startsWith(word, pos)) throw new ParseException("expected " + word, pos);
            pos += word.length();
            return value;
        }

        Map<String, Object> object(int depth) {
            Map<String, Object> map = new LinkedHashMap<>();
            pos++;
            skipSpace();
            if (peek() == '}') {
                pos++;
                return map;
            }
            while (true) {
                skipSpace();
                if (peek() != '"') throw new ParseException("expected a string key", pos);
                String key = string();
                skipSpace();
                if (peek() != ':') throw new ParseException("expected ':'", pos);
                pos++;
                skipSpace();
                map.put(key, value(depth + 1));
                skipSpace();
                char c = peek();
                pos++;
                if (c == '}') return map;
                if (c != ',') throw new ParseException("expected ',' or '}'", pos - 1);
            }
        }

        List<Object> array(int depth) {
            List<Object> list = new ArrayList<>();
            pos++;
            skipSpace();
            if (peek() == ']') {
                pos++;
                return list;
            }
            while (true) {
                skipSpace();
                list.add(value(depth + 1));
                skipSpace();
                char c = peek();
                pos++;
                if (c == ']') return list;
                if (c != ',') throw new ParseException("expected ',' or ']'", pos - 1);
            }
        }

        char peek() {
            if (pos >= s.length()) throw new ParseException("unexpected end", pos);
            return s.charAt(pos);
        }

        String string() {
            pos++; // opening quote
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = peek();
                pos++;
                if (c == '"') return out.toString();
                if (c < 0x20) throw new ParseException("control character in a string", pos - 1);
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = peek();
                pos++;
                switch (e) {
                    case '"' -> out.append('"');
                    case '\\' -> out.append('\\');
                    case '/' -> out.append('/');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (pos + 4 > s.length()) throw new ParseException("short \\u escape", pos);
                        try {
                            out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw new ParseException("bad \\u escape", pos);
                        }
                        pos += 4;
                    }
                    default -> throw new ParseException("bad escape '\\" + e + "'", pos - 1);
                }
            }
        }

        Number number() {
            int start = pos;
            if (s.charAt(pos) == '-') pos++;
            digits();
            boolean integer = true;
            if (pos < s.length() && s.charAt(pos) == '.') {
                integer = false;
                pos++;
                digits();
            }
            if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
                integer = false;
                pos++;
                if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) pos++;
                digits();
            }
            String text = s.substring(start, pos);
            if (!integer) return new BigDecimal(text);
            BigInteger big = new BigInteger(text);
            return big.bitLength() < 64 ? (Number) big.longValue() : big;
        }

        void digits() {
            int start = pos;
            while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') pos++;
            if (pos == start) throw new ParseException("expected a digit", pos);
        }
    }
}
