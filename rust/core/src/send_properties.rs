//! The properties string of the usual message of a send (tags, keys, `WAIT`, a few user properties, no delay),
//! byte for byte as rocketroute's Python encoder (`Message.property_items` then `_join_properties`) writes it
//! with the message id last: `TAGS` (when not empty), `KEYS` (when not empty), `WAIT`, the user properties in
//! put order, `UNIQ_KEY`, ordered as Java's `HashMap` iterates them (`crate::message_batch::properties_string`).
//!
//! What is not the usual message is left to the Python encoder (`None`), which raises Java's errors or writes
//! what only it writes: a separator (`\x01`, `\x02`) in a tag, a key or a property, a user property whose name
//! or value Java's `trim()` leaves empty, more than 8 properties in all.

use crate::message_batch::{properties_string, MAX_PROPERTIES_IN_16_BINS};

pub const PROPERTY_TAGS: &str = "TAGS";
pub const PROPERTY_KEYS: &str = "KEYS";
pub const PROPERTY_WAIT_STORE_MSG_OK: &str = "WAIT";
pub const PROPERTY_UNIQ_KEY: &str = "UNIQ_KEY";

/// `s.trim().isEmpty()`: Java's `trim` drops every char <= U+0020 at both ends.
pub fn java_trim_empty(s: &str) -> bool {
    s.chars().all(|c| c <= ' ')
}

/// Whether `s` holds one of the properties string's separators.
pub fn has_separator(s: &str) -> bool {
    s.contains(['\u{1}', '\u{2}'])
}

/// A message's own properties, before the id.
pub struct UsualMessage<'a> {
    pub tags: Option<&'a str>,
    pub keys: Option<&'a str>,
    pub wait_store_msg_ok: bool,
    /// The user properties in put order; their names are not the system's (the caller checks them).
    pub user: &'a [(&'a str, &'a str)],
}

/// The properties of `m` in put order, before the id; `None` for what the Python encoder decides (then no id is
/// made for it). Leaves room for the id within [`MAX_PROPERTIES_IN_16_BINS`].
pub fn send_items<'a>(m: &UsualMessage<'a>) -> Option<Vec<(&'a str, &'a str)>> {
    let mut items: Vec<(&str, &str)> = Vec::with_capacity(4 + m.user.len());
    if let Some(tags) = m.tags.filter(|t| !t.is_empty()) {
        if has_separator(tags) {
            return None;
        }
        items.push((PROPERTY_TAGS, tags));
    }
    if let Some(keys) = m.keys.filter(|k| !k.is_empty()) {
        if has_separator(keys) {
            return None;
        }
        items.push((PROPERTY_KEYS, keys));
    }
    items.push((
        PROPERTY_WAIT_STORE_MSG_OK,
        if m.wait_store_msg_ok { "true" } else { "false" },
    ));
    for &(name, value) in m.user {
        if java_trim_empty(name)
            || java_trim_empty(value)
            || has_separator(name)
            || has_separator(value)
        {
            return None;
        }
        items.push((name, value));
    }
    (items.len() < MAX_PROPERTIES_IN_16_BINS).then_some(items)
}

/// The properties string of [`send_items`]' `items` with `uniq_key` put last.
pub fn send_properties<'a>(
    mut items: Vec<(&'a str, &'a str)>,
    uniq_key: &'a str,
    drop_last_separator: bool,
) -> String {
    items.push((PROPERTY_UNIQ_KEY, uniq_key));
    properties_string(&items, drop_last_separator)
        .expect("send_items leaves room for the id within the 16-bin order")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usual<'a>(user: &'a [(&'a str, &'a str)]) -> UsualMessage<'a> {
        UsualMessage {
            tags: Some("TagA"),
            keys: Some("k1 k2"),
            wait_store_msg_ok: true,
            user,
        }
    }

    #[test]
    fn the_properties_are_in_java_s_hash_map_order_with_the_id() {
        let s = send_properties(send_items(&usual(&[])).unwrap(), "ID", false);
        // the names' bins (hash ^ hash >>> 16, low 4 bits) decide; each pair ends with \x02
        let mut pairs: Vec<&str> = s.split('\u{2}').filter(|p| !p.is_empty()).collect();
        assert_eq!(pairs.len(), 4);
        pairs.sort();
        assert_eq!(
            pairs,
            [
                "KEYS\u{1}k1 k2",
                "TAGS\u{1}TagA",
                "UNIQ_KEY\u{1}ID",
                "WAIT\u{1}true"
            ]
        );
        assert_eq!(
            s,
            properties_string(
                &[
                    ("TAGS", "TagA"),
                    ("KEYS", "k1 k2"),
                    ("WAIT", "true"),
                    ("UNIQ_KEY", "ID")
                ],
                false
            )
            .unwrap()
        );
    }

    #[test]
    fn empty_tags_and_keys_are_not_put_and_4_9_drops_the_last_separator() {
        let m = UsualMessage {
            tags: Some(""),
            keys: None,
            wait_store_msg_ok: false,
            user: &[],
        };
        let s = send_properties(send_items(&m).unwrap(), "ID", true);
        assert!(!s.ends_with('\u{2}'));
        assert!(s.contains("WAIT\u{1}false") && !s.contains("TAGS") && !s.contains("KEYS"));
    }

    #[test]
    fn what_java_refuses_or_only_python_writes_is_left_to_python() {
        assert!(send_items(&usual(&[("a", " ")])).is_none());
        assert!(send_items(&usual(&[("\t", "v")])).is_none());
        assert!(send_items(&usual(&[("a", "x\u{1}y")])).is_none());
        let tagged = UsualMessage {
            tags: Some("a\u{2}"),
            ..usual(&[])
        };
        assert!(send_items(&tagged).is_none());
        let many = [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("e", "5")];
        assert!(send_items(&usual(&many)).is_none()); // 9 in all with the id
        assert_eq!(send_items(&usual(&many[..4])).map(|i| i.len()), Some(7)); // 8 with the id
    }
}
