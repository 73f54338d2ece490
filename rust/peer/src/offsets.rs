//! The consumer offsets the peer keeps (the one thing it stores): what each group committed for each queue, by
//! UPDATE_CONSUMER_OFFSET or riding on a pull (`commitOffset` with the commit flag), read back by
//! QUERY_CONSUMER_OFFSET. A queue the group never committed is QUERY_NOT_FOUND (22), as the broker answers when the
//! queue's first message is not in memory: the consumer then starts where its `consumeFromWhere` says (the first
//! offset for CONSUME_FROM_FIRST_OFFSET, the max offset, read by GET_MAX_OFFSET, for CONSUME_FROM_LAST_OFFSET).

use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct Offsets {
    committed: Mutex<HashMap<(String, String, i64), i64>>,
}

impl Offsets {
    pub fn commit(&self, group: &str, topic: &str, queue_id: i64, offset: i64) {
        let key = (group.to_string(), topic.to_string(), queue_id);
        self.committed
            .lock()
            .expect("offsets lock")
            .insert(key, offset);
    }

    pub fn query(&self, group: &str, topic: &str, queue_id: i64) -> Option<i64> {
        let key = (group.to_string(), topic.to_string(), queue_id);
        self.committed
            .lock()
            .expect("offsets lock")
            .get(&key)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_is_read_back_per_group_topic_and_queue() {
        let o = Offsets::default();
        assert_eq!(o.query("g", "T", 1), None);
        o.commit("g", "T", 1, 40);
        o.commit("g", "T", 1, 64);
        o.commit("h", "T", 1, 3);
        assert_eq!(
            (
                o.query("g", "T", 1),
                o.query("h", "T", 1),
                o.query("g", "T", 2)
            ),
            (Some(64), Some(3), None)
        );
    }
}
