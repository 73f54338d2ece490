//! `TopicPublishInfo`: a topic's publish queues, their interned broker ids and the round-robin index.

use std::collections::HashMap;
use std::sync::Arc;

use crate::compat::Compat;
use crate::counter::SendWhichQueue;
use crate::error::{JavaError, JavaResult};
use crate::intern::{self, BrokerId, BrokerName, NO_BROKER};
use crate::java::abs;
use crate::message_queue::MessageQueue;
use crate::route::{perm, TopicRouteData};

pub struct TopicPublishInfo {
    queues: Vec<MessageQueue>,
    broker_ids: Vec<BrokerId>,
    /// holds the brokers' names, so their ids stay theirs while this info lives
    _brokers: Vec<BrokerName>,
    order_topic: bool,
    route: Option<TopicRouteData>,
    compat: Compat,
    index: Arc<SendWhichQueue>,
}

impl TopicPublishInfo {
    /// Queues whose topic or broker name is null are refused (Java would fail later, on first use).
    pub fn new(
        queues: Vec<MessageQueue>,
        order_topic: bool,
        route: Option<TopicRouteData>,
        compat: Compat,
        index: Arc<SendWhichQueue>,
    ) -> JavaResult<Self> {
        let mut broker_ids = Vec::with_capacity(queues.len());
        let mut brokers: Vec<BrokerName> = Vec::new();
        let mut seen: HashMap<&str, BrokerId> = HashMap::new();
        let mut last: Option<(&Arc<str>, BrokerId)> = None;
        for mq in &queues {
            match (mq.topic(), mq.broker_arc()) {
                (Some(_), Some(b)) => {
                    // a route's queues share their broker's name: no hashing of it per queue
                    if let Some((_, id)) = last.filter(|(arc, _)| Arc::ptr_eq(arc, b)) {
                        broker_ids.push(id);
                        continue;
                    }
                    let id = *seen.entry(&**b).or_insert_with(|| {
                        let held = BrokerName::new(b);
                        let id = held.id();
                        brokers.push(held);
                        id
                    });
                    last = Some((b, id));
                    broker_ids.push(id);
                }
                _ => {
                    return Err(JavaError::NullPointer(format!(
                        "publish queue {mq} has no topic or broker name"
                    )))
                }
            }
        }
        Ok(TopicPublishInfo {
            queues,
            broker_ids,
            _brokers: brokers,
            order_topic,
            route,
            compat,
            index,
        })
    }

    /// `topicRouteData2TopicPublishInfo`; the info keeps the route with its queue datas sorted as
    /// Java leaves them.
    pub fn from_route(
        topic: &str,
        route: &TopicRouteData,
        compat: Compat,
        index: Arc<SendWhichQueue>,
    ) -> JavaResult<Self> {
        let (queues, order_topic) = route.publish_queues(topic, compat)?;
        let mut kept = route.clone();
        if !order_topic && !route.publishes_logic_queues(compat) {
            // the normal path sorts the route's own list
            kept.queue_datas = Some(route.sorted_queue_datas()?);
        }
        Self::new(queues, order_topic, Some(kept), compat, index)
    }

    pub fn queues(&self) -> &[MessageQueue] {
        &self.queues
    }
    pub fn broker_ids(&self) -> &[BrokerId] {
        &self.broker_ids
    }
    pub fn order_topic(&self) -> bool {
        self.order_topic
    }
    pub fn route(&self) -> Option<&TopicRouteData> {
        self.route.as_ref()
    }
    pub fn compat(&self) -> Compat {
        self.compat
    }
    pub fn index(&self) -> &Arc<SendWhichQueue> {
        &self.index
    }
    pub fn ok(&self) -> bool {
        !self.queues.is_empty()
    }

    /// `selectOneMessageQueue()`: the next position round-robin.
    #[inline]
    pub fn next_pos(&self) -> JavaResult<usize> {
        let i = self.index.increment_and_get();
        if self.queues.is_empty() {
            return Err(JavaError::div_by_zero());
        }
        Ok(i as usize % self.queues.len())
    }

    /// `selectOneMessageQueue(lastBrokerName)`: the next queue on another broker (one turn at most),
    /// else the next queue. The turn is one call's own, as with Java's per-thread index.
    pub fn select_one(&self, last_broker: Option<&str>) -> JavaResult<usize> {
        let n = self.queues.len();
        let (Some(last), true) = (last_broker, n > 0) else {
            return self.next_pos();
        };
        let last_id = intern::lookup(last).unwrap_or(NO_BROKER);
        let taken = self.index.take_turn(n + 1, |i, v| {
            Ok::<_, std::convert::Infallible>(i == n || self.broker_ids[v as usize % n] != last_id)
        });
        match taken {
            Ok(Some(v)) => Ok(v as usize % n),
            Ok(None) => unreachable!("the last value of the turn is always taken"),
            Err(never) => match never {},
        }
    }

    /// 5.x `selectOneMessageQueue(QueueFilter...)`: one turn at most for a position `accept` takes;
    /// `None` if none (or no queue). `accept` is `None` for an empty filter array. The turn is one
    /// call's own, as with Java's per-thread index, so a queue that passes is always found.
    pub fn select_filtered<E>(
        &self,
        accept: Option<&mut dyn FnMut(usize) -> Result<bool, E>>,
    ) -> Result<Option<usize>, E> {
        let n = self.queues.len();
        if n == 0 {
            return Ok(None);
        }
        let pos = |i: i32| abs(i % n as i32) as usize;
        let Some(accept) = accept else {
            return Ok(Some(pos(self.index.increment_and_get())));
        };
        Ok(self.index.take_turn(n, |_, v| accept(pos(v)))?.map(pos))
    }

    /// `getWriteQueueNumsByBroker` (5.3, any perm) / `getQueueIdByBroker` (4.9, writeable only): the
    /// first matching queue data's `writeQueueNums`, or -1.
    pub fn write_queue_nums_by_broker(&self, broker: Option<&str>) -> JavaResult<i32> {
        let route = self.route.as_ref().ok_or_else(|| {
            JavaError::NullPointer("this TopicPublishInfo has no route".to_owned())
        })?;
        let qds = route
            .queue_datas
            .as_ref()
            .ok_or_else(|| JavaError::NullPointer("queue_datas is None".to_owned()))?;
        for qd in qds {
            if self.compat == Compat::V4_9 && !perm::is_writeable(qd.perm) {
                continue;
            }
            // Java calls `equals` on the queue data's name
            let name = qd.broker_name.as_deref().ok_or_else(|| {
                JavaError::NullPointer("a queue data's broker_name is None".to_owned())
            })?;
            if Some(name) == broker {
                return Ok(qd.write_queue_nums);
            }
        }
        Ok(-1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java::JavaRandom;

    fn info(start: i32) -> TopicPublishInfo {
        let mut qs = Vec::new();
        for b in ["pi-a", "pi-b"] {
            for q in 0..2 {
                qs.push(MessageQueue::of("T", b, q));
            }
        }
        let idx = Arc::new(SendWhichQueue::new(
            Compat::V5_3,
            Some(start),
            Arc::new(JavaRandom::new(1)),
        ));
        TopicPublishInfo::new(qs, false, None, Compat::V5_3, idx).unwrap()
    }

    #[test]
    fn round_robin_and_avoid_last_broker() {
        let tp = info(-1);
        assert_eq!(tp.select_one(None).unwrap(), 0);
        assert_eq!(tp.select_one(None).unwrap(), 1);
        // next are 2 and 3 (pi-b); avoiding pi-b skips both, to 0 (pi-a)
        assert_eq!(tp.select_one(Some("pi-b")).unwrap(), 0);
        assert_eq!(tp.index().get(), Some(4));
    }

    #[test]
    fn empty_list_divides_by_zero_after_incrementing() {
        let idx = Arc::new(SendWhichQueue::new(
            Compat::V4_9,
            Some(5),
            Arc::new(JavaRandom::new(1)),
        ));
        let tp = TopicPublishInfo::new(vec![], false, None, Compat::V4_9, idx).unwrap();
        assert_eq!(
            tp.select_one(Some("x")).unwrap_err(),
            JavaError::div_by_zero()
        );
        assert_eq!(tp.index().get(), Some(6));
        assert_eq!(tp.select_filtered::<()>(None).unwrap(), None);
        assert!(tp.write_queue_nums_by_broker(Some("x")).is_err());
    }
}
