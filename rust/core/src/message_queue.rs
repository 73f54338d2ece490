//! `MessageQueue`: Java's toString, hashCode and (overflowing) compareTo.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use crate::error::{JavaError, JavaResult};
use crate::java::{string_compare, string_hash};

#[derive(Clone, Debug)]
pub struct MessageQueue {
    topic: Option<Arc<str>>,
    broker_name: Option<Arc<str>>,
    queue_id: i32,
    hash: i32,
}

impl MessageQueue {
    pub fn new(topic: Option<Arc<str>>, broker_name: Option<Arc<str>>, queue_id: i32) -> Self {
        let hb = broker_name.as_deref().map_or(0, string_hash);
        let ht = topic.as_deref().map_or(0, string_hash);
        Self::hashed(topic, ht, broker_name, hb, queue_id)
    }

    /// The queues `ids` of one topic and broker: the names are hashed once, not once per queue (a long
    /// broker name over many queues stays linear).
    pub fn series(
        topic: &Arc<str>,
        broker_name: &Arc<str>,
        ids: std::ops::Range<i32>,
    ) -> impl Iterator<Item = MessageQueue> {
        let (ht, hb) = (string_hash(topic), string_hash(broker_name));
        let (topic, broker_name) = (topic.clone(), broker_name.clone());
        ids.map(move |i| Self::hashed(Some(topic.clone()), ht, Some(broker_name.clone()), hb, i))
    }

    fn hashed(
        topic: Option<Arc<str>>,
        ht: i32,
        broker_name: Option<Arc<str>>,
        hb: i32,
        queue_id: i32,
    ) -> Self {
        let hash = 31i32
            .wrapping_add(hb)
            .wrapping_mul(31)
            .wrapping_add(queue_id)
            .wrapping_mul(31)
            .wrapping_add(ht);
        MessageQueue {
            topic,
            broker_name,
            queue_id,
            hash,
        }
    }

    pub fn of(topic: &str, broker_name: &str, queue_id: i32) -> Self {
        Self::new(
            Some(Arc::from(topic)),
            Some(Arc::from(broker_name)),
            queue_id,
        )
    }

    pub fn topic(&self) -> Option<&str> {
        self.topic.as_deref()
    }
    pub fn topic_arc(&self) -> Option<&Arc<str>> {
        self.topic.as_ref()
    }
    pub fn broker_name(&self) -> Option<&str> {
        self.broker_name.as_deref()
    }
    pub fn broker_arc(&self) -> Option<&Arc<str>> {
        self.broker_name.as_ref()
    }
    pub fn queue_id(&self) -> i32 {
        self.queue_id
    }

    /// Java's `hashCode()`.
    pub fn java_hash_code(&self) -> i32 {
        self.hash
    }

    /// Java's `compareTo`: topic, broker name, then `queueId - o.queueId` (int overflow included).
    pub fn compare_to(&self, o: &MessageQueue) -> JavaResult<i32> {
        let npe = |what: &str| {
            JavaError::NullPointer(format!(
                "cannot compare a MessageQueue whose {what} is None"
            ))
        };
        let (Some(t1), Some(t2)) = (self.topic(), o.topic()) else {
            return Err(npe("topic"));
        };
        // names shared by the two queues (one route's queues share them) compare equal without a scan
        let same = |a: &Option<Arc<str>>, b: &Option<Arc<str>>| match (a, b) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        if !same(&self.topic, &o.topic) {
            let r = string_compare(t1, t2);
            if r != 0 {
                return Ok(r);
            }
        }
        let (Some(b1), Some(b2)) = (self.broker_name(), o.broker_name()) else {
            return Err(npe("broker_name"));
        };
        if !same(&self.broker_name, &o.broker_name) {
            let r = string_compare(b1, b2);
            if r != 0 {
                return Ok(r);
            }
        }
        Ok(self.queue_id.wrapping_sub(o.queue_id))
    }

    /// `compare_to` as an `Ordering`, for sorting queues whose names are set.
    pub fn java_cmp(&self, o: &MessageQueue) -> Ordering {
        self.compare_to(o).unwrap_or(0).cmp(&0)
    }
}

impl PartialEq for MessageQueue {
    fn eq(&self, o: &Self) -> bool {
        let same = |a: &Option<Arc<str>>, b: &Option<Arc<str>>| match (a, b) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => a == b,
        };
        self.queue_id == o.queue_id
            && self.hash == o.hash
            && same(&self.topic, &o.topic)
            && same(&self.broker_name, &o.broker_name)
    }
}

impl Eq for MessageQueue {}

impl std::hash::Hash for MessageQueue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_i32(self.hash);
    }
}

impl fmt::Display for MessageQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MessageQueue [topic={}, brokerName={}, queueId={}]",
            self.topic().unwrap_or("null"),
            self.broker_name().unwrap_or("null"),
            self.queue_id
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_string_and_hash_like_java() {
        let mq = MessageQueue::of("5ET_g", "room1@broker-a", -189881383);
        assert_eq!(
            mq.to_string(),
            "MessageQueue [topic=5ET_g, brokerName=room1@broker-a, queueId=-189881383]"
        );
        assert_eq!(mq.java_hash_code(), -1600849367);
        let n = MessageQueue::new(None, None, 3);
        assert_eq!(
            n.to_string(),
            "MessageQueue [topic=null, brokerName=null, queueId=3]"
        );
        assert_eq!(n.java_hash_code(), (31 * 31 + 3) * 31);
    }

    #[test]
    fn compare_overflows_like_java() {
        let a = MessageQueue::of("T", "b", i32::MIN);
        let b = MessageQueue::of("T", "b", 1);
        assert_eq!(a.compare_to(&b).unwrap(), i32::MAX);
        assert_eq!(b.compare_to(&a).unwrap(), -i32::MAX);
        assert!(MessageQueue::new(None, None, 0).compare_to(&a).is_err());
    }
}
