//! Consistent hashing with bounded loads (Mirrokni, Thorup and Zadimoghaddam) on RocketMQ's
//! consistent-hash ring: each queue goes to the first consumer clockwise from its hash whose load is below
//! a capacity of `ceil(load_factor * n_mq / n_cid)`. Not a strategy of the Java client; callers opt in.

use std::collections::HashMap;
use std::sync::Arc;

use crate::ring::ConsistentHashRouter;

/// `ceil(load_factor * n_mq / n_cid)` over the exact binary value of `load_factor` (a finite number
/// `>= 1.0`), in integer arithmetic so that no rounding on the way can change it; at most `n_mq`, as no
/// consumer can take more. `n_cid` must be positive.
pub fn capacity(load_factor: f64, n_mq: usize, n_cid: usize) -> usize {
    debug_assert!(load_factor.is_finite() && load_factor >= 1.0 && n_cid > 0);
    let (mantissa, exp) = decompose(load_factor);
    let q = n_mq as u128;
    let c = n_cid as u128;
    // load_factor = mantissa * 2^exp, mantissa < 2^53: the products below fit in u128 unless the result
    // is far above n_mq anyway
    let exact = if exp >= 0 {
        (mantissa as u128)
            .checked_shl(exp as u32)
            .filter(|m| m >> exp as u32 == mantissa as u128)
            .and_then(|m| m.checked_mul(q))
            .map(|num| num.div_ceil(c))
    } else {
        // lf >= 1.0 keeps -exp <= 52, and c < 2^64: the denominator fits
        let den = c << (-exp) as u32;
        (mantissa as u128)
            .checked_mul(q)
            .map(|num| num.div_ceil(den))
    };
    match exact {
        Some(v) if v < q => v as usize,
        _ => n_mq,
    }
}

/// A finite, positive, normal `f64` as `mantissa * 2^exp`, the mantissa with its implicit bit.
fn decompose(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    }
}

/// The ring as `(hash, consumer index)` in ring order, for consumers `cids` (distinct) of which `ring`
/// was built.
pub fn ring_slots(ring: &ConsistentHashRouter, cids: &[Arc<str>]) -> Vec<(i64, usize)> {
    let index: HashMap<&str, usize> = cids.iter().enumerate().map(|(i, c)| (&**c, i)).collect();
    ring.entries()
        .filter_map(|(h, _, node)| index.get(&**node).map(|&i| (h, i)))
        .collect()
}

/// The consumer index of each of `n_mq` queues, placed in order: queue `i`, of ring hash `hash(i)`, goes to
/// the first consumer clockwise on `ring` (`(hash, consumer)` in ring order, as [`ring_slots`] gives) whose
/// load is below `capacity`. When every consumer on the ring is full (only when some consumer owns no ring
/// entry), the queue goes to the least loaded consumer, the earliest on a tie. `hash` is called once per
/// queue, in order, and never when the ring is empty; its error stops the placement.
///
/// `capacity * n_cid` must be at least `n_mq` (as [`capacity`] guarantees), so that a place always exists.
pub fn place<E>(
    ring: &[(i64, usize)],
    n_mq: usize,
    n_cid: usize,
    capacity: usize,
    hash: &mut dyn FnMut(usize) -> Result<i64, E>,
) -> Result<Vec<usize>, E> {
    assert!(
        capacity.saturating_mul(n_cid) >= n_mq,
        "capacity too small for the queues"
    );
    let mut load = vec![0usize; n_cid];
    let mut on_ring = vec![false; n_cid];
    for &(_, c) in ring {
        on_ring[c] = true;
    }
    // consumers on the ring still below capacity: none left means no walk can succeed
    let mut open = on_ring.iter().filter(|&&r| r).count();
    let mut owners = Vec::with_capacity(n_mq);
    for i in 0..n_mq {
        let mut owner = None;
        if !ring.is_empty() {
            let h = hash(i)?;
            if open > 0 {
                let start = ring.partition_point(|&(k, _)| k < h);
                owner = ring[start..]
                    .iter()
                    .chain(&ring[..start])
                    .map(|&(_, c)| c)
                    .find(|&c| load[c] < capacity);
            }
        }
        let owner = owner.unwrap_or_else(|| {
            (0..n_cid)
                .min_by_key(|&c| (load[c], c))
                .expect("at least one consumer")
        });
        load[owner] += 1;
        if load[owner] == capacity && on_ring[owner] {
            open -= 1;
        }
        owners.push(owner);
    }
    Ok(owners)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allocate::consistent_hash_ring;
    use crate::ring::md5_fn;
    use std::convert::Infallible;

    #[test]
    fn capacity_is_the_exact_ceiling() {
        assert_eq!(capacity(1.0, 10, 3), 4);
        assert_eq!(capacity(1.0, 9, 3), 3);
        assert_eq!(capacity(1.25, 8, 2), 5);
        assert_eq!(capacity(1.25, 16, 5), 4);
        assert_eq!(capacity(1.5, 7, 3), 4); // 3.5
        assert_eq!(capacity(2.0, 6, 4), 3);
        // 1.1 is 1.100000000000000088..., so 1.1 * 10 is a little above 11
        assert_eq!(capacity(1.1, 10, 1), 10); // clamped: 12 > 10 queues
        assert_eq!(capacity(1.1, 100, 10), 12);
        // 1.2 is 1.199999999999999955...: just below 12
        assert_eq!(capacity(1.2, 100, 10), 12);
        assert_eq!(capacity(1.2, 10, 1), 10);
        // the smallest float above 1 still rounds an exact quotient up
        let above_one = f64::from_bits(1.0f64.to_bits() + 1);
        assert_eq!(capacity(above_one, 12, 4), 4);
        assert_eq!(capacity(above_one, 12, 3), 5);
        // never more than the queues
        assert_eq!(capacity(1e300, 5, 2), 5);
        assert_eq!(capacity(f64::MAX, usize::MAX, 1), usize::MAX);
        assert_eq!(capacity(3.0, 5, 3), 5);
        assert_eq!(capacity(1.0, 0, 3), 0);
        assert_eq!(capacity(1.0, usize::MAX, usize::MAX), 1);
        #[cfg(target_pointer_width = "64")]
        assert_eq!(capacity(1.5, usize::MAX, 2), 3 << 62);
    }

    #[test]
    fn decompose_is_exact() {
        for x in [1.0, 1.25, 1.1, 3.0, 1e10, 2f64.powi(60), f64::MAX] {
            let (m, e) = decompose(x);
            assert_eq!(m as f64 * 2f64.powi(e), x);
        }
    }

    #[test]
    fn places_within_capacity_and_follows_the_ring() {
        let cids: Vec<Arc<str>> = ["c0", "c1", "c2"].into_iter().map(Arc::from).collect();
        let ring = consistent_hash_ring(&cids, 10, &mut md5_fn).unwrap();
        let slots = ring_slots(&ring, &cids);
        assert_eq!(slots.len(), 30);
        let names: Vec<String> = (0..12)
            .map(|q| format!("MessageQueue [topic=T, brokerName=b, queueId={q}]"))
            .collect();
        // an unbounded capacity is plain consistent hashing
        let free = place::<Infallible>(&slots, 12, 3, 12, &mut |i| md5_fn(&names[i])).unwrap();
        for (i, &o) in free.iter().enumerate() {
            let want = ring.route(&names[i], &mut md5_fn).unwrap().unwrap();
            assert_eq!(&*cids[o], &**want);
        }
        let cap = capacity(1.0, 12, 3);
        let bounded = place::<Infallible>(&slots, 12, 3, cap, &mut |i| md5_fn(&names[i])).unwrap();
        let mut load = [0; 3];
        for &o in &bounded {
            load[o] += 1;
        }
        assert_eq!(load, [4, 4, 4]);
    }

    #[test]
    fn consumers_off_the_ring_take_the_overflow() {
        // only consumer 0 is on the ring: it takes its capacity, the rest go to the least loaded
        let ring = [(10, 0), (20, 0)];
        let got = place::<Infallible>(&ring, 5, 3, 2, &mut |_| Ok(15)).unwrap();
        assert_eq!(got, vec![0, 0, 1, 2, 1]);
        // an empty ring hashes nothing and balances by load
        let got = place::<&str>(&[], 4, 3, 2, &mut |_| Err("hashed")).unwrap();
        assert_eq!(got, vec![0, 1, 2, 0]);
    }

    #[test]
    fn a_hash_error_stops_the_placement() {
        let ring = [(10, 0)];
        let mut calls = 0;
        let got = place(&ring, 3, 1, 3, &mut |i| {
            calls += 1;
            if i == 1 {
                Err("boom")
            } else {
                Ok(0)
            }
        });
        assert_eq!(got, Err("boom"));
        assert_eq!(calls, 2);
    }

    #[test]
    fn the_walk_wraps_around() {
        let ring = [(10, 0), (20, 1)];
        // hash 25 is past the last entry: the first entry is next, then the second
        let got = place::<Infallible>(&ring, 3, 2, 2, &mut |_| Ok(25)).unwrap();
        assert_eq!(got, vec![0, 0, 1]);
    }
}
