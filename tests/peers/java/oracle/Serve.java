// The live oracles' request loop (our own code): a "ready" line naming the label, then one JSON answer per JSON
// request line on stdin, until stdin ends. A request the answerer throws on gets {"id", "oracle_error"}: the
// driver never dies on a bad request. Also the typed accessors the answerers read requests with.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

final class Serve {
    private Serve() {
    }

    interface Answerer {
        Map<String, Object> answer(Map<String, Object> request) throws Throwable;
    }

    static void lines(String label, Answerer answerer) throws Exception {
        PrintStream out = new PrintStream(System.out, false, "US-ASCII");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        print(out, J.obj("ready", label));
        for (String line; (line = in.readLine()) != null; ) {
            Map<String, Object> answer;
            Object id = null;
            try {
                Map<String, Object> request = map(JsonIn.parse(line));
                id = request.get("id");
                answer = answerer.answer(request);
            } catch (Throwable t) {
                answer = J.obj("id", id, "oracle_error", t.toString());
            }
            print(out, answer);
        }
    }

    private static void print(PrintStream out, Map<String, Object> value) {
        StringBuilder sb = new StringBuilder();
        J.write(sb, value);
        out.println(sb);
        out.flush();
    }

    static int i(Object o) {
        return ((Number) o).intValue();
    }

    static long l(Object o) {
        return ((Number) o).longValue();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }
}
