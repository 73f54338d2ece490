/*
 * Vector generator (our own code, not upstream) for grpc_balancer.jsonl: the 5.x gRPC Java client's
 * PublishingLoadBalancer and SubscriptionLoadBalancer (apache/rocketmq-clients, tag java-5.2.1), compiled
 * unmodified together with the protobuf classes that protoc generates from apache/rocketmq-apis v2.1.2.
 * Test hooks (reflection): the round-robin AtomicInteger `index` is set to `start_index` after construction,
 * and the package-private update(TopicRouteData) is called (GrpcSpecs).
 */
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.rocketmq.client.java.impl.consumer.SubscriptionLoadBalancer;
import org.apache.rocketmq.client.java.impl.producer.PublishingLoadBalancer;
import org.apache.rocketmq.client.java.route.MessageQueueImpl;

public final class GenGrpcBalancer {
    static final String LABEL = "clients-java-5.2.1";
    static final String TOPIC = "grpc-topic";

    static Map<String, Object> obj(Object... kv) {
        return J.obj(kv);
    }

    // ------------------------------------------------------------------ specs -> protobuf

    static Map<String, Object> endpoints(String scheme, Object... hostPort) {
        List<Object> a = new ArrayList<>();
        for (int i = 0; i < hostPort.length; i += 2) {
            a.add(J.arr(hostPort[i], hostPort[i + 1]));
        }
        return obj("scheme", scheme, "addresses", a);
    }

    static Map<String, Object> broker(String name, int id, Map<String, Object> ep) {
        return obj("name", name, "id", id, "endpoints", ep);
    }

    static Map<String, Object> mq(Map<String, Object> broker, int queueId, String perm, String... types) {
        List<Object> t = new ArrayList<>();
        for (String s : types) {
            t.add(s);
        }
        return obj("topic", TOPIC, "broker", broker, "queue_id", queueId, "permission", perm, "accept_message_types", t);
    }

    // ------------------------------------------------------------------ brokers used by the cases

    static final Map<String, Object> EP_A = endpoints("IPv4", "10.0.0.1", 8081);
    static final Map<String, Object> EP_B = endpoints("IPv4", "10.0.0.2", 8081, "10.0.0.3", 8081);
    static final Map<String, Object> EP_C = endpoints("DOMAIN_NAME", "broker-c.example", 8081);
    static final Map<String, Object> EP_A_SLAVE = endpoints("IPv4", "10.0.0.11", 8081);
    static final Map<String, Object> EP_E = endpoints("IPv6", "::1", 8081);
    static final Map<String, Object> A = broker("broker-a", 0, EP_A);
    static final Map<String, Object> B = broker("broker-b", 0, EP_B);
    static final Map<String, Object> C = broker("broker-c", 0, EP_C);
    static final Map<String, Object> D_SHARES_A = broker("broker-d", 0, EP_A);
    static final Map<String, Object> A_SLAVE = broker("broker-a", 1, EP_A_SLAVE);
    static final Map<String, Object> E = broker("broker-e", 0, EP_E);
    static final Object[] ALL_BROKERS = {A, B, C, D_SHARES_A, A_SLAVE, E};
    static final Object[] ALL_EPS = {EP_A, EP_B, EP_C, EP_A_SLAVE, EP_E};
    static final String[] PERMS = {"READ_WRITE", "READ_WRITE", "READ_WRITE", "READ", "WRITE", "NONE"};

    static List<Object> queues(Map<String, Object> b, int n, String perm) {
        List<Object> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(mq(b, i, perm, "NORMAL"));
        }
        return l;
    }

    @SuppressWarnings("unchecked")
    static List<Object> randomRoute(Random rnd) {
        List<Object> l = new ArrayList<>();
        int nb = 1 + rnd.nextInt(4);
        for (int i = 0; i < nb; i++) {
            Map<String, Object> b = (Map<String, Object>) ALL_BROKERS[rnd.nextInt(ALL_BROKERS.length)];
            int nq = 1 + rnd.nextInt(4);
            for (int q = 0; q < nq; q++) {
                l.add(mq(b, q, PERMS[rnd.nextInt(PERMS.length)], rnd.nextBoolean() ? "NORMAL" : "FIFO"));
            }
        }
        if (rnd.nextBoolean()) {
            java.util.Collections.shuffle(l, rnd);
        }
        return l;
    }

    static final int[] STARTS = {0, 1, 5, Integer.MAX_VALUE - 2, Integer.MIN_VALUE, -1, -7};

    public static void main(String[] args) throws Throwable {
        J w = new J(args[0] + "/grpc_balancer." + LABEL + ".jsonl");
        Random rnd = new Random(520L);
        List<List<Object>> routes = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<Object> r1 = new ArrayList<>();
        r1.addAll(queues(A, 4, "READ_WRITE"));
        r1.addAll(queues(B, 2, "READ_WRITE"));
        r1.addAll(queues(C, 3, "READ_WRITE"));
        routes.add(r1);
        names.add("three-brokers");
        List<Object> r2 = new ArrayList<>();
        r2.addAll(queues(A, 2, "READ_WRITE"));
        r2.addAll(queues(A_SLAVE, 2, "READ_WRITE"));
        r2.addAll(queues(D_SHARES_A, 2, "READ_WRITE"));
        r2.addAll(queues(B, 1, "READ"));
        r2.addAll(queues(C, 1, "WRITE"));
        r2.addAll(queues(E, 2, "NONE"));
        routes.add(r2);
        names.add("slave-shared-endpoints-perms");
        List<Object> r3 = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            r3.add(mq(A, i, "READ_WRITE", "NORMAL"));
            r3.add(mq(B, i, "READ_WRITE", "NORMAL"));
        }
        routes.add(r3);
        names.add("interleaved");
        routes.add(queues(A, 1, "READ_WRITE"));
        names.add("single-queue");
        routes.add(queues(A, 3, "READ"));
        names.add("read-only");
        routes.add(queues(A, 3, "WRITE"));
        names.add("write-only");
        routes.add(queues(A_SLAVE, 2, "READ_WRITE"));
        names.add("slave-only");
        routes.add(new ArrayList<>());
        names.add("empty");
        for (int k = 0; k < 30; k++) {
            routes.add(randomRoute(rnd));
            names.add(String.format("random-%02d", k));
        }

        for (int k = 0; k < routes.size(); k++) {
            List<Object> spec = routes.get(k);
            // ---- publishing: takeMessageQueues
            PublishingLoadBalancer plb;
            try {
                plb = new PublishingLoadBalancer(GrpcSpecs.route(spec));
            } catch (Throwable t) {
                w.line("pub-ctor-" + names.get(k), "publishing_constructor", obj("route", spec, "exception", J.exc(t)));
                plb = null;
            }
            if (plb != null) {
                int[] starts = k < 8 ? STARTS : new int[] {rnd.nextInt(Integer.MAX_VALUE), Integer.MAX_VALUE};
                for (int start : starts) {
                    plb = new PublishingLoadBalancer(GrpcSpecs.route(spec));
                    GrpcSpecs.index(plb).set(start);
                    List<Object> calls = new ArrayList<>();
                    List<Object[]> plan = new ArrayList<>();
                    plan.add(new Object[] {J.arr(), 1});
                    plan.add(new Object[] {J.arr(), 2});
                    plan.add(new Object[] {J.arr(), 10});
                    plan.add(new Object[] {J.arr(EP_A), 1});
                    plan.add(new Object[] {J.arr(EP_A), 3});
                    plan.add(new Object[] {J.arr(EP_A, EP_B), 2});
                    plan.add(new Object[] {J.arr(ALL_EPS), 1});
                    plan.add(new Object[] {J.arr(ALL_EPS), 5});
                    plan.add(new Object[] {J.arr(endpoints("IPv4", "10.0.0.2", 8081)), 2});
                    plan.add(new Object[] {J.arr(endpoints("IPv4", "10.0.0.3", 8081, "10.0.0.2", 8081)), 2});
                    plan.add(new Object[] {J.arr(), 0});
                    plan.add(new Object[] {J.arr(), -1});
                    plan.add(new Object[] {J.arr(EP_C), 1});
                    for (Object[] p : plan) {
                        @SuppressWarnings("unchecked")
                        List<Object> ex = (List<Object>) p[0];
                        calls.add(GrpcSpecs.takeCall(plb, ex, (Integer) p[1]));
                    }
                    w.line(String.format("pub-take-%s-%d", names.get(k), start), "publishing_take_message_queues",
                        obj("route", spec, "start_index", start, "calls", calls));
                }
                // ---- publishing: by message group
                List<Object> groups = new ArrayList<>();
                String[] gs = {"", "g", "order-1", "order-2", "GID_\u00e9", "\ud83d\ude00", "a-very-long-message-group-name-0123456789",
                    "user-" + rnd.nextInt(1000000), "user-" + rnd.nextInt(1000000), null};
                for (String g : gs) {
                    groups.add(GrpcSpecs.groupCall(plb, g));
                }
                w.line("pub-group-" + names.get(k), "publishing_by_message_group", obj("route", spec, "groups", groups));
            }
            // ---- subscription
            SubscriptionLoadBalancer slb;
            try {
                slb = new SubscriptionLoadBalancer(GrpcSpecs.route(spec));
            } catch (Throwable t) {
                w.line("sub-ctor-" + names.get(k), "subscription_constructor", obj("route", spec, "exception", J.exc(t)));
                slb = null;
            }
            if (slb != null) {
                int[] starts = k < 8 ? STARTS : new int[] {rnd.nextInt(Integer.MAX_VALUE), Integer.MAX_VALUE - 1};
                for (int start : starts) {
                    slb = new SubscriptionLoadBalancer(GrpcSpecs.route(spec));
                    GrpcSpecs.index(slb).set(start);
                    List<Object> seq = new ArrayList<>();
                    for (int i = 0; i < 8; i++) {
                        seq.add(GrpcSpecs.show(slb.takeMessageQueue()));
                    }
                    w.line(String.format("sub-take-%s-%d", names.get(k), start), "subscription_take_message_queue",
                        obj("route", spec, "start_index", start, "sequence", seq, "index_after", GrpcSpecs.index(slb).get()));
                }
            }
        }

        // ---- update(route) keeps the index
        for (int k = 0; k + 1 < routes.size(); k += 3) {
            List<Object> r0 = routes.get(k);
            List<Object> rn = routes.get(k + 1);
            int start = k == 0 ? Integer.MAX_VALUE - 1 : rnd.nextInt(1000);
            for (String kind : new String[] {"publishing_update", "subscription_update"}) {
                boolean pub = kind.startsWith("pub");
                Map<String, Object> c = obj("route", r0, "start_index", start, "update_route", rn);
                Object lb;
                try {
                    lb = pub ? new PublishingLoadBalancer(GrpcSpecs.route(r0)) : new SubscriptionLoadBalancer(GrpcSpecs.route(r0));
                } catch (Throwable t) {
                    continue;
                }
                GrpcSpecs.index(lb).set(start);
                List<Object> before = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    before.add(pub ? J.arr(GrpcSpecs.show(((PublishingLoadBalancer) lb).takeMessageQueues(new HashSet<>(), 1).get(0)))
                        : GrpcSpecs.show(((SubscriptionLoadBalancer) lb).takeMessageQueue()));
                }
                c.put("sequence_before", before);
                try {
                    Object nlb = GrpcSpecs.update(lb, GrpcSpecs.route(rn));
                    c.put("same_index_object", GrpcSpecs.index(nlb) == GrpcSpecs.index(lb));
                    List<Object> after = new ArrayList<>();
                    for (int i = 0; i < 4; i++) {
                        after.add(pub ? J.arr(GrpcSpecs.show(((PublishingLoadBalancer) nlb).takeMessageQueues(new HashSet<>(), 1).get(0)))
                            : GrpcSpecs.show(((SubscriptionLoadBalancer) nlb).takeMessageQueue()));
                    }
                    c.put("sequence_after", after);
                    c.put("index_after", GrpcSpecs.index(nlb).get());
                    c.put("old_index_after", GrpcSpecs.index(lb).get());
                } catch (Throwable t) {
                    c.put("update_exception", J.exc(t));
                }
                w.line(String.format("%s-%02d", pub ? "pub-update" : "sub-update", k), kind, c);
            }
        }
        w.close();
        System.exit(0);
    }
}
