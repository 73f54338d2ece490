//! Broker names interned to small integer ids, so the send path indexes fault items by id: no string
//! hashing and no lock per queue looked at. Reads are lock-free; taking or dropping a name takes a lock.
//!
//! A name is interned while something holds it (a [`BrokerName`]: a publish info's brokers, a fault
//! table's items); when the last holder goes, the name is forgotten and its id is given to the next new
//! name, the smallest free id first. So the table, and every fault table indexed by these ids, is
//! bounded by the broker names alive at once, not by every name the process ever saw.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex, OnceLock};

/// A broker name's id, unique among the names held at the same time.
pub type BrokerId = u32;

/// The id of "no broker" (a queue whose broker name is null).
pub const NO_BROKER: BrokerId = u32::MAX;

struct Table {
    /// holders of each id (0: free)
    refs: Vec<usize>,
    free: BinaryHeap<Reverse<BrokerId>>,
}

struct Interner {
    ids: papaya::HashMap<Arc<str>, BrokerId>,
    table: Mutex<Table>,
}

fn interner() -> &'static Interner {
    static INTERNER: OnceLock<Interner> = OnceLock::new();
    INTERNER.get_or_init(|| Interner {
        ids: papaya::HashMap::new(),
        table: Mutex::new(Table {
            refs: Vec::new(),
            free: BinaryHeap::new(),
        }),
    })
}

fn table() -> std::sync::MutexGuard<'static, Table> {
    interner().table.lock().unwrap_or_else(|e| e.into_inner())
}

/// The id of `name`, if something holds it now.
pub fn lookup(name: &str) -> Option<BrokerId> {
    interner().ids.pin().get(name).copied()
}

/// A held broker name: while it lives, `id()` is this name's and no other's.
pub struct BrokerName {
    id: BrokerId,
    name: Arc<str>,
}

impl BrokerName {
    /// Holds `name`, interning it if nothing held it.
    pub fn new(name: &str) -> Self {
        let it = interner();
        let mut table = table();
        let ids = it.ids.pin();
        if let Some((key, &id)) = ids.get_key_value(name) {
            table.refs[id as usize] += 1;
            return BrokerName {
                id,
                name: key.clone(),
            };
        }
        let id = match table.free.pop() {
            Some(Reverse(id)) => id,
            None => {
                let id = table.refs.len() as BrokerId;
                assert!(id != NO_BROKER, "broker name table is full");
                table.refs.push(0);
                id
            }
        };
        table.refs[id as usize] = 1;
        let name: Arc<str> = Arc::from(name);
        ids.insert(name.clone(), id);
        BrokerName { id, name }
    }

    pub fn id(&self) -> BrokerId {
        self.id
    }

    pub fn name(&self) -> &Arc<str> {
        &self.name
    }
}

impl Clone for BrokerName {
    fn clone(&self) -> Self {
        table().refs[self.id as usize] += 1;
        BrokerName {
            id: self.id,
            name: self.name.clone(),
        }
    }
}

impl Drop for BrokerName {
    fn drop(&mut self) {
        let mut table = table();
        let refs = &mut table.refs[self.id as usize];
        *refs -= 1;
        if *refs == 0 {
            interner().ids.pin().remove(&*self.name);
            table.free.push(Reverse(self.id));
        }
    }
}

impl std::fmt::Debug for BrokerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BrokerName({:?}, {})", self.name, self.id)
    }
}

/// `(names held now, ids ever handed out)`: the second bounds every fault table's slots.
pub fn stats() -> (usize, usize) {
    let table = table();
    (table.refs.len() - table.free.len(), table.refs.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_name_same_id_while_held() {
        let a = BrokerName::new("intern-test-a");
        let b = BrokerName::new("intern-test-b");
        assert_ne!(a.id(), b.id());
        assert_eq!(BrokerName::new("intern-test-a").id(), a.id());
        assert_eq!(lookup("intern-test-b"), Some(b.id()));
        assert_eq!(lookup("intern-test-never"), None);
        let b2 = b.clone();
        drop(b);
        assert_eq!(lookup("intern-test-b"), Some(b2.id()));
        drop(b2);
        assert_eq!(lookup("intern-test-b"), None);
    }

    #[test]
    fn ids_of_forgotten_names_are_reused() {
        let (_, before) = stats();
        for i in 0..10_000 {
            let n = BrokerName::new(&format!("intern-test-short-lived-{i}"));
            assert!(
                (n.id() as usize) <= before + 8,
                "id {} after {before}",
                n.id()
            );
        }
        assert!(stats().1 <= before + 8);
    }
}
