//! Selectors for ordered sends: `SelectMessageQueueByHash` and `SelectMessageQueueByRandom`.

use crate::error::{JavaError, JavaResult};
use crate::java::{abs, JavaRandom};

/// The index `SelectMessageQueueByHash` picks: `|hash % n|` (Java remainder, then `Math.abs`).
#[inline]
pub fn hash_index(hash: i32, num_queues: usize) -> JavaResult<usize> {
    if num_queues == 0 {
        return Err(JavaError::div_by_zero());
    }
    let n = i32::try_from(num_queues).map_err(|_| {
        JavaError::IllegalArgument("more queues than a Java int can count".to_owned())
    })?;
    Ok(abs(hash.wrapping_rem(n)) as usize)
}

/// The index `SelectMessageQueueByRandom` picks: `random.nextInt(n)`.
pub fn random_index(random: &JavaRandom, num_queues: usize) -> JavaResult<usize> {
    let n = i32::try_from(num_queues).map_err(|_| {
        JavaError::IllegalArgument("more queues than a Java int can count".to_owned())
    })?;
    random.next_int_bounded(n).map(|i| i as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java::string_hash;

    #[test]
    fn min_value_hashes_stay_in_range() {
        for k in ["polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"] {
            for n in 1..40 {
                assert!(hash_index(string_hash(k), n).unwrap() < n);
            }
        }
        assert_eq!(hash_index(-7, 4).unwrap(), 3);
        assert!(hash_index(1, 0).is_err());
    }

    #[test]
    fn random_is_next_int() {
        let a = JavaRandom::new(5);
        let b = JavaRandom::new(5);
        assert_eq!(
            random_index(&a, 7).unwrap() as i32,
            b.next_int_bounded(7).unwrap()
        );
        assert!(random_index(&a, 0).is_err());
    }
}
