//! The sticky allocation: a balanced assignment of queue positions that keeps as many queues as possible
//! with their previous owner. Not a strategy of the Java client; callers opt in, every member alike.
//!
//! Why the greedy rule is optimal: a balanced assignment gives every consumer `base` or `base + 1` queues,
//! exactly `n_mq % n_cid` of them `base + 1`, and a consumer that previously owned `k` of the queues can keep
//! at most `min(k, quota)` of them. Raising a quota from `base` to `base + 1` gains one kept queue when
//! `k > base` and nothing otherwise, so giving the larger quotas to the consumers with the largest `k`
//! maximises the sum, and keeping `min(k, quota)` for each reaches it.

/// The sticky assignment of `n_mq` queue positions to `previous.len()` consumers (in `cid_all` order).
///
/// `previous[c]` holds the positions consumer `c` owned before, in any order (repeats are harmless,
/// positions `>= n_mq` are ignored). A position claimed by two consumers belongs to the earlier one. The
/// `n_mq % n_cid` quotas of one queue more go to the consumers keeping the most (ties: the earlier);
/// each consumer keeps its previous positions up to its quota (the lowest ones); the free positions, in
/// increasing order, fill the consumers below quota in order. Each consumer's positions come back sorted.
pub fn sticky(n_mq: usize, previous: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n_cid = previous.len();
    if n_cid == 0 {
        return Vec::new();
    }
    let mut owner: Vec<Option<usize>> = vec![None; n_mq];
    for (c, held) in previous.iter().enumerate() {
        for &p in held {
            if let Some(slot @ None) = owner.get_mut(p) {
                *slot = Some(c);
            }
        }
    }
    let mut kept = vec![0usize; n_cid];
    for o in owner.iter().flatten() {
        kept[*o] += 1;
    }
    let (base, extra) = (n_mq / n_cid, n_mq % n_cid);
    let mut quota = vec![base; n_cid];
    let mut by_kept: Vec<usize> = (0..n_cid).collect();
    by_kept.sort_by_key(|&c| (std::cmp::Reverse(kept[c]), c));
    for &c in &by_kept[..extra] {
        quota[c] += 1;
    }
    let mut out: Vec<Vec<usize>> = quota.iter().map(|&q| Vec::with_capacity(q)).collect();
    let mut free = Vec::new();
    for (p, o) in owner.iter().enumerate() {
        match o {
            Some(c) if out[*c].len() < quota[*c] => out[*c].push(p),
            _ => free.push(p),
        }
    }
    let mut free = free.into_iter();
    for (c, held) in out.iter_mut().enumerate() {
        if held.len() < quota[c] {
            held.extend(free.by_ref().take(quota[c] - held.len()));
            held.sort_unstable();
        }
    }
    out
}

/// How many of the queues keep their owner from `previous` to `next` (both as returned by [`sticky`] or
/// given to it, over the same positions; a position claimed twice in `previous` counts for the earlier
/// consumer, as in [`sticky`]).
pub fn kept_count(n_mq: usize, previous: &[Vec<usize>], next: &[Vec<usize>]) -> usize {
    let mut owner: Vec<Option<usize>> = vec![None; n_mq];
    for (c, held) in previous.iter().enumerate() {
        for &p in held {
            if let Some(slot @ None) = owner.get_mut(p) {
                *slot = Some(c);
            }
        }
    }
    next.iter()
        .enumerate()
        .map(|(c, held)| {
            held.iter()
                .filter(|&&p| owner.get(p) == Some(&Some(c)))
                .count()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allocate::averagely;

    #[test]
    fn without_a_previous_assignment_it_is_averagely() {
        for n_mq in 0..30 {
            for n_cid in 1..9 {
                let got = sticky(n_mq, &vec![Vec::new(); n_cid]);
                for (i, held) in got.iter().enumerate() {
                    let want: Vec<usize> = if n_mq == 0 {
                        Vec::new()
                    } else {
                        averagely(i, n_mq, n_cid).collect()
                    };
                    assert_eq!(held, &want, "{n_mq} {n_cid} {i}");
                }
            }
        }
    }

    #[test]
    fn a_join_moves_only_the_newcomers_share() {
        // 8 queues on a, b; c joins between them: it takes 2 queues, a and b keep 3 each
        let before = sticky(8, &[vec![], vec![]]);
        assert_eq!(before, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        let after = sticky(8, &[before[0].clone(), vec![], before[1].clone()]);
        assert_eq!(after, vec![vec![0, 1, 2], vec![3, 7], vec![4, 5, 6]]);
        assert_eq!(
            kept_count(8, &[before[0].clone(), vec![], before[1].clone()], &after),
            6
        );
    }

    #[test]
    fn a_leave_moves_only_the_leavers_queues() {
        let before = sticky(7, &[vec![], vec![], vec![]]);
        assert_eq!(before, vec![vec![0, 1, 2], vec![3, 4], vec![5, 6]]);
        // the first consumer leaves: its three queues go to the others, who keep theirs
        let after = sticky(7, &[before[1].clone(), before[2].clone()]);
        assert_eq!(after, vec![vec![0, 1, 3, 4], vec![2, 5, 6]]);
    }

    #[test]
    fn larger_quotas_go_to_those_who_keep_most() {
        // 5 queues, 2 consumers: the second owned 4 of them, so it keeps 3 (the lowest) and the first gets 2
        let got = sticky(5, &[vec![4], vec![3, 2, 1, 0]]);
        assert_eq!(got, vec![vec![3, 4], vec![0, 1, 2]]);
        // a tie goes to the earlier consumer
        let got = sticky(3, &[vec![2], vec![0]]);
        assert_eq!(got, vec![vec![1, 2], vec![0]]);
    }

    #[test]
    fn a_queue_claimed_twice_belongs_to_the_earlier_consumer() {
        let got = sticky(2, &[vec![1], vec![1, 0]]);
        assert_eq!(got, vec![vec![1], vec![0]]);
        assert_eq!(kept_count(2, &[vec![1], vec![1, 0]], &got), 2);
    }

    #[test]
    fn fewer_queues_than_consumers() {
        // 2 queues, 4 consumers: the two previous owners keep theirs, the others get nothing
        let got = sticky(2, &[vec![], vec![], vec![1], vec![0]]);
        assert_eq!(got, vec![vec![], vec![], vec![1], vec![0]]);
    }

    #[test]
    fn out_of_range_and_repeated_positions_are_ignored() {
        let got = sticky(3, &[vec![7, 2, 2, 9], vec![]]);
        assert_eq!(got, vec![vec![0, 2], vec![1]]);
        assert!(sticky(3, &[]).is_empty());
    }
}
