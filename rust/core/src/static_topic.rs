//! Static topics (RIP-21 logic queues, RocketMQ 5.x): `TopicQueueMappingInfo`, the mock broker names, and
//! 5.3.3's `ClientMetadata.topicRouteData2EndpointsForStaticTopic`, which the publish and subscribe converters
//! use when a route carries `topicQueueMappingByBroker`.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{JavaError, JavaResult};
use crate::java::{long_hash, string_hash};
use crate::java_collections::{
    hash_map_order, small_array_sort, ConcurrentHashMapOrder, OrderedMap, MIN_MERGE,
};
use crate::message_queue::MessageQueue;
use crate::route::MAX_QUEUES;

/// `MixAll.LOGICAL_QUEUE_MOCK_BROKER_PREFIX`.
pub const LOGICAL_QUEUE_MOCK_BROKER_PREFIX: &str = "__syslo__";
/// `MixAll.LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST`: the broker of a logic queue no mapping holds.
pub const LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST: &str = "__syslo__none__";
/// `MixAll.METADATA_SCOPE_GLOBAL`: the scope of a new `TopicQueueMappingInfo`.
pub const METADATA_SCOPE_GLOBAL: &str = "__global__";

/// One broker's share of a static topic: its logic queue ids (`curr_id_map`: global id -> physical id).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicQueueMappingInfo {
    pub topic: Option<String>,
    pub scope: Option<String>,
    pub total_queues: i32,
    pub bname: Option<String>,
    pub epoch: i64,
    pub dirty: bool,
    /// `None` stands for Java's null map.
    pub curr_id_map: Option<OrderedMap<i32, i32>>,
}

impl TopicQueueMappingInfo {
    /// `new TopicQueueMappingInfo(topic, totalQueues, bname, epoch)`: global scope, not dirty, no ids.
    pub fn new(
        topic: Option<String>,
        total_queues: i32,
        bname: Option<String>,
        epoch: i64,
    ) -> Self {
        TopicQueueMappingInfo {
            topic,
            scope: Some(METADATA_SCOPE_GLOBAL.to_owned()),
            total_queues,
            bname,
            epoch,
            dirty: false,
            curr_id_map: Some(OrderedMap::new()),
        }
    }

    /// Java's `hashCode()`.
    pub fn java_hash_code(&self) -> i32 {
        let s = |v: &Option<String>| v.as_deref().map_or(0, string_hash);
        let ids = self.curr_id_map.as_ref().map_or(0, |m| {
            m.iter().fold(0i32, |h, (k, v)| h.wrapping_add(k ^ v))
        });
        [
            s(&self.scope),
            self.total_queues,
            s(&self.bname),
            long_hash(self.epoch),
            self.dirty as i32,
            ids,
        ]
        .into_iter()
        .fold(s(&self.topic), |h, x| h.wrapping_mul(31).wrapping_add(x))
    }
}

/// `TopicQueueMappingUtils.getMockBrokerName(scope)`: the broker name a scope's logic queues carry.
pub fn mock_broker_name(scope: &str) -> String {
    if scope == METADATA_SCOPE_GLOBAL {
        format!("{LOGICAL_QUEUE_MOCK_BROKER_PREFIX}{}", &scope[2..])
    } else {
        format!("{LOGICAL_QUEUE_MOCK_BROKER_PREFIX}{scope}")
    }
}

/// `topicQueueMappingByBroker`: broker name -> its mapping, in the order given.
pub type QueueMapping = OrderedMap<String, Arc<TopicQueueMappingInfo>>;

/// Sorts one scope's infos as `List.sort((o1, o2) -> (int) (o2.getEpoch() - o1.getEpoch()))` does, the cast
/// included: epochs 2^31 or more apart compare the wrong way round, or equal.
fn sort_by_epoch(infos: &mut [(usize, Arc<TopicQueueMappingInfo>)], scope: &str) -> JavaResult<()> {
    let c = |a: &(usize, Arc<TopicQueueMappingInfo>), b: &(usize, Arc<TopicQueueMappingInfo>)| {
        b.1.epoch.wrapping_sub(a.1.epoch) as i32
    };
    if infos.len() < MIN_MERGE {
        small_array_sort(infos, c);
        return Ok(());
    }
    let lo = infos.iter().map(|i| i.1.epoch).min().unwrap_or(0) as i128;
    let hi = infos.iter().map(|i| i.1.epoch).max().unwrap_or(0) as i128;
    if hi - lo > i32::MAX as i128 {
        return Err(JavaError::IllegalArgument(format!(
            "static topic scope '{scope}': {} mapping infos with epochs more than 2^31-1 apart; \
             Java's TimSort order is not reproduced for {MIN_MERGE} or more",
            infos.len()
        )));
    }
    // every difference fits an int: a consistent order, which any stable sort follows
    infos.sort_by_key(|i| std::cmp::Reverse(i.1.epoch));
    Ok(())
}

/// 5.3.3's `ClientMetadata.topicRouteData2EndpointsForStaticTopic`: each logic queue of each scope
/// (`MessageQueue(topic, mock_broker_name(scope), id)`) with the broker that holds it (`bname` of the mapping
/// with the highest epoch, ties to the later one in Java's order), or `__syslo__none__` for an id no mapping
/// holds. Ids run from 0 to the largest `total_queues` among mappings whose epoch is at least -1. Infos with a
/// null scope are skipped. The entries come in the iteration order of Java's `ConcurrentHashMap`.
pub fn endpoints_for_static_topic(
    topic: &str,
    mapping: Option<&QueueMapping>,
) -> JavaResult<Vec<(MessageQueue, Option<Arc<str>>)>> {
    let Some(mapping) = mapping.filter(|m| !m.is_empty()) else {
        return Ok(Vec::new());
    };
    let entries: Vec<(&String, &Arc<TopicQueueMappingInfo>)> = mapping.iter().collect();
    let route_order = hash_map_order(
        &entries
            .iter()
            .map(|(k, _)| string_hash(k))
            .collect::<Vec<_>>(),
        "topicQueueMappingByBroker",
    )?;
    // mappingInfosByScope: scope -> {broker name -> info}, both HashMaps filled in the route map's order
    let mut scopes: Vec<&str> = Vec::new();
    let mut members: HashMap<&str, Vec<usize>> = HashMap::new();
    for &i in &route_order {
        if let Some(scope) = entries[i].1.scope.as_deref() {
            members
                .entry(scope)
                .or_insert_with(|| {
                    scopes.push(scope);
                    Vec::new()
                })
                .push(i);
        }
    }
    // checked before any conversion, as the reference does: a null currIdMap, then the logic queue budget
    let mut total: i64 = 0;
    for scope in &scopes {
        let group = &members[scope];
        if let Some(&i) = group.iter().find(|&&i| entries[i].1.curr_id_map.is_none()) {
            return Err(JavaError::NullPointer(format!(
                "curr_id_map of the mapping of broker {:?} (scope {scope:?}) is None",
                entries[i].0
            )));
        }
        let scope_total = group
            .iter()
            .map(|&i| entries[i].1)
            .filter(|info| info.epoch >= -1)
            .map(|info| info.total_queues)
            .fold(0, i32::max);
        total += scope_total as i64;
    }
    if total > MAX_QUEUES as i64 {
        return Err(JavaError::IllegalArgument(format!(
            "static topic has more than {MAX_QUEUES} logic queues ({total})"
        )));
    }
    let scope_order = hash_map_order(
        &scopes.iter().map(|s| string_hash(s)).collect::<Vec<_>>(),
        "mappingInfosByScope",
    )?;

    let topic: Arc<str> = Arc::from(topic);
    let not_exist: Arc<str> = Arc::from(LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST);
    // the result map (mqEndPointsOfBroker): two scopes can share a mock name ("__global__" and "global__"),
    // and then a later put replaces an earlier one's value in place
    let mut keys: Vec<MessageQueue> = Vec::new();
    let mut values: Vec<Option<Arc<str>>> = Vec::new();
    let mut position: HashMap<MessageQueue, usize> = HashMap::new();
    let mut order = ConcurrentHashMapOrder::new();
    for si in scope_order {
        let scope = scopes[si];
        let group = &members[scope];
        let sub_order = hash_map_order(
            &group
                .iter()
                .map(|&i| string_hash(entries[i].0))
                .collect::<Vec<_>>(),
            &format!("mapping infos of scope {scope:?}"),
        )?;
        let mut sorted: Vec<(usize, Arc<TopicQueueMappingInfo>)> = sub_order
            .iter()
            .map(|&j| (group[j], entries[group[j]].1.clone()))
            .collect();
        sort_by_epoch(&mut sorted, scope)?;
        let mut max_total = 0;
        let mut holder: HashMap<i32, &Arc<TopicQueueMappingInfo>> = HashMap::new();
        for (_, info) in &sorted {
            if info.epoch >= -1 && info.total_queues > max_total {
                max_total = info.total_queues;
            }
            let ids = info.curr_id_map.as_ref().expect("checked above");
            for (global_id, _) in ids.iter() {
                match holder.get(global_id) {
                    Some(old) if old.epoch > info.epoch => {}
                    _ => {
                        holder.insert(*global_id, info);
                    }
                }
            }
        }
        let mock: Arc<str> = Arc::from(mock_broker_name(scope));
        for id in 0..max_total {
            let mq = MessageQueue::new(Some(topic.clone()), Some(mock.clone()), id);
            let broker = match holder.get(&id) {
                // ConcurrentHashMap.put(mq, null): Java throws
                Some(info) => match info.bname.as_deref() {
                    Some(b) => Some(Arc::from(b)),
                    None => {
                        return Err(JavaError::NullPointer(format!(
                            "the mapping holding logic queue {id} of scope {scope:?} has no bname"
                        )))
                    }
                },
                None => Some(not_exist.clone()),
            };
            let hash = mq.java_hash_code();
            let at = match position.get(&mq) {
                Some(&p) => {
                    values[p] = broker;
                    p
                }
                None => {
                    position.insert(mq.clone(), keys.len());
                    keys.push(mq);
                    values.push(broker);
                    keys.len() - 1
                }
            };
            order.put(at, hash);
        }
    }
    Ok(order
        .order()
        .into_iter()
        .map(|i| (keys[i].clone(), values[i].clone()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(
        scope: &str,
        epoch: i64,
        total: i32,
        bname: &str,
        ids: &[i32],
    ) -> Arc<TopicQueueMappingInfo> {
        let mut i = TopicQueueMappingInfo::new(Some("T".into()), total, Some(bname.into()), epoch);
        i.scope = Some(scope.into());
        i.curr_id_map = Some(ids.iter().map(|&g| (g, 0)).collect());
        Arc::new(i)
    }

    #[test]
    fn mock_names() {
        assert_eq!(mock_broker_name("__global__"), "__syslo__global__");
        assert_eq!(mock_broker_name("s"), "__syslo__s");
        assert_eq!(mock_broker_name(""), "__syslo__");
    }

    #[test]
    fn the_higher_epoch_holds_an_id_and_gaps_are_none() {
        let m: QueueMapping = [
            ("a".to_string(), info("__global__", 5, 4, "a", &[0, 1, 2])),
            ("b".to_string(), info("__global__", 7, 4, "b", &[2])),
        ]
        .into_iter()
        .collect();
        let mut e = endpoints_for_static_topic("T", Some(&m)).unwrap();
        e.sort_by(|x, y| x.0.java_cmp(&y.0));
        let got: Vec<(i32, Option<&str>)> = e
            .iter()
            .map(|(mq, b)| (mq.queue_id(), b.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (0, Some("a")),
                (1, Some("a")),
                (2, Some("b")),
                (3, Some("__syslo__none__"))
            ]
        );
        assert!(e
            .iter()
            .all(|(mq, _)| mq.broker_name() == Some("__syslo__global__")));
    }

    #[test]
    fn a_null_id_map_is_npe_and_no_mapping_is_empty() {
        let mut i = (*info("__global__", 1, 1, "a", &[])).clone();
        i.curr_id_map = None;
        let m: QueueMapping = [("a".to_string(), Arc::new(i))].into_iter().collect();
        assert!(matches!(
            endpoints_for_static_topic("T", Some(&m)),
            Err(JavaError::NullPointer(_))
        ));
        assert!(endpoints_for_static_topic("T", None).unwrap().is_empty());
    }
}
