//! GET_ROUTEINFO_BY_TOPIC's body: a route whose one broker (master, id 0) is the peer itself, with the topic's
//! queues readable and writable (`perm` 6).

use rocketroute_core::frame::write_json_string;

/// The `TopicRouteData` JSON of a topic with `queues` read and write queues on the peer.
pub fn route(addr: &str, broker_name: &str, cluster: &str, queues: u32) -> Vec<u8> {
    let mut route = Vec::new();
    route.extend_from_slice(b"{\"brokerDatas\":[{\"brokerAddrs\":{\"0\":");
    write_json_string(&mut route, addr);
    route.extend_from_slice(b"},\"brokerName\":");
    write_json_string(&mut route, broker_name);
    route.extend_from_slice(b",\"cluster\":");
    write_json_string(&mut route, cluster);
    route.extend_from_slice(b"}],\"filterServerTable\":{},\"queueDatas\":[{\"brokerName\":");
    write_json_string(&mut route, broker_name);
    route.extend_from_slice(
        format!(
            ",\"perm\":6,\"readQueueNums\":{queues},\"topicSysFlag\":0,\"writeQueueNums\":{queues}}}]}}"
        )
        .as_bytes(),
    );
    route
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_route_names_the_peer_and_the_queues() {
        let r: serde_json::Value =
            serde_json::from_slice(&route("127.0.0.1:1", "b\"x", "c", 3)).unwrap();
        assert_eq!(r["brokerDatas"][0]["brokerAddrs"]["0"], "127.0.0.1:1");
        assert_eq!(r["brokerDatas"][0]["brokerName"], "b\"x");
        assert_eq!(r["queueDatas"][0]["readQueueNums"], 3);
        assert_eq!(r["queueDatas"][0]["writeQueueNums"], 3);
    }
}
