//! `LatencyFaultTolerance`: the fault-item table. Items live in slots indexed by interned broker id,
//! every field an atomic, so the send path reads them without a lock or a string hash.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::clock::Clock;
use crate::compat::Compat;
use crate::counter::SendWhichQueue;
use crate::intern::{self, BrokerId, BrokerName};
use crate::java::JavaRandom;
use crate::slots::Slots;

#[derive(Default)]
struct FaultItem {
    present: AtomicBool,
    latency: AtomicI64,
    start: AtomicI64,
    check_stamp: AtomicI64,
    reachable: AtomicBool,
    /// the broker this slot is for: held while the table lives, so the slot's id stays this name's
    name: OnceLock<BrokerName>,
}

/// A snapshot of one fault item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultItemView {
    pub name: Arc<str>,
    pub current_latency: i64,
    pub start_timestamp: i64,
    pub reachable: bool,
}

/// A service detector: `(address, timeout_ms) -> reachable`.
pub type Detector<'a, E> = &'a mut dyn FnMut(&str, i64) -> Result<bool, E>;

pub struct LatencyFaultTolerance {
    compat: Compat,
    clock: Clock,
    items: Slots<FaultItem>,
    random: Arc<JavaRandom>,
    which_item_worst: Arc<SendWhichQueue>,
    detect_interval: AtomicI64,
    detect_timeout: AtomicI64,
    start_detector_enable: AtomicBool,
}

impl LatencyFaultTolerance {
    pub fn new(compat: Compat, clock: Clock, random: Arc<JavaRandom>) -> Self {
        LatencyFaultTolerance {
            compat,
            clock,
            items: Slots::new(),
            which_item_worst: Arc::new(SendWhichQueue::new(compat, None, random.clone())),
            random,
            detect_interval: AtomicI64::new(2000),
            detect_timeout: AtomicI64::new(200),
            start_detector_enable: AtomicBool::new(false),
        }
    }

    pub fn compat(&self) -> Compat {
        self.compat
    }
    pub fn random(&self) -> &Arc<JavaRandom> {
        &self.random
    }
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
    pub fn which_item_worst(&self) -> &Arc<SendWhichQueue> {
        &self.which_item_worst
    }
    pub fn detect_interval(&self) -> i64 {
        self.detect_interval.load(Ordering::Relaxed)
    }
    pub fn set_detect_interval(&self, v: i64) {
        self.detect_interval.store(v, Ordering::Relaxed)
    }
    pub fn detect_timeout(&self) -> i64 {
        self.detect_timeout.load(Ordering::Relaxed)
    }
    pub fn set_detect_timeout(&self, v: i64) {
        self.detect_timeout.store(v, Ordering::Relaxed)
    }
    pub fn start_detector_enable(&self) -> bool {
        self.start_detector_enable.load(Ordering::Relaxed)
    }
    pub fn set_start_detector_enable(&self, v: bool) {
        self.start_detector_enable.store(v, Ordering::Relaxed)
    }

    fn item(&self, id: BrokerId) -> Option<&FaultItem> {
        self.items
            .get(id as usize)
            .filter(|it| it.present.load(Ordering::Acquire))
    }

    /// The item of `name`, present or not: the slot of its id, if that slot was made for this name.
    fn slot_of(&self, name: &str) -> Option<&FaultItem> {
        let id = intern::lookup(name)?;
        self.items
            .get(id as usize)
            .filter(|it| it.name.get().is_some_and(|n| &**n.name() == name))
    }

    fn item_of(&self, name: &str) -> Option<&FaultItem> {
        self.slot_of(name)
            .filter(|it| it.present.load(Ordering::Acquire))
    }

    pub fn update_fault_item(
        &self,
        name: &str,
        current_latency: i64,
        not_available_duration: i64,
        reachable: bool,
    ) {
        let now = self.clock.now_ms();
        let it = match self.slot_of(name) {
            Some(it) => it,
            None => {
                // the table holds the name from now on, so its id (and this slot) stay the name's
                let held = BrokerName::new(name);
                let it = self.items.get_or_create(held.id() as usize);
                it.name.get_or_init(|| held);
                it
            }
        };
        if !it.present.load(Ordering::Acquire) {
            // a new item (or one re-created after remove) starts from Java's field defaults
            it.start.store(0, Ordering::Release);
            it.check_stamp.store(0, Ordering::Release);
            it.reachable.store(false, Ordering::Release);
            it.present.store(true, Ordering::Release);
        }
        it.latency.store(current_latency, Ordering::Release);
        let until = now.wrapping_add(not_available_duration);
        match self.compat {
            Compat::V4_9 => it.start.store(until, Ordering::Release),
            Compat::V5_3 => {
                if not_available_duration > 0 {
                    it.start.fetch_max(until, Ordering::AcqRel);
                }
                it.reachable.store(reachable, Ordering::Release);
            }
        }
    }

    fn available(&self, it: &FaultItem, now: i64) -> bool {
        let start = it.start.load(Ordering::Acquire);
        match self.compat {
            Compat::V4_9 => now.wrapping_sub(start) >= 0,
            Compat::V5_3 => now >= start,
        }
    }

    /// `isAvailable` by broker id: the send path's lookup.
    #[inline]
    pub fn is_available_id(&self, id: BrokerId) -> bool {
        match self.item(id) {
            None => true,
            Some(it) => self.available(it, self.clock.now_ms()),
        }
    }

    /// `isReachable` by broker id (always true on 4.9, which has no such flag).
    #[inline]
    pub fn is_reachable_id(&self, id: BrokerId) -> bool {
        match (self.compat, self.item(id)) {
            (Compat::V5_3, Some(it)) => it.reachable.load(Ordering::Acquire),
            _ => true,
        }
    }

    pub fn is_available(&self, name: &str) -> bool {
        self.item_of(name)
            .is_none_or(|it| self.available(it, self.clock.now_ms()))
    }

    pub fn is_reachable(&self, name: &str) -> bool {
        match (self.compat, self.item_of(name)) {
            (Compat::V5_3, Some(it)) => it.reachable.load(Ordering::Acquire),
            _ => true,
        }
    }

    pub fn remove(&self, name: &str) {
        if let Some(it) = self.item_of(name) {
            it.present.store(false, Ordering::Release);
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        self.item_of(name).is_some()
    }

    fn present(&self) -> impl Iterator<Item = &FaultItem> {
        (0..self.items.len()).filter_map(|i| {
            self.items
                .get(i)
                .filter(|it| it.present.load(Ordering::Acquire) && it.name.get().is_some())
        })
    }

    pub fn len(&self) -> usize {
        self.present().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn items(&self) -> Vec<FaultItemView> {
        self.present()
            .map(|it| FaultItemView {
                name: it
                    .name
                    .get()
                    .map_or_else(|| Arc::from(""), |n| n.name().clone()),
                current_latency: it.latency.load(Ordering::Acquire),
                start_timestamp: it.start.load(Ordering::Acquire),
                reachable: it.reachable.load(Ordering::Acquire),
            })
            .collect()
    }

    /// `pickOneAtLeast`: 4.9 cycles over the better half of the sorted items; 5.3 picks a random
    /// reachable item. `None` when there is nothing to pick. Items that tie (and 5.3's candidates)
    /// are taken in [`table_order`], so the answer does not depend on which broker was seen first.
    pub fn pick_one_at_least(&self) -> Option<Arc<str>> {
        let mut items = self.items();
        if items.is_empty() {
            return None;
        }
        match self.compat {
            Compat::V4_9 => {
                let now = self.clock.now_ms();
                let avail = |v: &FaultItemView| now.wrapping_sub(v.start_timestamp) >= 0;
                items.sort_by(|a, b| {
                    (!avail(a), a.current_latency, a.start_timestamp)
                        .cmp(&(!avail(b), b.current_latency, b.start_timestamp))
                        .then_with(|| table_order(&a.name, &b.name))
                });
                let half = items.len() / 2;
                if half == 0 {
                    return Some(items[0].name.clone());
                }
                let i = self.which_item_worst.increment_and_get() as usize % half;
                Some(items[i].name.clone())
            }
            Compat::V5_3 => {
                let mut reachable: Vec<_> = items.into_iter().filter(|v| v.reachable).collect();
                reachable.sort_by(|a, b| table_order(&a.name, &b.name));
                match reachable.len() {
                    0 => None,
                    1 => Some(reachable[0].name.clone()),
                    n => {
                        let i = self
                            .random
                            .next_int_bounded(n as i32)
                            .expect("positive bound") as usize;
                        Some(reachable[i].name.clone())
                    }
                }
            }
        }
    }

    /// 5.3 `detectByOneRound`: probe every item whose check time has come. `resolve` maps a broker
    /// name to the address to probe (`None` removes the item); `detect(address, timeout_ms)` probes it.
    pub fn detect_by_one_round<E>(
        &self,
        mut resolve: impl FnMut(&str) -> Result<Option<String>, E>,
        mut detect: Option<Detector<'_, E>>,
    ) -> Result<(), E> {
        for it in self.present() {
            let Some(name) = it.name.get().map(|n| n.name()) else {
                continue;
            };
            let now = self.clock.now_ms();
            if now.wrapping_sub(it.check_stamp.load(Ordering::Acquire)) < 0 {
                continue;
            }
            it.check_stamp.store(
                self.clock.now_ms().wrapping_add(self.detect_interval()),
                Ordering::Release,
            );
            let Some(addr) = resolve(name)? else {
                it.present.store(false, Ordering::Release);
                continue;
            };
            let Some(detect) = detect.as_mut() else {
                continue;
            };
            if detect(&addr, self.detect_timeout())? && !it.reachable.load(Ordering::Acquire) {
                it.reachable.store(true, Ordering::Release);
            }
        }
        Ok(())
    }
}

/// The order Java's fault-item table (a `ConcurrentHashMap` of 32 buckets while it holds at most 24
/// items) enumerates two names in: by bucket, `spread(hashCode) & 31`; names in one bucket by
/// `String.compareTo` (Java keeps them in insertion order there, which no caller can rely on).
pub fn table_order(a: &str, b: &str) -> std::cmp::Ordering {
    let bucket = |s: &str| {
        let h = crate::java::string_hash(s) as u32;
        (h ^ (h >> 16)) & 31
    };
    bucket(a)
        .cmp(&bucket(b))
        .then_with(|| a.encode_utf16().cmp(b.encode_utf16()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    fn table(compat: Compat) -> (LatencyFaultTolerance, ManualClock) {
        let m = ManualClock::new(1_000_000);
        (
            LatencyFaultTolerance::new(
                compat,
                Clock::Manual(m.clone()),
                Arc::new(JavaRandom::new(7)),
            ),
            m,
        )
    }

    #[test]
    fn isolation_expires_with_the_clock() {
        for compat in [Compat::V4_9, Compat::V5_3] {
            let (t, clock) = table(compat);
            assert!(t.is_available("fault-a"));
            t.update_fault_item("fault-a", 3000, 5000, true);
            assert!(!t.is_available("fault-a"));
            clock.advance(4999);
            assert!(!t.is_available("fault-a"));
            clock.advance(1);
            assert!(t.is_available("fault-a"));
        }
    }

    #[test]
    fn a_fast_send_clears_isolation_on_49_only() {
        let (t4, _) = table(Compat::V4_9);
        t4.update_fault_item("fault-b", 3000, 5000, true);
        t4.update_fault_item("fault-b", 10, 0, true);
        assert!(t4.is_available("fault-b"));
        let (t5, _) = table(Compat::V5_3);
        t5.update_fault_item("fault-b", 3000, 5000, true);
        t5.update_fault_item("fault-b", 10, 0, true);
        assert!(!t5.is_available("fault-b"));
        t5.remove("fault-b");
        assert!(t5.is_available("fault-b"));
        t5.update_fault_item("fault-b", 10, 0, true);
        assert!(t5.is_available("fault-b"));
    }

    #[test]
    fn pick_one_at_least_49_prefers_available_then_latency() {
        let (t, _) = table(Compat::V4_9);
        assert_eq!(t.pick_one_at_least(), None);
        t.update_fault_item("fault-c", 900, 5000, true);
        assert_eq!(t.pick_one_at_least().as_deref(), Some("fault-c"));
        t.update_fault_item("fault-d", 950, 0, true);
        // two items: half = 1, so always the best: the available one
        assert_eq!(t.pick_one_at_least().as_deref(), Some("fault-d"));
    }

    #[test]
    fn detector_restores_reachability_once_per_interval() {
        let (t, clock) = table(Compat::V5_3);
        t.update_fault_item("fault-e", 10, 0, false);
        assert!(!t.is_reachable("fault-e"));
        let mut probes = 0;
        let mut ok = |_: &str, _: i64| -> Result<bool, ()> {
            probes += 1;
            Ok(true)
        };
        t.detect_by_one_round(|n| Ok::<_, ()>(Some(n.to_owned())), Some(&mut ok))
            .unwrap();
        assert!(t.is_reachable("fault-e"));
        t.detect_by_one_round(|n| Ok::<_, ()>(Some(n.to_owned())), Some(&mut ok))
            .unwrap();
        assert_eq!(probes, 1);
        clock.advance(2000);
        t.detect_by_one_round(|_| Ok::<_, ()>(None), None).unwrap();
        assert!(!t.contains("fault-e"));
    }
}
