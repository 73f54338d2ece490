/*
 * The vectors' topic_queue_mapping_by_broker as 5.x TopicQueueMappingInfo objects (our own code), shared by the
 * vector generator (V.setMapping) and the live oracle (tests/peers/java/oracle/v5/Compat). Compiled only against
 * the 5.x jars: 4.9 has no static topics.
 */
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicQueueMappingInfo;

final class Mappings {
    private Mappings() {
    }

    /** broker name -> {topic, scope, total_queues, bname, epoch, dirty, curr_id_map {"logical id": physical id}}. */
    @SuppressWarnings("unchecked")
    static Map<String, TopicQueueMappingInfo> byBroker(Map<String, Object> mapping) {
        Map<String, TopicQueueMappingInfo> m = new HashMap<>();
        for (Map.Entry<String, Object> e : mapping.entrySet()) {
            Map<String, Object> s = (Map<String, Object>) e.getValue();
            TopicQueueMappingInfo info = new TopicQueueMappingInfo((String) s.get("topic"),
                ((Number) s.get("total_queues")).intValue(), (String) s.get("bname"), ((Number) s.get("epoch")).longValue());
            info.setScope((String) s.get("scope"));
            info.setDirty((Boolean) s.get("dirty"));
            ConcurrentHashMap<Integer, Integer> ids = new ConcurrentHashMap<>();
            for (Map.Entry<String, Object> id : ((Map<String, Object>) s.get("curr_id_map")).entrySet()) {
                ids.put(Integer.parseInt(id.getKey()), ((Number) id.getValue()).intValue());
            }
            info.setCurrIdMap(ids);
            m.put(e.getKey(), info);
        }
        return m;
    }
}
