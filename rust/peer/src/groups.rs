//! Consumer groups as the broker knows them: who is in a group (the client ids that sent a heartbeat for it, until
//! they unregister or their connection closes; GET_CONSUMER_LIST_BY_GROUP answers from it, so clients rebalance
//! among themselves) and which client holds each queue's lock (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ, for orderly
//! consumers; a lock lapses 60 s after it was last taken, as the broker's `REBALANCE_LOCK_MAX_LIVE_TIME`).
//!
//! When a group's members change, each member's connection gets a oneway NOTIFY_CONSUMER_IDS_CHANGED (40), as the
//! broker sends it, so the members rebalance at once rather than at their next periodic rebalance (20 s in Java's
//! client): the methods that change the members return the groups changed.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

const LOCK_LIFE: Duration = Duration::from_secs(60);

#[derive(Default)]
pub struct Groups {
    /// group -> client id -> the connection its heartbeat came on
    members: Mutex<HashMap<String, HashMap<String, u64>>>,
    /// (group, queue) -> the client holding it and when it last took it
    locks: Mutex<HashMap<(String, Queue), (String, Instant)>>,
}

#[derive(Deserialize)]
struct Heartbeat {
    #[serde(rename = "clientID")]
    client_id: String,
    #[serde(default, rename = "consumerDataSet")]
    consumers: Vec<ConsumerData>,
}

#[derive(Deserialize)]
struct ConsumerData {
    #[serde(rename = "groupName")]
    group: String,
}

/// A `MessageQueue` as a lock body carries it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Queue {
    topic: String,
    #[serde(rename = "brokerName")]
    broker_name: String,
    #[serde(rename = "queueId")]
    queue_id: i32,
}

#[derive(Deserialize)]
struct LockBody {
    #[serde(rename = "consumerGroup")]
    group: String,
    #[serde(rename = "clientId")]
    client_id: String,
    #[serde(default, rename = "mqSet")]
    queues: Vec<Queue>,
}

#[derive(Serialize)]
struct LockAnswer<'a> {
    #[serde(rename = "lockOKMQSet")]
    locked: Vec<&'a Queue>,
}

#[derive(Serialize)]
struct ConsumerList<'a> {
    #[serde(rename = "consumerIdList")]
    client_ids: Vec<&'a String>,
}

impl Groups {
    /// A HEART_BEAT body: its client joins each consumer group it names; the groups it joined. A body the peer
    /// cannot read changes nothing (the heartbeat still succeeds: producers' bodies matter to no answer).
    pub fn heartbeat(&self, body: &[u8], connection: u64) -> Vec<String> {
        let Ok(beat) = serde_json::from_slice::<Heartbeat>(body) else {
            return Vec::new();
        };
        let mut members = self.members.lock().expect("groups lock");
        let mut joined = Vec::new();
        for consumer in beat.consumers {
            let clients = members.entry(consumer.group.clone()).or_default();
            if clients.insert(beat.client_id.clone(), connection) != Some(connection) {
                joined.push(consumer.group);
            }
        }
        joined
    }

    /// UNREGISTER_CLIENT of a consumer: it leaves the group. Whether it was in it.
    pub fn unregister(&self, group: &str, client_id: &str) -> bool {
        let mut members = self.members.lock().expect("groups lock");
        let Some(clients) = members.get_mut(group) else {
            return false;
        };
        let left = clients.remove(client_id).is_some();
        if clients.is_empty() {
            members.remove(group);
        }
        left
    }

    /// A connection closed: the clients whose heartbeats came on it leave their groups, as the broker forgets a
    /// closed channel's clients. The groups they left.
    pub fn closed(&self, connection: u64) -> Vec<String> {
        let mut members = self.members.lock().expect("groups lock");
        let mut left = Vec::new();
        members.retain(|group, clients| {
            let before = clients.len();
            clients.retain(|_, c| *c != connection);
            if clients.len() != before {
                left.push(group.clone());
            }
            !clients.is_empty()
        });
        left
    }

    /// The connections the group's members sent their heartbeats on.
    pub fn connections(&self, group: &str) -> BTreeSet<u64> {
        let members = self.members.lock().expect("groups lock");
        members
            .get(group)
            .map(|clients| clients.values().copied().collect())
            .unwrap_or_default()
    }

    /// GET_CONSUMER_LIST_BY_GROUP's body (`{"consumerIdList":[...]}`, sorted), or `None` for a group without a
    /// member.
    pub fn consumer_list(&self, group: &str) -> Option<Vec<u8>> {
        let members = self.members.lock().expect("groups lock");
        let clients = members.get(group).filter(|c| !c.is_empty())?;
        let mut client_ids: Vec<&String> = clients.keys().collect();
        client_ids.sort();
        serde_json::to_vec(&ConsumerList { client_ids }).ok()
    }

    /// LOCK_BATCH_MQ: the queues of the body that are free, lapsed or already the client's become the client's;
    /// the answer's body names them (`{"lockOKMQSet":[...]}`). `None` for a body the peer cannot read.
    pub fn lock(&self, body: &[u8]) -> Option<Vec<u8>> {
        let request: LockBody = serde_json::from_slice(body).ok()?;
        let now = Instant::now();
        let mut locks = self.locks.lock().expect("locks lock");
        let queues: BTreeSet<&Queue> = request.queues.iter().collect();
        let mut locked = Vec::new();
        for queue in queues {
            let key = (request.group.clone(), queue.clone());
            let free = match locks.get(&key) {
                None => true,
                Some((holder, at)) => *holder == request.client_id || now - *at > LOCK_LIFE,
            };
            if free {
                locks.insert(key, (request.client_id.clone(), now));
                locked.push(queue);
            }
        }
        serde_json::to_vec(&LockAnswer { locked }).ok()
    }

    /// UNLOCK_BATCH_MQ: the client's locks of the body's queues are released. `false` for a body the peer cannot
    /// read.
    pub fn unlock(&self, body: &[u8]) -> bool {
        let Ok(request) = serde_json::from_slice::<LockBody>(body) else {
            return false;
        };
        let mut locks = self.locks.lock().expect("locks lock");
        for queue in request.queues {
            let key = (request.group.clone(), queue);
            if locks
                .get(&key)
                .is_some_and(|(holder, _)| *holder == request.client_id)
            {
                locks.remove(&key);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beat(client: &str, groups: &[&str]) -> Vec<u8> {
        let consumers: Vec<String> = groups
            .iter()
            .map(|g| format!("{{\"groupName\":\"{g}\",\"consumeType\":\"CONSUME_PASSIVELY\"}}"))
            .collect();
        format!(
            "{{\"clientID\":\"{client}\",\"consumerDataSet\":[{}],\"producerDataSet\":[]}}",
            consumers.join(",")
        )
        .into_bytes()
    }

    fn list(g: &Groups, group: &str) -> Option<serde_json::Value> {
        g.consumer_list(group)
            .map(|b| serde_json::from_slice(&b).unwrap())
    }

    #[test]
    fn a_group_is_the_clients_that_sent_heartbeats_for_it_until_they_leave() {
        let g = Groups::default();
        assert_eq!(g.heartbeat(&beat("b@1", &["g1", "g2"]), 1), ["g1", "g2"]);
        assert_eq!(g.heartbeat(&beat("a@2", &["g1"]), 2), ["g1"]);
        assert!(
            g.heartbeat(&beat("a@2", &["g1"]), 2).is_empty(),
            "the same member again"
        );
        assert!(g.heartbeat(b"not json", 2).is_empty());
        assert_eq!(
            list(&g, "g1").unwrap()["consumerIdList"],
            serde_json::json!(["a@2", "b@1"])
        );
        assert_eq!(g.connections("g1"), BTreeSet::from([1, 2]));
        assert!(g.unregister("g1", "a@2") && !g.unregister("g1", "a@2"));
        assert_eq!(
            list(&g, "g1").unwrap()["consumerIdList"],
            serde_json::json!(["b@1"])
        );
        let mut left = g.closed(1);
        left.sort();
        assert_eq!(left, ["g1", "g2"]);
        assert!(list(&g, "g1").is_none() && list(&g, "g2").is_none());
    }

    fn lock_body(client: &str, queues: &[i32]) -> Vec<u8> {
        let mqs: Vec<String> = queues
            .iter()
            .map(|q| format!("{{\"topic\":\"T\",\"brokerName\":\"broker-a\",\"queueId\":{q}}}"))
            .collect();
        format!(
            "{{\"consumerGroup\":\"g\",\"clientId\":\"{client}\",\"onlyThisBroker\":false,\"mqSet\":[{}]}}",
            mqs.join(",")
        )
        .into_bytes()
    }

    fn locked(answer: Option<Vec<u8>>) -> Vec<i64> {
        let v: serde_json::Value = serde_json::from_slice(&answer.unwrap()).unwrap();
        v["lockOKMQSet"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["queueId"].as_i64().unwrap())
            .collect()
    }

    #[test]
    fn a_queue_is_locked_by_one_client_at_a_time() {
        let g = Groups::default();
        assert_eq!(locked(g.lock(&lock_body("a", &[1, 0]))), [0, 1]);
        assert_eq!(locked(g.lock(&lock_body("b", &[1, 2]))), [2]);
        assert_eq!(locked(g.lock(&lock_body("a", &[0, 1, 2]))), [0, 1]);
        assert!(g.unlock(&lock_body("a", &[1])));
        assert_eq!(locked(g.lock(&lock_body("b", &[1]))), [1]);
        assert!(g.lock(b"{}").is_none() && !g.unlock(b"[]"));
    }
}
