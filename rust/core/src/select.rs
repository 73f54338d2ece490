//! Selectors for ordered sends: `SelectMessageQueueByHash` and `SelectMessageQueueByRandom`.

use crate::error::{JavaError, JavaResult};
use crate::java::{abs, JavaRandom};

/// How a key is hashed as Java hashes it: a `String`, an `Integer` or a `Long` (the hash selector's and the
/// batch functions' `key_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    Str,
    Int,
    Long,
}

impl KeyType {
    /// The names, as `key_type` takes them.
    pub const NAMES: &'static str = "('string', 'int', 'long')";

    /// The key type called `name` (`"string"`, `"int"` or `"long"`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "string" => Some(KeyType::Str),
            "int" => Some(KeyType::Int),
            "long" => Some(KeyType::Long),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            KeyType::Str => "string",
            KeyType::Int => "int",
            KeyType::Long => "long",
        }
    }

    /// The message for a key of this type that is a `got` (a type's name) instead.
    pub fn mismatch(self, got: &str) -> String {
        match self {
            KeyType::Str => format!("a string key must be a str, not {got}"),
            KeyType::Int => format!("an int key must be an int, not {got}"),
            KeyType::Long => format!("an long key must be an int, not {got}"),
        }
    }
}

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
    fn key_types_parse_their_names() {
        for k in [KeyType::Str, KeyType::Int, KeyType::Long] {
            assert_eq!(KeyType::parse(k.name()), Some(k));
            assert!(KeyType::NAMES.contains(&format!("'{}'", k.name())));
        }
        assert_eq!(KeyType::parse("String"), None);
    }

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
