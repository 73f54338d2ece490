// The live Java oracle of the 5.x gRPC client (our own code, nothing of RocketMQ copied): answers JSON-lines
// requests with the real PublishingLoadBalancer and SubscriptionLoadBalancer of the rocketmq-client-java jar that
// `make clients` resolved from Maven Central. Like Oracle.java, an answer is a case of grpc_balancer.jsonl, in
// the vectors' schema, checked on both backends by tests/oracle.
//
//   java -cp <classes>:<lib>/* GrpcOracle LABEL
//
// A request holds "id", "kind" and the inputs: "route" (the vectors' queue list) and, by kind, "start_index",
// "calls" [{excluded, count}], "groups" [{group}] or "update_route". Where the balancer's constructor throws on
// the route, the answer is a publishing_constructor / subscription_constructor case instead. Test hooks, by
// reflection, as in the generator: the round-robin AtomicInteger `index` is set to start_index after
// construction, and the package-private update(TopicRouteData) is called.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.java.impl.consumer.SubscriptionLoadBalancer;
import org.apache.rocketmq.client.java.impl.producer.PublishingLoadBalancer;
import org.apache.rocketmq.client.java.route.Endpoints;
import org.apache.rocketmq.client.java.route.MessageQueueImpl;
import org.apache.rocketmq.client.java.route.TopicRouteData;

public final class GrpcOracle {
    static String label;

    public static void main(String[] args) throws Exception {
        label = args[0];
        PrintStream out = new PrintStream(System.out, false, "US-ASCII");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder ready = new StringBuilder();
        J.write(ready, J.obj("ready", label));
        out.println(ready);
        out.flush();
        for (String line; (line = in.readLine()) != null; ) {
            Map<String, Object> answer;
            Object id = null;
            try {
                Map<String, Object> req = map(JsonIn.parse(line));
                id = req.get("id");
                answer = answer(req);
            } catch (Throwable t) {
                answer = J.obj("id", id, "oracle_error", t.toString());
            }
            StringBuilder sb = new StringBuilder();
            J.write(sb, answer);
            out.println(sb);
            out.flush();
        }
        System.exit(0);  // the client jar may leave non-daemon threads behind
    }

    static Map<String, Object> answer(Map<String, Object> req) throws Throwable {
        String kind = (String) req.get("kind");
        List<Object> spec = list(req.get("route"));
        boolean publishing = kind.startsWith("publishing_");
        Map<String, Object> out = J.obj("id", req.get("id"), "versions", J.arr(label), "kind", kind, "route", spec);
        Object lb;
        try {
            lb = balancer(publishing, spec);
        } catch (Throwable t) {
            // the route is refused: what the real class says is a constructor case
            out.put("kind", publishing ? "publishing_constructor" : "subscription_constructor");
            out.put("exception", J.exc(t));
            return out;
        }
        switch (kind) {
            case "publishing_constructor":
            case "subscription_constructor":
                throw new IllegalArgumentException(kind + ": the constructor accepted this route");
            case "publishing_take_message_queues": takeMessageQueues((PublishingLoadBalancer) lb, req, out); break;
            case "publishing_by_message_group": byMessageGroup((PublishingLoadBalancer) lb, req, out); break;
            case "subscription_take_message_queue": takeMessageQueue((SubscriptionLoadBalancer) lb, req, out); break;
            case "publishing_update":
            case "subscription_update": update(lb, req, out); break;
            default: throw new IllegalArgumentException("unknown kind " + kind);
        }
        return out;
    }

    // ---- helpers -------------------------------------------------------------------------------------------

    static int i(Object o) {
        return ((Number) o).intValue();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    static apache.rocketmq.v2.Endpoints pbEndpoints(Map<String, Object> s) {
        apache.rocketmq.v2.Endpoints.Builder b = apache.rocketmq.v2.Endpoints.newBuilder()
            .setScheme(apache.rocketmq.v2.AddressScheme.valueOf((String) s.get("scheme")));
        for (Object o : list(s.get("addresses"))) {
            List<Object> hostPort = list(o);
            b.addAddresses(apache.rocketmq.v2.Address.newBuilder().setHost((String) hostPort.get(0))
                .setPort(i(hostPort.get(1))));
        }
        return b.build();
    }

    static apache.rocketmq.v2.MessageQueue pbQueue(Map<String, Object> s) {
        Map<String, Object> broker = map(s.get("broker"));
        apache.rocketmq.v2.MessageQueue.Builder b = apache.rocketmq.v2.MessageQueue.newBuilder()
            .setTopic(apache.rocketmq.v2.Resource.newBuilder().setName((String) s.get("topic")))
            .setId(i(s.get("queue_id")))
            .setPermission(apache.rocketmq.v2.Permission.valueOf((String) s.get("permission")))
            .setBroker(apache.rocketmq.v2.Broker.newBuilder().setName((String) broker.get("name"))
                .setId(i(broker.get("id"))).setEndpoints(pbEndpoints(map(broker.get("endpoints")))));
        for (Object t : list(s.get("accept_message_types"))) {
            b.addAcceptMessageTypes(apache.rocketmq.v2.MessageType.valueOf((String) t));
        }
        return b.build();
    }

    static TopicRouteData route(List<Object> spec) {
        List<apache.rocketmq.v2.MessageQueue> queues = new ArrayList<>();
        for (Object o : spec) {
            queues.add(pbQueue(map(o)));
        }
        return new TopicRouteData(queues);
    }

    static Object balancer(boolean publishing, List<Object> spec) {
        TopicRouteData r = route(spec);
        return publishing ? new PublishingLoadBalancer(r) : new SubscriptionLoadBalancer(r);
    }

    static Set<Endpoints> excluded(List<Object> specs) {
        Set<Endpoints> s = new HashSet<>();
        for (Object o : specs) {
            s.add(new Endpoints(pbEndpoints(map(o))));
        }
        return s;
    }

    static List<Object> show(MessageQueueImpl q) {
        return J.arr(q.getTopic(), q.getBroker().getName(), q.getQueueId());
    }

    static AtomicInteger index(Object balancer) throws Exception {
        Field f = balancer.getClass().getDeclaredField("index");
        f.setAccessible(true);
        return (AtomicInteger) f.get(balancer);
    }

    static Object take(Object lb) {
        if (lb instanceof PublishingLoadBalancer) {
            List<Object> picked = new ArrayList<>();
            for (MessageQueueImpl q : ((PublishingLoadBalancer) lb).takeMessageQueues(new HashSet<>(), 1)) {
                picked.add(show(q));
            }
            return picked;
        }
        return show(((SubscriptionLoadBalancer) lb).takeMessageQueue());
    }

    // ---- kinds ---------------------------------------------------------------------------------------------

    static void takeMessageQueues(PublishingLoadBalancer lb, Map<String, Object> req, Map<String, Object> out)
        throws Exception {
        int start = i(req.get("start_index"));
        index(lb).set(start);
        out.put("start_index", start);
        List<Object> calls = new ArrayList<>();
        for (Object o : list(req.get("calls"))) {
            Map<String, Object> call = map(o);
            List<Object> ex = list(call.get("excluded"));
            int count = i(call.get("count"));
            Map<String, Object> c = J.obj("excluded", ex, "count", count);
            try {
                List<Object> picked = new ArrayList<>();
                for (MessageQueueImpl q : lb.takeMessageQueues(excluded(ex), count)) {
                    picked.add(show(q));
                }
                c.put("expect", picked);
            } catch (Exception e) {
                c.put("exception", J.exc(e));
            }
            c.put("index_after", index(lb).get());
            calls.add(c);
        }
        out.put("calls", calls);
    }

    static void byMessageGroup(PublishingLoadBalancer lb, Map<String, Object> req, Map<String, Object> out)
        throws Exception {
        List<Object> groups = new ArrayList<>();
        for (Object o : list(req.get("groups"))) {
            String group = (String) map(o).get("group");
            Map<String, Object> c = J.obj("group", group);
            int before = index(lb).get();
            try {
                c.put("expect", show(lb.takeMessageQueueByMessageGroup(group)));
            } catch (Exception e) {
                c.put("exception", J.exc(e));
            }
            c.put("index_unchanged", index(lb).get() == before);
            groups.add(c);
        }
        out.put("groups", groups);
    }

    static void takeMessageQueue(SubscriptionLoadBalancer lb, Map<String, Object> req, Map<String, Object> out)
        throws Exception {
        int start = i(req.get("start_index"));
        index(lb).set(start);
        out.put("start_index", start);
        List<Object> sequence = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            sequence.add(show(lb.takeMessageQueue()));
        }
        out.put("sequence", sequence);
        out.put("index_after", index(lb).get());
    }

    /** Three picks, update(update_route), four picks on what update returned: the index carries over. */
    static void update(Object lb, Map<String, Object> req, Map<String, Object> out) throws Throwable {
        int start = i(req.get("start_index"));
        List<Object> next = list(req.get("update_route"));
        index(lb).set(start);
        out.put("start_index", start);
        out.put("update_route", next);
        List<Object> before = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            before.add(take(lb));
        }
        out.put("sequence_before", before);
        Object updated;
        try {
            Method m = lb.getClass().getDeclaredMethod("update", TopicRouteData.class);
            m.setAccessible(true);
            try {
                updated = m.invoke(lb, route(next));
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        } catch (Exception e) {
            out.put("update_exception", J.exc(e));
            return;
        }
        out.put("same_index_object", index(updated) == index(lb));
        List<Object> after = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            after.add(take(updated));
        }
        out.put("sequence_after", after);
        out.put("index_after", index(updated).get());
        out.put("old_index_after", index(lb).get());
    }
}
