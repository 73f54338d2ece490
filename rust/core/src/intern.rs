//! Broker names interned to small integer ids, process-wide, so the send path indexes fault items by
//! id: no string hashing and no lock per queue looked at. Reads are lock-free; a new name takes a lock.

use std::sync::{Arc, Mutex, OnceLock};

/// A broker name's id. Ids are dense, start at 0, and are never reused.
pub type BrokerId = u32;

/// The id of "no broker" (a queue whose broker name is null).
pub const NO_BROKER: BrokerId = u32::MAX;

struct Interner {
    ids: papaya::HashMap<Arc<str>, BrokerId>,
    next: Mutex<BrokerId>,
}

fn interner() -> &'static Interner {
    static INTERNER: OnceLock<Interner> = OnceLock::new();
    INTERNER.get_or_init(|| Interner {
        ids: papaya::HashMap::new(),
        next: Mutex::new(0),
    })
}

/// The id of `name`, if it was ever interned.
pub fn lookup(name: &str) -> Option<BrokerId> {
    interner().ids.pin().get(name).copied()
}

/// The id of `name`, interning it on first sight.
pub fn intern(name: &str) -> BrokerId {
    let it = interner();
    if let Some(id) = it.ids.pin().get(name) {
        return *id;
    }
    let mut next = it.next.lock().unwrap_or_else(|e| e.into_inner());
    let ids = it.ids.pin();
    if let Some(id) = ids.get(name) {
        return *id;
    }
    let id = *next;
    assert!(id != NO_BROKER, "broker name table is full");
    ids.insert(Arc::from(name), id);
    *next += 1;
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_name_same_id() {
        let a = intern("intern-test-a");
        let b = intern("intern-test-b");
        assert_ne!(a, b);
        assert_eq!(intern("intern-test-a"), a);
        assert_eq!(lookup("intern-test-b"), Some(b));
        assert_eq!(lookup("intern-test-never"), None);
    }
}
