//! Consumer queue allocation: the arithmetic of the six `AllocateMessageQueueStrategy` classes, over
//! positions in `mqAll` / `cidAll`, so callers keep their own queue and consumer objects.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use crate::error::{JavaError, JavaResult};
use crate::java::{split, string_compare};
use crate::ring::{ConsistentHashRouter, RingError};

/// `AbstractAllocateMessageQueueStrategy.check`: the position of `current` in `cids`, `None` for a
/// consumer that is not a member (an empty result); Java's `IllegalArgumentException`s for empty input.
pub fn check<S: AsRef<str>>(
    current: Option<&str>,
    mq_count: Option<usize>,
    cids: Option<&[S]>,
) -> JavaResult<Option<usize>> {
    let current = current.filter(|c| !c.is_empty());
    let Some(current) = current else {
        return Err(JavaError::IllegalArgument("currentCID is empty".to_owned()));
    };
    if mq_count.unwrap_or(0) == 0 {
        return Err(JavaError::IllegalArgument(
            "mqAll is null or mqAll empty".to_owned(),
        ));
    }
    let cids = cids.unwrap_or(&[]);
    if cids.is_empty() {
        return Err(JavaError::IllegalArgument(
            "cidAll is null or cidAll empty".to_owned(),
        ));
    }
    Ok(cids.iter().position(|c| c.as_ref() == current))
}

/// `AllocateMessageQueueAveragely`: the block of queue positions of the consumer at `index`.
pub fn averagely(index: usize, n_mq: usize, n_cid: usize) -> Range<usize> {
    let m = n_mq % n_cid;
    let average = if n_mq <= n_cid {
        1
    } else if m > 0 && index < m {
        n_mq / n_cid + 1
    } else {
        n_mq / n_cid
    };
    let start = if m > 0 && index < m {
        index * average
    } else {
        index * average + m
    };
    let len = average.min(n_mq.saturating_sub(start));
    start..start + len
}

/// `AllocateMessageQueueAveragelyByCircle`: positions `index, index + n_cid, ...`.
pub fn averagely_by_circle(index: usize, n_mq: usize, n_cid: usize) -> impl Iterator<Item = usize> {
    (index..n_mq).step_by(n_cid.max(1))
}

/// `AllocateMessageQueueByMachineRoom`: among queues whose broker is `"<room>@<name>"` with `room` in
/// `idcs`, equal blocks plus one of the remainder for the first consumers. `brokers[i]` is the broker
/// name of queue `i`.
pub fn by_machine_room(
    idcs: Option<&HashSet<String>>,
    brokers: &[Option<&str>],
    index: usize,
    n_cid: usize,
) -> JavaResult<Vec<usize>> {
    let mut pre = Vec::new();
    for (i, b) in brokers.iter().enumerate() {
        let b = b.ok_or_else(|| JavaError::NullPointer("a queue has no broker name".to_owned()))?;
        let parts = split(b, '@');
        if parts.len() == 2 {
            let idcs =
                idcs.ok_or_else(|| JavaError::NullPointer("consumer_idcs is None".to_owned()))?;
            if idcs.contains(parts[0]) {
                pre.push(i);
            }
        }
    }
    let (m, rem) = (pre.len() / n_cid, pre.len() % n_cid);
    let mut out: Vec<usize> = pre[m * index..m * index + m].to_vec();
    if rem > index {
        out.push(pre[index + m * n_cid]);
    }
    Ok(out)
}

/// The ring `AllocateMessageQueueConsistentHash` builds: every consumer (duplicates included, in order)
/// with `vnodes` virtual nodes.
pub fn consistent_hash_ring<E>(
    cids: &[Arc<str>],
    vnodes: i32,
    hash: &mut dyn FnMut(&str) -> Result<i64, E>,
) -> Result<ConsistentHashRouter, RingError<E>> {
    let mut ring = ConsistentHashRouter::new();
    for c in cids {
        ring.add_node(c, vnodes, hash)?;
    }
    Ok(ring)
}

/// What `AllocateMachineRoomNearby` hands its inner strategy: the current consumer's room (its queues
/// and the consumers there), then each room without consumers (shared by all), in Java's room order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct NearbyPlan {
    pub local: Option<(Vec<usize>, Vec<usize>)>,
    pub shared: Vec<Vec<usize>>,
}

/// `mq_rooms[i]` / `cid_rooms[j]`: the (non-empty) room of each queue / consumer.
pub fn machine_room_nearby_plan<S: AsRef<str>>(
    mq_rooms: &[S],
    cid_rooms: &[S],
    current_room: &str,
) -> NearbyPlan {
    // each room's queues in one pass (Java groups them in a map), rooms in String order (its TreeMap)
    let mut queues_in: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in mq_rooms.iter().enumerate() {
        queues_in.entry(r.as_ref()).or_default().push(i);
    }
    let mut rooms: Vec<&str> = queues_in.keys().copied().collect();
    rooms.sort_by(|a, b| string_compare(a, b).cmp(&0));
    let consumer_rooms: HashSet<&str> = cid_rooms.iter().map(|r| r.as_ref()).collect();
    let mut plan = NearbyPlan::default();
    if let Some(local) = queues_in.remove(current_room) {
        let cids: Vec<usize> = cid_rooms
            .iter()
            .enumerate()
            .filter(|(_, r)| r.as_ref() == current_room)
            .map(|(i, _)| i)
            .collect();
        plan.local = Some((local, cids));
    }
    for room in rooms {
        if room != current_room && !consumer_rooms.contains(room) {
            plan.shared.extend(queues_in.remove(room));
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring::md5_fn;

    #[test]
    fn check_like_java() {
        let cids = ["a", "b"];
        assert_eq!(check(Some("b"), Some(3), Some(&cids[..])).unwrap(), Some(1));
        assert_eq!(check(Some("z"), Some(3), Some(&cids[..])).unwrap(), None);
        let msg = |r: JavaResult<Option<usize>>| r.unwrap_err().message().to_owned();
        assert_eq!(
            msg(check(Some(""), Some(3), Some(&cids[..]))),
            "currentCID is empty"
        );
        assert_eq!(
            msg(check(None, None, Some(&cids[..]))),
            "currentCID is empty"
        );
        assert_eq!(
            msg(check(Some("a"), Some(0), Some(&cids[..]))),
            "mqAll is null or mqAll empty"
        );
        assert_eq!(
            msg(check::<&str>(Some("a"), Some(1), None)),
            "cidAll is null or cidAll empty"
        );
    }

    #[test]
    fn averagely_partitions() {
        for n_mq in 1..40 {
            for n_cid in 1..12 {
                let mut all: Vec<usize> =
                    (0..n_cid).flat_map(|i| averagely(i, n_mq, n_cid)).collect();
                all.sort();
                if n_mq >= n_cid {
                    assert_eq!(all, (0..n_mq).collect::<Vec<_>>());
                } else {
                    assert_eq!(all, (0..n_mq).collect::<Vec<_>>(), "{n_mq} {n_cid}");
                }
                let mut circle: Vec<usize> = (0..n_cid)
                    .flat_map(|i| averagely_by_circle(i, n_mq, n_cid))
                    .collect();
                circle.sort();
                assert_eq!(circle, (0..n_mq).collect::<Vec<_>>());
            }
        }
        assert_eq!(averagely(0, 10, 3), 0..4);
        assert_eq!(averagely(2, 10, 3), 7..10);
    }

    #[test]
    fn machine_room_blocks() {
        let idcs: HashSet<String> = ["room1".to_owned()].into();
        let brokers = [
            Some("room1@a"),
            Some("room2@b"),
            Some("room1@c"),
            Some("plain"),
            Some("room1@d"),
        ];
        assert_eq!(
            by_machine_room(Some(&idcs), &brokers, 0, 2).unwrap(),
            vec![0, 4]
        );
        assert_eq!(
            by_machine_room(Some(&idcs), &brokers, 1, 2).unwrap(),
            vec![2]
        );
        assert!(by_machine_room(None, &brokers, 0, 2).is_err());
    }

    #[test]
    fn consistent_hash_ring_routes_to_members() {
        let cids: Vec<Arc<str>> = ["c1", "c2", "c3"].into_iter().map(Arc::from).collect();
        let ring = consistent_hash_ring(&cids, 10, &mut md5_fn).unwrap();
        assert_eq!(ring.len(), 30);
        let owner = ring
            .route(
                "MessageQueue [topic=t, brokerName=b, queueId=0]",
                &mut md5_fn,
            )
            .unwrap();
        assert!(cids.contains(owner.unwrap()));
    }

    #[test]
    fn nearby_plan_orders_rooms_like_a_tree_map() {
        let mq_rooms = ["B", "A", "C", "A", "D"];
        let cid_rooms = ["A", "C"];
        let plan = machine_room_nearby_plan(&mq_rooms, &cid_rooms, "A");
        assert_eq!(plan.local, Some((vec![1, 3], vec![0])));
        assert_eq!(plan.shared, vec![vec![0], vec![4]]);
    }
}
