//! `MQFaultStrategy`: the queue of each send attempt, with latency fault tolerance, per profile.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use crate::compat::Compat;
use crate::error::{JavaError, JavaResult};
use crate::fault::LatencyFaultTolerance;
use crate::intern::{self, NO_BROKER};
use crate::java::abs;
use crate::message_queue::MessageQueue;
use crate::publish_info::TopicPublishInfo;

/// Each profile's default `latencyMax`, `notAvailableDuration` and isolation latency.
pub fn default_tables(compat: Compat) -> (&'static [i64], &'static [i64], i64) {
    match compat {
        Compat::V5_3 => (
            &[50, 100, 550, 1800, 3000, 5000, 15000],
            &[0, 0, 2000, 5000, 6000, 10000, 30000],
            10000,
        ),
        Compat::V4_9 => (
            &[50, 100, 550, 1000, 2000, 3000, 15000],
            &[0, 0, 30000, 60000, 120000, 180000, 600000],
            30000,
        ),
    }
}

/// What a selection returns: a queue of the publish info, or (4.9's `pickOneAtLeast` path) a queue
/// made up on the picked broker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selected {
    Queue(usize),
    New(MessageQueue),
}

/// `latencyMax` and `notAvailableDuration`, set together or apart (Java has a setter for each); `None` is
/// Java's null array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultTables {
    pub latency_max: Option<Vec<i64>>,
    pub not_available_duration: Option<Vec<i64>>,
}

pub struct MQFaultStrategy {
    compat: Compat,
    lft: Arc<LatencyFaultTolerance>,
    tables: RwLock<Arc<FaultTables>>,
    send_latency_fault_enable: AtomicBool,
}

impl MQFaultStrategy {
    pub fn new(
        lft: Arc<LatencyFaultTolerance>,
        latency_max: Option<Vec<i64>>,
        not_available_duration: Option<Vec<i64>>,
        send_latency_fault_enable: bool,
    ) -> JavaResult<Self> {
        let compat = lft.compat();
        let (lm, nad, _) = default_tables(compat);
        let tables = FaultTables {
            latency_max: Some(latency_max.unwrap_or_else(|| lm.to_vec())),
            not_available_duration: Some(not_available_duration.unwrap_or_else(|| nad.to_vec())),
        };
        Ok(MQFaultStrategy {
            compat,
            lft,
            tables: RwLock::new(Arc::new(tables)),
            send_latency_fault_enable: AtomicBool::new(send_latency_fault_enable),
        })
    }

    pub fn compat(&self) -> Compat {
        self.compat
    }
    pub fn latency_fault_tolerance(&self) -> &Arc<LatencyFaultTolerance> {
        &self.lft
    }
    /// Both tables as they are now.
    pub fn tables(&self) -> Arc<FaultTables> {
        self.tables
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
    /// `setLatencyMax`: the other table is left as it is, whatever its length.
    pub fn set_latency_max(&self, v: Option<Vec<i64>>) {
        let mut t = self.tables.write().unwrap_or_else(|e| e.into_inner());
        *t = Arc::new(FaultTables {
            latency_max: v,
            not_available_duration: t.not_available_duration.clone(),
        });
    }
    /// `setNotAvailableDuration`.
    pub fn set_not_available_duration(&self, v: Option<Vec<i64>>) {
        let mut t = self.tables.write().unwrap_or_else(|e| e.into_inner());
        *t = Arc::new(FaultTables {
            latency_max: t.latency_max.clone(),
            not_available_duration: v,
        });
    }
    pub fn isolation_latency(&self) -> i64 {
        default_tables(self.compat).2
    }
    pub fn send_latency_fault_enable(&self) -> bool {
        self.send_latency_fault_enable.load(Ordering::Relaxed)
    }
    pub fn set_send_latency_fault_enable(&self, v: bool) {
        self.send_latency_fault_enable.store(v, Ordering::Relaxed)
    }

    /// `computeNotAvailableDuration`: `notAvailableDuration[i]` for the highest `i` with
    /// `latency >= latencyMax[i]`, else 0. As in Java, a null `latencyMax` is a `NullPointerException`,
    /// and a match past the end of `notAvailableDuration` an `ArrayIndexOutOfBoundsException`.
    pub fn compute_not_available_duration(&self, current_latency: i64) -> JavaResult<i64> {
        // read in place (no Arc clone): the send path calls this once per send
        let tables = self.tables.read().unwrap_or_else(|e| e.into_inner());
        let Some(lm) = &tables.latency_max else {
            return Err(JavaError::NullPointer("latency_max is None".to_owned()));
        };
        let Some(i) = (0..lm.len()).rev().find(|&i| current_latency >= lm[i]) else {
            return Ok(0);
        };
        let Some(nad) = &tables.not_available_duration else {
            return Err(JavaError::NullPointer(
                "not_available_duration is None".to_owned(),
            ));
        };
        nad.get(i).copied().ok_or_else(|| {
            JavaError::IndexOutOfBounds(format!("Index {i} out of bounds for length {}", nad.len()))
        })
    }

    pub fn update_fault_item(
        &self,
        broker: &str,
        current_latency: i64,
        isolation: bool,
        reachable: bool,
    ) -> JavaResult<()> {
        if self.send_latency_fault_enable() {
            let latency = if isolation {
                self.isolation_latency()
            } else {
                current_latency
            };
            let duration = self.compute_not_available_duration(latency)?;
            self.lft
                .update_fault_item(broker, current_latency, duration, reachable);
        }
        Ok(())
    }

    /// The queue for the next send attempt; `reset_index` only matters on 5.3.
    pub fn select(
        &self,
        tp: &TopicPublishInfo,
        last_broker: Option<&str>,
        reset_index: bool,
    ) -> JavaResult<Selected> {
        match self.compat {
            Compat::V5_3 => self.select_53(tp, last_broker, reset_index),
            Compat::V4_9 => self.select_49(tp, last_broker),
        }
    }

    fn select_53(
        &self,
        tp: &TopicPublishInfo,
        last: Option<&str>,
        reset_index: bool,
    ) -> JavaResult<Selected> {
        let last_id = last.map(|l| intern::lookup(l).unwrap_or(NO_BROKER));
        let ids = tp.broker_ids();
        let other = |p: usize| last_id.is_none_or(|l| ids[p] != l);
        let never = |r: Result<Option<usize>, std::convert::Infallible>| match r {
            Ok(v) => v,
            Err(e) => match e {},
        };
        if self.send_latency_fault_enable() {
            if reset_index {
                tp.index().reset();
            }
            let lft = &*self.lft;
            let mut available = |p: usize| Ok(lft.is_available_id(ids[p]) & other(p));
            if let Some(p) = never(tp.select_filtered(Some(&mut available))) {
                return Ok(Selected::Queue(p));
            }
            let mut reachable = |p: usize| Ok(lft.is_reachable_id(ids[p]) & other(p));
            if let Some(p) = never(tp.select_filtered(Some(&mut reachable))) {
                return Ok(Selected::Queue(p));
            }
            return tp.next_pos().map(Selected::Queue);
        }
        let mut not_last = |p: usize| Ok(other(p));
        if let Some(p) = never(tp.select_filtered(Some(&mut not_last))) {
            return Ok(Selected::Queue(p));
        }
        tp.next_pos().map(Selected::Queue)
    }

    fn select_49(&self, tp: &TopicPublishInfo, last: Option<&str>) -> JavaResult<Selected> {
        if !self.send_latency_fault_enable() {
            return tp.select_one(last).map(Selected::Queue);
        }
        // Java runs this block in try/catch(Exception) and falls back on a plain pick.
        if let Ok(Some(sel)) = self.select_49_tolerant(tp) {
            return Ok(sel);
        }
        tp.next_pos().map(Selected::Queue)
    }

    fn select_49_tolerant(&self, tp: &TopicPublishInfo) -> JavaResult<Option<Selected>> {
        let n = tp.queues().len();
        let mut index = tp.index().increment_and_get();
        for _ in 0..n {
            let pos = abs(index) % n as i32;
            index = index.wrapping_add(1);
            let pos = pos.max(0) as usize;
            if self.lft.is_available_id(tp.broker_ids()[pos]) {
                return Ok(Some(Selected::Queue(pos)));
            }
        }
        let not_best = self.lft.pick_one_at_least();
        let write_queue_nums = tp.write_queue_nums_by_broker(not_best.as_deref())?;
        if write_queue_nums > 0 {
            let pos = tp.next_pos()?;
            return Ok(Some(match not_best {
                Some(broker) => {
                    let qid = tp.index().increment_and_get() % write_queue_nums;
                    let topic = tp.queues()[pos].topic_arc().cloned();
                    Selected::New(MessageQueue::new(topic, Some(broker), qid))
                }
                None => Selected::Queue(pos),
            }));
        }
        match not_best {
            Some(b) => self.lft.remove(&b),
            None => {
                return Err(JavaError::NullPointer(
                    "ConcurrentHashMap.remove(null)".to_owned(),
                ))
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, ManualClock};
    use crate::counter::SendWhichQueue;
    use crate::java::JavaRandom;

    fn setup(compat: Compat) -> (MQFaultStrategy, TopicPublishInfo) {
        let rnd = Arc::new(JavaRandom::new(11));
        let lft = Arc::new(LatencyFaultTolerance::new(
            compat,
            Clock::Manual(ManualClock::new(5000)),
            rnd.clone(),
        ));
        let s = MQFaultStrategy::new(lft, None, None, true).unwrap();
        let mut qs = Vec::new();
        for b in ["st-a", "st-b"] {
            for q in 0..2 {
                qs.push(MessageQueue::of("T", b, q));
            }
        }
        let idx = Arc::new(SendWhichQueue::new(compat, Some(-1), rnd));
        (
            s,
            TopicPublishInfo::new(qs, false, None, compat, idx).unwrap(),
        )
    }

    #[test]
    fn isolated_broker_is_avoided() {
        for compat in [Compat::V5_3, Compat::V4_9] {
            let (s, tp) = setup(compat);
            s.update_fault_item("st-a", 0, true, true).unwrap();
            for _ in 0..6 {
                let Selected::Queue(p) = s.select(&tp, None, false).unwrap() else {
                    panic!()
                };
                assert_eq!(tp.queues()[p].broker_name(), Some("st-b"));
            }
        }
    }

    #[test]
    fn tables_per_profile() {
        let (s5, _) = setup(Compat::V5_3);
        assert_eq!(s5.compute_not_available_duration(10000), Ok(10000));
        assert_eq!(s5.compute_not_available_duration(49), Ok(0));
        let (s4, _) = setup(Compat::V4_9);
        assert_eq!(s4.compute_not_available_duration(30000), Ok(600000));
        assert_eq!(s4.compute_not_available_duration(i64::MIN), Ok(0));
        // the setters are independent: a latency matching past the shorter table fails as in Java
        s4.set_not_available_duration(Some(vec![0, 5]));
        assert_eq!(s4.compute_not_available_duration(100), Ok(5));
        assert!(matches!(
            s4.compute_not_available_duration(550),
            Err(JavaError::IndexOutOfBounds(m)) if m == "Index 2 out of bounds for length 2"
        ));
        s4.set_latency_max(None);
        assert!(matches!(
            s4.compute_not_available_duration(0),
            Err(JavaError::NullPointer(_))
        ));
    }
}
