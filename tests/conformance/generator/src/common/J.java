/*
 * Vector generator helper (our own code, not upstream): a tiny JSON writer.
 * Every non-ASCII UTF-16 code unit is written as a lower-case \\uXXXX escape.
 */
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class J {
    private final Writer out;

    public J(String path) throws IOException {
        this.out = new OutputStreamWriter(Files.newOutputStream(Paths.get(path)), StandardCharsets.US_ASCII);
    }

    /** Writes one case: id, kind, then the payload's fields in order. */
    public void line(String id, String kind, Map<String, Object> payload) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("kind", kind);
        m.putAll(payload);
        StringBuilder sb = new StringBuilder();
        write(sb, m);
        sb.append('\n');
        out.write(sb.toString());
    }

    public void close() throws IOException {
        out.close();
    }

    public static Map<String, Object> obj(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    public static List<Object> arr(Object... xs) {
        return new ArrayList<>(Arrays.asList(xs));
    }

    public static List<Object> longs(long[] a) {
        if (a == null) {
            return null;
        }
        List<Object> l = new ArrayList<>();
        for (long x : a) {
            l.add(x);
        }
        return l;
    }

    /** {"class", "message", "origin"}; origin is "rocketmq" when the throwing frame is RocketMQ code. */
    public static Map<String, Object> exc(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        String origin = "jdk";
        if (st.length > 0 && st[0].getClassName().startsWith("org.apache.rocketmq.")) {
            // thrown by a `throw` statement in RocketMQ code (not an implicit JVM exception in it)
            origin = implicit(t) ? "jdk" : "rocketmq";
        }
        return obj("class", t.getClass().getName(), "message", t.getMessage(), "origin", origin);
    }

    private static boolean implicit(Throwable t) {
        return t instanceof NullPointerException || t instanceof ArrayIndexOutOfBoundsException
            || t instanceof ArithmeticException || t instanceof ClassCastException
            || t instanceof NegativeArraySizeException || t instanceof IndexOutOfBoundsException && t.getMessage() != null && t.getMessage().startsWith("Index ");
    }

    @SuppressWarnings("unchecked")
    static void write(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String) {
            str(sb, (String) v);
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            sb.append(v.toString());
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<Object, Object> e : ((Map<Object, Object>) v).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                str(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Collection) {
            sb.append('[');
            boolean first = true;
            for (Object x : (Collection<Object>) v) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                write(sb, x);
            }
            sb.append(']');
        } else if (v instanceof long[]) {
            write(sb, longs((long[]) v));
        } else if (v instanceof int[]) {
            List<Object> l = new ArrayList<>();
            for (int x : (int[]) v) {
                l.add(x);
            }
            write(sb, l);
        } else if (v instanceof Enum) {
            str(sb, ((Enum<?>) v).name());
        } else {
            throw new IllegalArgumentException("cannot write " + v.getClass());
        }
    }

    static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') {
                sb.append("\\\"");
            } else if (c == '\\') {
                sb.append("\\\\");
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c == '\t') {
                sb.append("\\t");
            } else if (c < 0x20 || c > 0x7e) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }
}
