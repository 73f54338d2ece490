// A small JSON reader for the live oracles' requests (our own code): objects become LinkedHashMaps (keys in
// order), arrays ArrayLists, integers Long (BigInteger past a long), other numbers Double, and true / false /
// null themselves. For a driver whose jar has no JSON library of its own (rocketmq-client-java shades its
// dependencies). Malformed input is an IllegalArgumentException naming the offset.
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

final class JsonIn {
    private final String s;
    private int at;

    private JsonIn(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        JsonIn in = new JsonIn(text);
        Object v = in.value();
        in.space();
        if (in.at != text.length()) {
            throw in.bad("trailing characters");
        }
        return v;
    }

    private IllegalArgumentException bad(String what) {
        return new IllegalArgumentException("bad JSON at offset " + at + ": " + what);
    }

    private void space() {
        while (at < s.length() && " \t\r\n".indexOf(s.charAt(at)) >= 0) {
            at++;
        }
    }

    private void expect(char c) {
        space();
        if (at >= s.length() || s.charAt(at) != c) {
            throw bad("expected '" + c + "'");
        }
        at++;
    }

    private boolean literal(String word) {
        if (s.startsWith(word, at)) {
            at += word.length();
            return true;
        }
        return false;
    }

    private Object value() {
        space();
        if (at >= s.length()) {
            throw bad("unexpected end");
        }
        char c = s.charAt(at);
        switch (c) {
            case '{': return object();
            case '[': return array();
            case '"': return string();
            default:
                if (literal("true")) {
                    return Boolean.TRUE;
                }
                if (literal("false")) {
                    return Boolean.FALSE;
                }
                if (literal("null")) {
                    return null;
                }
                return number();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        expect('{');
        space();
        if (at < s.length() && s.charAt(at) == '}') {
            at++;
            return m;
        }
        while (true) {
            space();
            String key = string();
            expect(':');
            m.put(key, value());
            space();
            if (at < s.length() && s.charAt(at) == ',') {
                at++;
                continue;
            }
            expect('}');
            return m;
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        expect('[');
        space();
        if (at < s.length() && s.charAt(at) == ']') {
            at++;
            return l;
        }
        while (true) {
            l.add(value());
            space();
            if (at < s.length() && s.charAt(at) == ',') {
                at++;
                continue;
            }
            expect(']');
            return l;
        }
    }

    private String string() {
        if (at >= s.length() || s.charAt(at) != '"') {
            throw bad("expected a string");
        }
        at++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (at >= s.length()) {
                throw bad("unterminated string");
            }
            char c = s.charAt(at++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (at >= s.length()) {
                throw bad("unterminated escape");
            }
            char e = s.charAt(at++);
            switch (e) {
                case '"': case '\\': case '/': sb.append(e); break;
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'n': sb.append('\n'); break;
                case 'r': sb.append('\r'); break;
                case 't': sb.append('\t'); break;
                case 'u':
                    if (at + 4 > s.length()) {
                        throw bad("short \\u escape");
                    }
                    sb.append((char) Integer.parseInt(s.substring(at, at + 4), 16));  // lone surrogates kept
                    at += 4;
                    break;
                default: throw bad("unknown escape \\" + e);
            }
        }
    }

    private Object number() {
        int start = at;
        while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) {
            at++;
        }
        String t = s.substring(start, at);
        if (t.isEmpty()) {
            throw bad("unexpected character");
        }
        if (t.indexOf('.') >= 0 || t.indexOf('e') >= 0 || t.indexOf('E') >= 0) {
            return Double.parseDouble(t);
        }
        BigInteger big = new BigInteger(t);
        return big.bitLength() < 64 ? (Object) big.longValue() : big;
    }
}
