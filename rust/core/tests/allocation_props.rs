//! Bounded property tests of the two opt-in allocations: the sticky assignment partitions the queues, is
//! balanced and keeps the most queues any balanced assignment can (against a brute-force optimum on small
//! inputs); the bounded-load placement partitions the queues within capacity, and is plain consistent
//! hashing when the capacity does not bind. `PROPTEST_CASES` raises the case count (`make fuzz`).

use std::sync::Arc;

use proptest::prelude::*;
use rocketroute_core::allocate::consistent_hash_ring;
use rocketroute_core::bounded::{capacity, place, ring_slots};
use rocketroute_core::ring::md5_fn;
use rocketroute_core::sticky::{kept_count, sticky};

/// Each position's previous owner: the earliest consumer that claims it.
fn previous_owner(n_mq: usize, previous: &[Vec<usize>]) -> Vec<Option<usize>> {
    let mut owner = vec![None; n_mq];
    for (c, held) in previous.iter().enumerate() {
        for &p in held {
            if p < n_mq && owner[p].is_none() {
                owner[p] = Some(c);
            }
        }
    }
    owner
}

fn is_balanced(sizes: &[usize], n_mq: usize) -> bool {
    let n_cid = sizes.len();
    let (base, extra) = (n_mq / n_cid, n_mq % n_cid);
    sizes.iter().all(|&s| s == base || s == base + 1)
        && sizes.iter().filter(|&&s| s == base + 1).count() == extra
}

/// The most queues any balanced assignment keeps with their previous owner, by trying them all.
fn brute_force_kept(n_mq: usize, n_cid: usize, owner: &[Option<usize>]) -> usize {
    let mut best = 0;
    let mut choice = vec![0usize; n_mq];
    loop {
        let mut sizes = vec![0; n_cid];
        for &c in &choice {
            sizes[c] += 1;
        }
        if is_balanced(&sizes, n_mq) {
            let kept = (0..n_mq).filter(|&p| owner[p] == Some(choice[p])).count();
            best = best.max(kept);
        }
        // the next assignment, counting in base n_cid
        let mut i = 0;
        while i < n_mq {
            choice[i] += 1;
            if choice[i] < n_cid {
                break;
            }
            choice[i] = 0;
            i += 1;
        }
        if i == n_mq {
            return best;
        }
    }
}

fn assert_partition(n_mq: usize, held: &[Vec<usize>]) {
    let mut all: Vec<usize> = held.iter().flatten().copied().collect();
    all.sort_unstable();
    assert_eq!(all, (0..n_mq).collect::<Vec<_>>());
}

prop_compose! {
    /// A consumer count and, for each consumer, positions it owned (some out of range, some shared).
    fn sticky_input(max_mq: usize, max_cid: usize)(n_mq in 0..=max_mq, n_cid in 1..=max_cid)(
        n_mq in Just(n_mq),
        previous in prop::collection::vec(prop::collection::vec(0..n_mq + 2, 0..n_mq + 2), n_cid),
    ) -> (usize, Vec<Vec<usize>>) {
        (n_mq, previous)
    }
}

proptest! {
    #[test]
    fn sticky_is_a_balanced_partition((n_mq, previous) in sticky_input(80, 12)) {
        let got = sticky(n_mq, &previous);
        prop_assert_eq!(got.len(), previous.len());
        assert_partition(n_mq, &got);
        let sizes: Vec<usize> = got.iter().map(Vec::len).collect();
        prop_assert!(is_balanced(&sizes, n_mq), "{:?}", sizes);
        for held in &got {
            prop_assert!(held.windows(2).all(|w| w[0] < w[1]));
        }
    }

    #[test]
    fn sticky_keeps_the_most_possible((n_mq, previous) in sticky_input(7, 4)) {
        let got = sticky(n_mq, &previous);
        let owner = previous_owner(n_mq, &previous);
        let kept = kept_count(n_mq, &previous, &got);
        prop_assert_eq!(kept, brute_force_kept(n_mq, previous.len(), &owner));
    }

    #[test]
    fn sticky_keeps_what_the_quota_allows((n_mq, previous) in sticky_input(80, 12)) {
        // the closed form of the optimum: each consumer keeps min(owned, quota), the larger quotas going to
        // those who owned most
        let got = sticky(n_mq, &previous);
        let owner = previous_owner(n_mq, &previous);
        let n_cid = previous.len();
        let mut owned = vec![0usize; n_cid];
        for c in owner.iter().flatten() {
            owned[*c] += 1;
        }
        let mut sorted = owned.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let (base, extra) = (n_mq / n_cid, n_mq % n_cid);
        let best: usize = sorted
            .iter()
            .enumerate()
            .map(|(i, &k)| k.min(base + usize::from(i < extra)))
            .sum();
        prop_assert_eq!(kept_count(n_mq, &previous, &got), best);
    }

    #[test]
    fn sticky_ignores_the_order_of_previous_queues(
        (n_mq, previous) in sticky_input(40, 8),
        seed in any::<u64>(),
    ) {
        let mut shuffled = previous.clone();
        let mut s = seed;
        for held in &mut shuffled {
            // a small deterministic shuffle (Fisher-Yates on an LCG)
            for i in (1..held.len()).rev() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                held.swap(i, (s >> 33) as usize % (i + 1));
            }
        }
        prop_assert_eq!(sticky(n_mq, &previous), sticky(n_mq, &shuffled));
    }

    #[test]
    fn sticky_after_itself_moves_nothing((n_mq, previous) in sticky_input(60, 10)) {
        let once = sticky(n_mq, &previous);
        prop_assert_eq!(sticky(n_mq, &once), once.clone());
    }

    #[test]
    fn capacity_bounds(lf in 1.0f64..8.0, n_mq in 0usize..5000, n_cid in 1usize..300) {
        let cap = capacity(lf, n_mq, n_cid);
        prop_assert!(cap <= n_mq);
        prop_assert!(cap * n_cid >= n_mq);
        prop_assert!(cap >= n_mq.div_ceil(n_cid));
        // within one of the float computation, and exactly it when that is far from an integer
        let approx = lf * n_mq as f64 / n_cid as f64;
        let f = (approx.ceil() as usize).min(n_mq);
        prop_assert!(cap.abs_diff(f) <= 1);
        if (approx - approx.round()).abs() > 1e-6 {
            prop_assert_eq!(cap, f);
        }
    }

    #[test]
    fn capacity_of_exact_quarters(k in 4u64..64, n_mq in 0usize..100_000, n_cid in 1usize..1000) {
        // k / 4 is exact in binary: the capacity is the integer ceiling of k * n_mq / (4 * n_cid)
        let want = ((k as usize * n_mq).div_ceil(4 * n_cid)).min(n_mq);
        prop_assert_eq!(capacity(k as f64 / 4.0, n_mq, n_cid), want);
    }

    #[test]
    fn bounded_partitions_within_capacity(
        n_mq in 1usize..200,
        n_cid in 1usize..20,
        vnodes in 0i32..12,
        lf in prop_oneof![Just(1.0f64), Just(1.25), 1.0f64..3.0],
    ) {
        let cids: Vec<Arc<str>> = (0..n_cid).map(|i| Arc::from(format!("10.0.0.{i}@{i}"))).collect();
        let ring = consistent_hash_ring(&cids, vnodes, &mut md5_fn).unwrap();
        let slots = ring_slots(&ring, &cids);
        let names: Vec<String> = (0..n_mq)
            .map(|q| format!("MessageQueue [topic=T, brokerName=b{}, queueId={}]", q % 3, q / 3))
            .collect();
        let cap = capacity(lf, n_mq, n_cid);
        let owners = place(&slots, n_mq, n_cid, cap, &mut |i| md5_fn(&names[i])).unwrap();
        prop_assert_eq!(owners.len(), n_mq);
        let mut load = vec![0usize; n_cid];
        for &o in &owners {
            prop_assert!(o < n_cid);
            load[o] += 1;
        }
        prop_assert!(load.iter().all(|&l| l <= cap), "{:?} > {}", load, cap);
        // each queue went to the first consumer clockwise that had room when it was placed
        let mut seen = vec![0usize; n_cid];
        for (i, &o) in owners.iter().enumerate() {
            if !slots.is_empty() {
                let h = md5_fn(&names[i]).unwrap();
                let first_open = slots
                    .iter()
                    .filter(|&&(k, _)| k >= h)
                    .chain(slots.iter().filter(|&&(k, _)| k < h))
                    .map(|&(_, c)| c)
                    .find(|&c| seen[c] < cap);
                if let Some(c) = first_open {
                    prop_assert_eq!(o, c);
                }
            }
            seen[o] += 1;
        }
        // without a binding capacity it is plain consistent hashing
        if vnodes > 0 {
            let free = place(&slots, n_mq, n_cid, n_mq, &mut |i| md5_fn(&names[i])).unwrap();
            for (i, &o) in free.iter().enumerate() {
                let want = ring.route(&names[i], &mut md5_fn).unwrap().unwrap();
                prop_assert_eq!(&*cids[o], &**want);
            }
        }
    }
}
