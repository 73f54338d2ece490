//! The bookkeeping of one `DefaultMQProducerImpl.sendDefaultImpl` loop: which queue each attempt goes to, the
//! latency (or isolation) the fault strategy learns from each outcome, and when the loop ends (attempts used up,
//! no queue, or the send timeout passed while picking the next queue).
//!
//! What an outcome *is* (a stored result, which error isolates a broker, which error is retried) is the caller's:
//! it reports the attempt with [`SendLoop::record`] and counts it with [`SendLoop::count_attempt`].

use std::sync::Arc;

use crate::clock::Clock;
use crate::error::{JavaError, JavaResult};
use crate::publish_info::TopicPublishInfo;
use crate::strategy::{MQFaultStrategy, Selected};

pub struct SendLoop {
    clock: Clock,
    total: u32,
    times: u32,
    /// a sync send re-draws the round-robin start (5.3's `resetIndex`) on each retry
    sync: bool,
    timeout_ms: i64,
    first: i64,
    begin: i64,
    /// the broker of the latest attempt's queue (`mq.getBrokerName()`); `None` before the first
    broker: Option<Arc<str>>,
    brokers_sent: Vec<Option<Arc<str>>>,
    timed_out: bool,
}

impl SendLoop {
    /// A loop of `total` attempts at most, within `timeout_ms` of now (the caller bounds `total`: a slot per
    /// attempt is kept for the brokers sent to).
    pub fn new(clock: Clock, total: u32, sync: bool, timeout_ms: i64) -> Self {
        let first = clock.now_ms();
        SendLoop {
            clock,
            total,
            times: 0,
            sync,
            timeout_ms,
            first,
            begin: first,
            broker: None,
            brokers_sent: vec![None; total as usize],
            timed_out: false,
        }
    }

    /// The queue of the next attempt (`Selected`, as `strategy.select` gives it), or `None` when the loop is over:
    /// no attempt left, no queue, or the send timeout passed (then [`SendLoop::timed_out`]).
    pub fn next(
        &mut self,
        strategy: &MQFaultStrategy,
        tp: &TopicPublishInfo,
    ) -> JavaResult<Option<Selected>> {
        if self.times >= self.total {
            return Ok(None);
        }
        let reset_index = self.sync && self.times > 0;
        let selected = strategy.select(tp, self.broker.as_deref(), reset_index)?;
        let broker = match &selected {
            Selected::Queue(p) => tp.queues()[*p].broker_arc(),
            Selected::New(mq) => mq.broker_arc(),
        };
        self.broker = broker.cloned();
        self.brokers_sent[self.times as usize] = broker.cloned();
        self.begin = self.clock.now_ms();
        // in i128: a manual clock may be set anywhere in i64, and the Python loop's ints never wrap
        if i128::from(self.timeout_ms) < i128::from(self.begin) - i128::from(self.first) {
            self.timed_out = true;
            return Ok(None);
        }
        Ok(Some(selected))
    }

    /// Tells the strategy how the latest attempt went: its latency since it was picked, and whether to isolate its
    /// broker (and whether the broker is still reachable). Returns the latency.
    pub fn record(
        &self,
        strategy: &MQFaultStrategy,
        isolation: bool,
        reachable: bool,
    ) -> JavaResult<i64> {
        let latency = self.clock.now_ms().saturating_sub(self.begin);
        let broker = self.broker.as_deref().ok_or_else(|| {
            JavaError::NullPointer("no attempt to record: next() gave no queue yet".to_owned())
        })?;
        strategy.update_fault_item(broker, latency, isolation, reachable)?;
        Ok(latency)
    }

    /// One more attempt made.
    pub fn count_attempt(&mut self) {
        self.times += 1;
    }

    pub fn times(&self) -> u32 {
        self.times
    }

    pub fn total(&self) -> u32 {
        self.total
    }

    pub fn timed_out(&self) -> bool {
        self.timed_out
    }

    /// The broker of each attempt so far, `None` for those not made.
    pub fn brokers_sent(&self) -> &[Option<Arc<str>>] {
        &self.brokers_sent
    }

    /// Milliseconds since the loop began (saturated at i64's ends, past which a manual clock may be set).
    pub fn elapsed_ms(&self) -> i64 {
        self.clock.now_ms().saturating_sub(self.first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::compat::Compat;
    use crate::counter::SendWhichQueue;
    use crate::fault::LatencyFaultTolerance;
    use crate::java::JavaRandom;
    use crate::message_queue::MessageQueue;

    fn setup(clock: &ManualClock, enable: bool) -> (MQFaultStrategy, TopicPublishInfo) {
        let random = Arc::new(JavaRandom::new(3));
        let lft = Arc::new(LatencyFaultTolerance::new(
            Compat::V5_3,
            Clock::Manual(clock.clone()),
            random.clone(),
        ));
        let strategy = MQFaultStrategy::new(lft, None, None, enable).unwrap();
        let queues = ["broker-a", "broker-b"]
            .iter()
            .flat_map(|b| (0..2).map(move |q| MessageQueue::of("T", b, q)))
            .collect();
        let index = Arc::new(SendWhichQueue::new(Compat::V5_3, Some(0), random));
        let tp = TopicPublishInfo::new(queues, false, None, Compat::V5_3, index).unwrap();
        (strategy, tp)
    }

    fn broker_of(tp: &TopicPublishInfo, s: &Selected) -> String {
        match s {
            Selected::Queue(p) => tp.queues()[*p].broker_name().unwrap().to_owned(),
            Selected::New(mq) => mq.broker_name().unwrap().to_owned(),
        }
    }

    #[test]
    fn a_retry_avoids_the_broker_that_failed_and_isolates_it() {
        let clock = ManualClock::new(10_000);
        let (strategy, tp) = setup(&clock, true);
        let mut sends = SendLoop::new(Clock::Manual(clock.clone()), 3, false, 3000);
        let first = sends.next(&strategy, &tp).unwrap().unwrap();
        let failed = broker_of(&tp, &first);
        clock.advance(40);
        assert_eq!(sends.record(&strategy, true, false).unwrap(), 40);
        sends.count_attempt();
        let second = sends.next(&strategy, &tp).unwrap().unwrap();
        assert_ne!(broker_of(&tp, &second), failed);
        assert!(!strategy.latency_fault_tolerance().is_available(&failed));
        assert_eq!(sends.times(), 1);
        let sent: Vec<_> = sends.brokers_sent().iter().map(|b| b.as_deref()).collect();
        assert_eq!(sent[0], Some(failed.as_str()));
        assert_eq!(sent[2], None);
    }

    #[test]
    fn the_loop_ends_after_its_attempts_or_its_timeout() {
        let clock = ManualClock::new(0);
        let (strategy, tp) = setup(&clock, false);
        let mut sends = SendLoop::new(Clock::Manual(clock.clone()), 2, true, 100);
        for _ in 0..2 {
            assert!(sends.next(&strategy, &tp).unwrap().is_some());
            sends.record(&strategy, false, true).unwrap();
            sends.count_attempt();
        }
        assert!(sends.next(&strategy, &tp).unwrap().is_none());
        assert!(!sends.timed_out());

        let mut late = SendLoop::new(Clock::Manual(clock.clone()), 3, false, 100);
        assert!(late.next(&strategy, &tp).unwrap().is_some());
        clock.advance(101);
        late.count_attempt();
        assert!(late.next(&strategy, &tp).unwrap().is_none());
        assert!(late.timed_out());
        assert_eq!(late.elapsed_ms(), 101);
    }

    #[test]
    fn nothing_to_record_before_the_first_queue() {
        let clock = ManualClock::new(0);
        let (strategy, _) = setup(&clock, false);
        let sends = SendLoop::new(Clock::Manual(clock), 1, false, 100);
        assert!(matches!(
            sends.record(&strategy, false, true),
            Err(JavaError::NullPointer(_))
        ));
    }
}
