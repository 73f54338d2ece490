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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.java.impl.consumer.SubscriptionLoadBalancer;
import org.apache.rocketmq.client.java.impl.producer.PublishingLoadBalancer;
import org.apache.rocketmq.client.java.route.MessageQueueImpl;
import org.apache.rocketmq.client.java.route.TopicRouteData;

public final class GrpcOracle {
    static String label;

    public static void main(String[] args) throws Exception {
        label = args[0];
        Serve.lines(label, GrpcOracle::answer);
        System.exit(0);  // the client jar may leave non-daemon threads behind
    }

    static Map<String, Object> answer(Map<String, Object> req) throws Throwable {
        String kind = (String) req.get("kind");
        List<Object> spec = Serve.list(req.get("route"));
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

    static Object balancer(boolean publishing, List<Object> spec) {
        TopicRouteData r = GrpcSpecs.route(spec);
        return publishing ? new PublishingLoadBalancer(r) : new SubscriptionLoadBalancer(r);
    }

    static Object take(Object lb) {
        if (lb instanceof PublishingLoadBalancer) {
            List<Object> picked = new ArrayList<>();
            for (MessageQueueImpl q : ((PublishingLoadBalancer) lb).takeMessageQueues(new HashSet<>(), 1)) {
                picked.add(GrpcSpecs.show(q));
            }
            return picked;
        }
        return GrpcSpecs.show(((SubscriptionLoadBalancer) lb).takeMessageQueue());
    }

    // ---- kinds ---------------------------------------------------------------------------------------------

    static void takeMessageQueues(PublishingLoadBalancer lb, Map<String, Object> req, Map<String, Object> out)
        throws Exception {
        int start = Serve.i(req.get("start_index"));
        GrpcSpecs.index(lb).set(start);
        out.put("start_index", start);
        List<Object> calls = new ArrayList<>();
        for (Object o : Serve.list(req.get("calls"))) {
            Map<String, Object> call = Serve.map(o);
            calls.add(GrpcSpecs.takeCall(lb, Serve.list(call.get("excluded")), Serve.i(call.get("count"))));
        }
        out.put("calls", calls);
    }

    static void byMessageGroup(PublishingLoadBalancer lb, Map<String, Object> req, Map<String, Object> out)
        throws Exception {
        List<Object> groups = new ArrayList<>();
        for (Object o : Serve.list(req.get("groups"))) {
            groups.add(GrpcSpecs.groupCall(lb, (String) Serve.map(o).get("group")));
        }
        out.put("groups", groups);
    }

    static void takeMessageQueue(SubscriptionLoadBalancer lb, Map<String, Object> req, Map<String, Object> out)
        throws Exception {
        int start = Serve.i(req.get("start_index"));
        GrpcSpecs.index(lb).set(start);
        out.put("start_index", start);
        List<Object> sequence = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            sequence.add(GrpcSpecs.show(lb.takeMessageQueue()));
        }
        out.put("sequence", sequence);
        out.put("index_after", GrpcSpecs.index(lb).get());
    }

    /** Three picks, update(update_route), four picks on what update returned: the index carries over. */
    static void update(Object lb, Map<String, Object> req, Map<String, Object> out) throws Throwable {
        int start = Serve.i(req.get("start_index"));
        List<Object> next = Serve.list(req.get("update_route"));
        GrpcSpecs.index(lb).set(start);
        out.put("start_index", start);
        out.put("update_route", next);
        List<Object> before = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            before.add(take(lb));
        }
        out.put("sequence_before", before);
        Object updated;
        try {
            updated = GrpcSpecs.update(lb, GrpcSpecs.route(next));
        } catch (Exception e) {
            out.put("update_exception", J.exc(e));
            return;
        }
        out.put("same_index_object", GrpcSpecs.index(updated) == GrpcSpecs.index(lb));
        List<Object> after = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            after.add(take(updated));
        }
        out.put("sequence_after", after);
        out.put("index_after", GrpcSpecs.index(updated).get());
        out.put("old_index_after", GrpcSpecs.index(lb).get());
    }
}
