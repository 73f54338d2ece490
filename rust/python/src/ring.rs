//! `ConsistentHashRouter` and `md5_hash`. A custom hash function is any Python callable `str -> int`;
//! it is called without holding the ring's lock, so it may use the router itself.

use std::sync::{Arc, RwLock};

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PyString, PyTuple};
use pyo3::Borrowed;
use pyo3::{PyTraverseError, PyVisit};
use rocketroute_core::ring::{md5_fn, md5_hash, ConsistentHashRouter, RingError};

use crate::convert::{arg, JavaInt, Later, Name, Text};
use crate::errors::{illegal, java_err, java_utf8_text, npe, type_name};

/// A `hash_function=` argument: a Python callable `str -> int` (its result checked to be a Java long).
pub struct HashFunction(pub Py<PyAny>);

impl FromPyObject<'_, '_> for HashFunction {
    type Error = PyErr;

    fn extract(f: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if !f.is_callable() {
            return Err(PyTypeError::new_err(
                "hash_function must be a callable str -> int",
            ));
        }
        Ok(HashFunction(f.to_owned().unbind()))
    }
}

/// A ring hash: MD5 by default, else the Python callable (checked to return a Java long).
pub fn hash_key(py: Python<'_>, f: Option<&HashFunction>, key: &str) -> PyResult<i64> {
    match f {
        None => Ok(md5_hash(key)),
        Some(f) => checked_hash(py, f.0.bind(py).call1((key,))?),
    }
}

/// What a custom hash function returned, as a Java long.
fn checked_hash(py: Python<'_>, h: Bound<'_, PyAny>) -> PyResult<i64> {
    if h.is_instance_of::<PyBool>() || !h.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "hash_function must return an int, not {}",
            type_name(&h)
        )));
    }
    h.extract::<i64>().map_err(|_| {
        illegal(
            py,
            format!("hash_function returned {}, out of the Java long range", h),
        )
    })
}

/// `md5_hash` of a Python str, over the bytes Java's `getBytes(UTF_8)` gives (an unpaired surrogate is `?`).
fn md5_of(s: &Bound<'_, PyString>) -> PyResult<i64> {
    Ok(md5_hash(&java_utf8_text(s)?))
}

/// RocketMQ's `MD5Hash.hash`: the first 4 bytes of MD5(UTF-8 of `key`), big-endian, unsigned.
#[pyfunction(name = "md5_hash")]
pub fn md5_hash_py(key: Text<'_, arg::Key>) -> PyResult<i64> {
    md5_of(&key.0)
}

/// A ring node argument.
type Node<'a> = Name<'a, arg::Node>;

/// RocketMQ's `ConsistentHashRouter`: nodes on a ring of virtual nodes `"<key>-<replica>"` (a `TreeMap`
/// of their hashes, signed long order); a key routes to the first virtual node at or after its hash.
#[pyclass(frozen, name = "ConsistentHashRouter", module = "rocketroute._native")]
pub struct PyConsistentHashRouter {
    ring: RwLock<ConsistentHashRouter>,
    hash_fn: Option<HashFunction>,
}

/// How often an `add_node` with a Python hash function starts again because the ring changed while
/// it was hashing (another thread, or the hash function itself, added or removed nodes).
const MAX_ADD_ATTEMPTS: usize = 1000;

impl PyConsistentHashRouter {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, ConsistentHashRouter> {
        self.ring.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, ConsistentHashRouter> {
        self.ring.write().unwrap_or_else(|e| e.into_inner())
    }

    /// `addNode`. MD5 runs under the write lock (no Python inside). A Python hash function runs with no
    /// lock held: the replicas are numbered from a snapshot, hashed, then put only if the ring is still
    /// that snapshot, else numbered and hashed again; so concurrent adds of one node never reuse a
    /// replica number, and the ring ends as if the adds ran one after another.
    fn add(&self, py: Python<'_>, node: &Arc<str>, count: i32) -> PyResult<()> {
        let Some(f) = &self.hash_fn else {
            return self
                .write()
                .add_node(node, count, &mut md5_fn)
                .map_err(|e| match e {
                    RingError::Java(j) => java_err(j),
                    RingError::Hash(never) => match never {},
                });
        };
        for _ in 0..MAX_ADD_ATTEMPTS {
            let (version, keys) = {
                let ring = self.read();
                (
                    ring.version(),
                    ring.vnode_keys(node, count).map_err(java_err)?,
                )
            };
            let mut hashed = Vec::with_capacity(keys.len());
            let mut failed = None;
            for k in keys {
                match hash_key(py, Some(f), &k) {
                    Ok(h) => hashed.push((h, k)),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            let mut ring = self.write();
            if ring.version() != version {
                continue;
            }
            // Java puts each replica as it is hashed: the ones before a failing hash stay
            ring.add_hashed(node, hashed);
            drop(ring);
            return failed.map_or(Ok(()), Err);
        }
        Err(PyRuntimeError::new_err(format!(
            "add_node({node:?}): the ring changed while the hash function ran, {MAX_ADD_ATTEMPTS} times"
        )))
    }

    /// A key's ring hash; a custom hash function gets the key itself, lone surrogates and all.
    fn key_hash(&self, py: Python<'_>, k: &Bound<'_, PyString>) -> PyResult<i64> {
        match &self.hash_fn {
            None => md5_of(k),
            Some(f) => checked_hash(py, f.0.bind(py).call1((k,))?),
        }
    }
}

#[pymethods]
impl PyConsistentHashRouter {
    /// The user's hash function, shown to the garbage collector (a cycle through it is collected).
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(f) = &self.hash_fn {
            visit.call(&f.0)?;
        }
        Ok(())
    }

    #[new]
    #[pyo3(signature = (nodes = None, virtual_node_cnt = None, hash_function = None))]
    fn new(
        py: Python<'_>,
        nodes: Option<&Bound<'_, PyAny>>,
        virtual_node_cnt: Option<JavaInt<arg::VirtualNodeCnt>>,
        hash_function: Option<HashFunction>,
    ) -> PyResult<Self> {
        let count = virtual_node_cnt.map_or(10, |c| c.0);
        let router = PyConsistentHashRouter {
            ring: RwLock::new(ConsistentHashRouter::new()),
            hash_fn: hash_function,
        };
        if let Some(nodes) = nodes {
            for node in nodes.try_iter()? {
                let node = node?;
                if count < 0 {
                    // each node is Java's addNode(node, count): the count is checked before the node
                    return Err(illegal(py, format!("illegal virtual node counts :{count}")));
                }
                let node: Node<'_> = node.extract()?;
                router.add(py, &Arc::from(&*node), count)?;
            }
        }
        Ok(router)
    }

    /// Adds `vnode_count` virtual nodes, numbered after the ones `node` already owns.
    fn add_node(
        &self,
        py: Python<'_>,
        node: Later<Node<'_>, arg::Node>,
        vnode_count: Later<JavaInt<arg::VnodeCount>, arg::VnodeCount>,
    ) -> PyResult<()> {
        // Java's order: the count is checked before the node is looked at (a bad count wins over a bad node)
        let count = vnode_count.get(py)?.0;
        if count < 0 {
            return Err(illegal(py, format!("illegal virtual node counts :{count}")));
        }
        let node = node.get(py)?;
        self.add(py, &Arc::from(&*node), count)
    }

    /// Removes every virtual node of `node`.
    fn remove_node(&self, node: Node<'_>) {
        self.write().remove_node(&node);
    }

    /// How many ring entries `node` owns now.
    fn existing_replicas(&self, node: Node<'_>) -> usize {
        self.read().existing_replicas(&node)
    }

    /// The node `key` routes to, or `None` for an empty ring.
    fn route_node(&self, py: Python<'_>, key: Text<'_, arg::Key>) -> PyResult<Option<String>> {
        if self.read().is_empty() {
            return Ok(None);
        }
        let h = self.key_hash(py, &key.0)?;
        let node = self.read().route_hash(h).cloned();
        Ok(node.map(|n| n.to_string()))
    }

    /// `route_node` of every key: a list, a NumPy array or a pyarrow (Chunked)Array of strings. A null key
    /// raises `NullPointerError`, or routes to `None` with `nulls="mask"`. MD5 routing runs without the GIL.
    #[pyo3(signature = (keys, *, nulls = None))]
    fn route_nodes<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        nulls: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let masked = crate::batch::mask_arg(py, nulls)?;
        let hashes: Vec<Option<i64>> = match &self.hash_fn {
            None => {
                let keys = crate::batch::key_strings(py, keys, masked)?;
                crate::batch::maybe_detach(py, keys.len(), || {
                    keys.iter().map(|k| k.as_deref().map(md5_hash)).collect()
                })
            }
            // the callable sees each key as the Python object it is, as `route_node` gives it
            Some(_) => {
                let mut out = Vec::new();
                for (i, k) in crate::batch::key_objects(py, keys)?.iter().enumerate() {
                    if k.is_none() {
                        if !masked {
                            return Err(npe(py, format!("key {i} is null")));
                        }
                        out.push(None);
                    } else {
                        out.push(Some(
                            self.key_hash(py, &k.extract::<Text<'_, arg::Key>>()?.0)?,
                        ));
                    }
                }
                out
            }
        };
        // the nodes are resolved under the read lock and the list is built after it is released: making
        // Python objects may run a finalizer that adds or removes nodes on this thread
        let nodes: Vec<Option<Arc<str>>> = {
            let ring = self.read();
            hashes
                .into_iter()
                .map(|h| h.and_then(|h| ring.route_hash(h)).cloned())
                .collect()
        };
        PyList::new(py, nodes.iter().map(|n| n.as_deref()))
    }

    /// `[(hash, virtual node key, node), ...]` in ring order.
    fn ring<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let entries: Vec<(i64, Arc<str>, Arc<str>)> = self
            .read()
            .entries()
            .map(|(h, k, n)| (h, k.clone(), n.clone()))
            .collect();
        let out = PyList::empty(py);
        for (h, k, n) in entries {
            out.append(PyTuple::new(
                py,
                [
                    h.into_pyobject(py)?.into_any(),
                    PyString::new(py, &k).into_any(),
                    PyString::new(py, &n).into_any(),
                ],
            )?)?;
        }
        Ok(out)
    }

    fn __len__(&self) -> usize {
        self.read().len()
    }

    fn __repr__(&self) -> String {
        format!("ConsistentHashRouter(ring_size={})", self.read().len())
    }
}
