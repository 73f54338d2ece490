//! A remoting connection for callers that block: the thread that sends a request writes its frame itself and
//! sleeps until the connection's reader thread hands it the response, with no event loop between them.
//!
//! A sync send through an event loop costs two hand-overs between threads (the caller wakes the loop, the loop
//! wakes the caller) and the loop's own pass; here it costs one write by the caller and one wake-up by the reader,
//! and neither holds Python's lock while it waits. Frames are bytes in and out: the caller encodes its request
//! and decodes the response; this module only reads the opaque and the flag of each frame to match a response to
//! its request.
//!
//! Requests from the peer (a broker asking the client something) are answered REQUEST_CODE_NOT_SUPPORTED: a
//! broker asks on the connections its clients' heartbeats registered, which are not these.

use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use crate::frame::{frame_prefix, json_header, JsonHeader};

/// Flag bit 0: the frame is a response.
const RPC_RESPONSE: i64 = 1;
/// Flag bit 1: a oneway request (never answered).
const RPC_ONEWAY: i64 = 2;
/// RocketMQ's REQUEST_CODE_NOT_SUPPORTED.
const REQUEST_CODE_NOT_SUPPORTED: i64 = 3;
/// The reader's buffer: a read syscall takes up to this many bytes of the frames that came.
const READ_BUFFER: usize = 64 * 1024;
/// How long an answer to the peer's request may take to write.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(3);
/// The longest a write may block: a day.
const MAX_WRITE_TIMEOUT: Duration = Duration::from_secs(86_400);
/// A write's timeout is what is left of its request's, rounded up to this.
const WRITE_TIMEOUT_STEP: Duration = Duration::from_millis(10);
/// Once a frame's first byte is written, the rest of it may take this long, whatever is left of its request's
/// budget: stopping part-way makes the stream unusable for every other request on it, and a peer that reads drains
/// a socket's buffer in far less. A peer that takes longer in the middle of a frame is not reading.
const FINISH_GRACE: Duration = Duration::from_secs(1);

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectError {
    /// Not connected: the address did not resolve, or nothing accepted within the connect timeout.
    Connect(String),
    /// The frame was not written, or the connection closed before the response came.
    Send(String),
    /// The peer sent bytes that are not a frame: the connection was closed.
    Frame(String),
    /// No response within the request's timeout.
    Timeout,
    /// A request with this opaque is already waiting on this connection.
    DuplicateOpaque(i32),
}

impl std::fmt::Display for DirectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DirectError::Connect(why) | DirectError::Send(why) | DirectError::Frame(why) => {
                f.write_str(why)
            }
            DirectError::Timeout => f.write_str("timed out"),
            DirectError::DuplicateOpaque(opaque) => {
                write!(f, "a request with opaque {opaque} is already in flight")
            }
        }
    }
}

impl std::error::Error for DirectError {}

type Outcome = Result<Vec<u8>, DirectError>;

/// Where one request's outcome is left for its caller.
struct Slot {
    outcome: Mutex<Option<Outcome>>,
    ready: Condvar,
}

impl Slot {
    fn new() -> Self {
        Slot {
            outcome: Mutex::new(None),
            ready: Condvar::new(),
        }
    }

    fn fill(&self, outcome: Outcome) {
        *lock(&self.outcome) = Some(outcome);
        self.ready.notify_one();
    }
}

struct State {
    pending: HashMap<i32, Arc<Slot>>,
    /// Why the connection closed, once it has: every later request fails with it.
    closed: Option<DirectError>,
}

struct Writer {
    stream: TcpStream,
    timeout: Option<Duration>,
}

struct Shared {
    addr: String,
    language: String,
    state: Mutex<State>,
    writer: Mutex<Writer>,
    /// Whose turn it is to write: a writer waits for its turn no longer than its request may wait.
    writing: Mutex<bool>,
    turn: Condvar,
    /// For `shutdown`, which wakes the reader from its blocking read.
    socket: TcpStream,
}

/// Why [`write_before`] stopped, and how many bytes of the frame it had written by then.
struct WriteFailed {
    error: io::Error,
    written: usize,
}

/// `write_all` with each blocking send bounded by what is left before `deadline` (SO_SNDTIMEO, rounded up to
/// [`WRITE_TIMEOUT_STEP`] so that back-to-back writes set it once, not each time).
fn write_before(
    writer: &mut Writer,
    frame: &[u8],
    deadline: Option<Instant>,
) -> Result<(), WriteFailed> {
    let mut written = 0;
    write_rest(writer, frame, &mut written, deadline)
        .map_err(|error| WriteFailed { error, written })
}

fn write_rest(
    writer: &mut Writer,
    frame: &[u8],
    written: &mut usize,
    deadline: Option<Instant>,
) -> io::Result<()> {
    let mut deadline = deadline;
    while *written < frame.len() {
        let timeout = match deadline {
            None => MAX_WRITE_TIMEOUT,
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(io::Error::from(io::ErrorKind::TimedOut));
                }
                let steps = left.as_nanos().div_ceil(WRITE_TIMEOUT_STEP.as_nanos());
                WRITE_TIMEOUT_STEP
                    .saturating_mul(u32::try_from(steps).unwrap_or(u32::MAX))
                    .min(MAX_WRITE_TIMEOUT)
            }
        };
        if writer.timeout != Some(timeout) {
            writer.stream.set_write_timeout(Some(timeout))?;
            writer.timeout = Some(timeout);
        }
        match writer.stream.write(&frame[*written..]) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => {
                if *written == 0 && n < frame.len() {
                    // begun: the request's budget no longer ends the write, FINISH_GRACE does
                    deadline = Instant::now().checked_add(FINISH_GRACE);
                }
                *written += n;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // a panic elsewhere never leaves these maps half-updated: keep going with what is there
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// Close once: fail every request waiting with `why`, and every later one.
    fn close(&self, why: DirectError) {
        let waiting = {
            let mut state = lock(&self.state);
            if state.closed.is_some() {
                return;
            }
            state.closed = Some(why.clone());
            std::mem::take(&mut state.pending)
        };
        let _ = self.socket.shutdown(Shutdown::Both);
        for slot in waiting.into_values() {
            slot.fill(Err(why.clone()));
        }
    }

    /// Write one frame whole before `deadline` (none: no bound). Writers take turns; one that cannot have its
    /// turn in time writes nothing and times out. A write whose deadline passes before its first byte went (it
    /// waited for its turn, or the peer's window stayed shut) fails only its own request with
    /// [`DirectError::Timeout`]: the stream is as it was, and the other requests on it go on. Once begun, a frame
    /// is finished within [`FINISH_GRACE`] even past its request's budget (the request still times out); a write
    /// that stopped part-way (or failed in the socket) leaves the stream unusable, so it closes the connection.
    fn write(&self, frame: &[u8], deadline: Option<Instant>) -> Result<(), DirectError> {
        {
            let mut busy = lock(&self.writing);
            while *busy {
                busy = match deadline {
                    None => self.turn.wait(busy).unwrap_or_else(PoisonError::into_inner),
                    Some(deadline) => {
                        let now = Instant::now();
                        if now >= deadline {
                            return Err(DirectError::Timeout);
                        }
                        self.turn
                            .wait_timeout(busy, deadline - now)
                            .unwrap_or_else(PoisonError::into_inner)
                            .0
                    }
                };
            }
            *busy = true;
        }
        let result = write_before(&mut lock(&self.writer), frame, deadline);
        *lock(&self.writing) = false;
        self.turn.notify_one();
        result.map_err(|WriteFailed { error: e, written }| {
            if written == 0
                && matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                )
            {
                return DirectError::Timeout;
            }
            let why = match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                    "the peer did not take the request's bytes in time (is it reading?); connection closed".to_owned()
                }
                _ => format!("write failed: {e}; connection closed"),
            };
            self.close(DirectError::Send(why.clone()));
            DirectError::Send(why)
        })
    }

    fn take(&self, opaque: i32) -> Option<Arc<Slot>> {
        lock(&self.state).pending.remove(&opaque)
    }

    /// Drop the request `slot` waits for, unless a response or a close already took it.
    fn forget(&self, opaque: i32, slot: &Arc<Slot>) {
        let mut state = lock(&self.state);
        if state
            .pending
            .get(&opaque)
            .is_some_and(|s| Arc::ptr_eq(s, slot))
        {
            state.pending.remove(&opaque);
        }
    }
}

/// One connection to `addr` for blocking callers: any number of threads may send on it at once; each waits for
/// its own response.
pub struct DirectConnection {
    shared: Arc<Shared>,
}

impl DirectConnection {
    /// Connect to `host:port` (each address it resolves to, in turn, within `connect_timeout` each) and start the
    /// reader thread. `addr` names the peer in errors; `language` is written in the answers to the peer's
    /// requests; a frame from the peer over `max_frame_size` bytes closes the connection.
    pub fn connect(
        addr: &str,
        host: &str,
        port: u16,
        connect_timeout: Duration,
        max_frame_size: usize,
        language: &str,
    ) -> Result<Self, DirectError> {
        let targets: Vec<SocketAddr> = (host, port)
            .to_socket_addrs()
            .map_err(|e| DirectError::Connect(format!("cannot resolve {host}: {e}")))?
            .collect();
        let mut last = DirectError::Connect(format!("{host} resolves to no address"));
        let mut stream = None;
        for target in targets {
            match TcpStream::connect_timeout(&target, connect_timeout.max(Duration::from_millis(1)))
            {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e)
                    if e.kind() == io::ErrorKind::TimedOut
                        || e.kind() == io::ErrorKind::WouldBlock =>
                {
                    last = DirectError::Connect(format!(
                        "not connected within {}(ms)",
                        connect_timeout.as_millis()
                    ));
                }
                Err(e) => last = DirectError::Connect(e.to_string()),
            }
        }
        let stream = stream.ok_or(last)?;
        let io_error = |e: io::Error| DirectError::Connect(e.to_string());
        stream.set_nodelay(true).map_err(io_error)?;
        let shared = Arc::new(Shared {
            addr: addr.to_owned(),
            language: language.to_owned(),
            state: Mutex::new(State {
                pending: HashMap::new(),
                closed: None,
            }),
            writer: Mutex::new(Writer {
                stream: stream.try_clone().map_err(io_error)?,
                timeout: None,
            }),
            writing: Mutex::new(false),
            turn: Condvar::new(),
            socket: stream.try_clone().map_err(io_error)?,
        });
        let reader = Arc::clone(&shared);
        thread::Builder::new()
            .name(format!("rocketroute-direct {addr}"))
            .spawn(move || read_frames(&reader, stream, max_frame_size))
            .map_err(io_error)?;
        Ok(DirectConnection { shared })
    }

    /// Write `frame` (a request whose header says `opaque`) and wait up to `timeout` for the response frame
    /// (length field included).
    pub fn invoke(
        &self,
        opaque: i32,
        frame: &[u8],
        timeout: Duration,
    ) -> Result<Vec<u8>, DirectError> {
        // a timeout too long for the clock is no deadline at all
        let deadline = Instant::now().checked_add(timeout);
        let shared = &self.shared;
        let slot = Arc::new(Slot::new());
        {
            let mut state = lock(&shared.state);
            if let Some(why) = &state.closed {
                return Err(why.clone());
            }
            if state.pending.contains_key(&opaque) {
                return Err(DirectError::DuplicateOpaque(opaque));
            }
            state.pending.insert(opaque, Arc::clone(&slot));
        }
        if let Err(e) = shared.write(frame, deadline) {
            shared.forget(opaque, &slot);
            return Err(e);
        }
        let mut outcome = lock(&slot.outcome);
        loop {
            if let Some(done) = outcome.take() {
                return done;
            }
            let Some(deadline) = deadline else {
                outcome = slot
                    .ready
                    .wait(outcome)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            outcome = slot
                .ready
                .wait_timeout(outcome, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        drop(outcome);
        shared.forget(opaque, &slot);
        // a response that came between the wait's end and the forget still counts
        let late = lock(&slot.outcome).take();
        late.unwrap_or(Err(DirectError::Timeout))
    }

    /// Write a oneway request's frame within `timeout`; nothing is awaited.
    pub fn send_oneway(&self, frame: &[u8], timeout: Duration) -> Result<(), DirectError> {
        if let Some(why) = &lock(&self.shared.state).closed {
            return Err(why.clone());
        }
        self.shared
            .write(frame, Instant::now().checked_add(timeout))
    }

    /// Close the connection: every request waiting, and every later one, fails with `DirectError::Send(why)`.
    pub fn close(&self, why: &str) {
        self.shared.close(DirectError::Send(why.to_owned()));
    }

    /// Why the connection is closed, or `None` while it is open.
    pub fn closed(&self) -> Option<DirectError> {
        lock(&self.shared.state).closed.clone()
    }

    /// Requests waiting for their response.
    pub fn in_flight(&self) -> usize {
        lock(&self.shared.state).pending.len()
    }

    pub fn addr(&self) -> &str {
        &self.shared.addr
    }
}

impl Drop for DirectConnection {
    fn drop(&mut self) {
        self.shared
            .close(DirectError::Send("the connection was dropped".to_owned()));
    }
}

/// Fill `buf` from `reader`; `Ok(n)` with `n < buf.len()` when the stream ended first.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The reader thread: frames in, each response handed to its caller, until the stream ends or fails.
fn read_frames(shared: &Shared, stream: TcpStream, max_frame_size: usize) {
    let mut reader = BufReader::with_capacity(READ_BUFFER, stream);
    let why = loop {
        match next_frame(&mut reader, max_frame_size) {
            Ok(frame) => {
                if let Err(why) = dispatch(shared, frame) {
                    break why;
                }
            }
            Err(why) => break why,
        }
    };
    shared.close(why);
}

fn next_frame(reader: &mut impl Read, max_frame_size: usize) -> Result<Vec<u8>, DirectError> {
    let lost = |e: io::Error| DirectError::Send(format!("connection lost: {e}"));
    let mut head = [0u8; 4];
    let got = read_full(reader, &mut head).map_err(lost)?;
    if got == 0 {
        return Err(DirectError::Send(
            "connection closed by the peer".to_owned(),
        ));
    }
    if got < 4 {
        return Err(DirectError::Send(format!(
            "connection closed by the peer in the middle of a frame ({got} bytes received)"
        )));
    }
    let length = i32::from_be_bytes(head);
    if length < 4 {
        return Err(DirectError::Frame(format!(
            "bad frame length field {length} (0x{:08x}): less than 4",
            length as u32
        )));
    }
    let total = length as usize + 4;
    if total > max_frame_size {
        return Err(DirectError::Frame(format!(
            "frame of {total} bytes (length field 0x{length:08x}) is over the maximum frame size {max_frame_size}"
        )));
    }
    let mut frame = vec![0u8; total];
    frame[..4].copy_from_slice(&head);
    let got = read_full(reader, &mut frame[4..]).map_err(lost)?;
    if got < length as usize {
        return Err(DirectError::Send(format!(
            "connection closed by the peer in the middle of a frame ({} of {total} bytes received)",
            got + 4
        )));
    }
    Ok(frame)
}

/// The code, opaque, flag and version of a frame's header.
struct Head {
    code: i64,
    opaque: i64,
    flag: i64,
    version: i64,
}

fn head_of(frame: &[u8]) -> Result<Head, DirectError> {
    let mark = u32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
    let header_len = (mark & 0xFF_FFFF) as usize;
    if header_len > frame.len() - 8 {
        return Err(DirectError::Frame(format!(
            "bad header length {header_len}: the frame has {} bytes for header and body",
            frame.len() - 8
        )));
    }
    let header = &frame[8..8 + header_len];
    match mark >> 24 {
        0 => {
            let value: serde_json::Value = serde_json::from_slice(header)
                .map_err(|e| DirectError::Frame(format!("undecodable JSON header: {e}")))?;
            let int = |key: &str| value.get(key).and_then(serde_json::Value::as_i64);
            match (int("opaque"), int("flag")) {
                (Some(opaque), Some(flag)) => Ok(Head {
                    code: int("code").unwrap_or(0),
                    opaque,
                    flag,
                    version: int("version").unwrap_or(0),
                }),
                _ => Err(DirectError::Frame(
                    "undecodable JSON header: no integer opaque and flag".to_owned(),
                )),
            }
        }
        1 => {
            if header.len() < 13 {
                return Err(DirectError::Frame(format!(
                    "undecodable ROCKETMQ header: {} bytes, under the 13 of its fixed fields",
                    header.len()
                )));
            }
            let i16_at = |at: usize| i64::from(i16::from_be_bytes([header[at], header[at + 1]]));
            let i32_at = |at: usize| {
                i64::from(i32::from_be_bytes([
                    header[at],
                    header[at + 1],
                    header[at + 2],
                    header[at + 3],
                ]))
            };
            Ok(Head {
                code: i16_at(0),
                version: i16_at(3),
                opaque: i32_at(5),
                flag: i32_at(9),
            })
        }
        other => Err(DirectError::Frame(format!(
            "unknown serialize type {other} in the frame's header-length field"
        ))),
    }
}

/// Hand a response to its caller; answer a request (never a oneway one) REQUEST_CODE_NOT_SUPPORTED.
fn dispatch(shared: &Shared, frame: Vec<u8>) -> Result<(), DirectError> {
    let head = head_of(&frame)?;
    if head.flag & RPC_RESPONSE != 0 {
        // a response nobody waits for any more (timed out) is dropped
        if let Some(slot) = i32::try_from(head.opaque)
            .ok()
            .and_then(|opaque| shared.take(opaque))
        {
            slot.fill(Ok(frame));
        }
        return Ok(());
    }
    if head.flag & RPC_ONEWAY != 0 {
        return Ok(());
    }
    let remark = format!(" request type {} not supported", head.code);
    let header = json_header(
        &JsonHeader {
            code: REQUEST_CODE_NOT_SUPPORTED,
            language: &shared.language,
            version: head.version,
            opaque: head.opaque,
            flag: RPC_RESPONSE,
            remark: Some(&remark),
        },
        [],
    );
    let mut answer = Vec::with_capacity(8 + header.len());
    answer.extend_from_slice(&frame_prefix(header.len(), 0).expect("a short header fits"));
    answer.extend_from_slice(&header);
    shared.write(&answer, Instant::now().checked_add(ANSWER_TIMEOUT))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn json_frame(code: i64, opaque: i64, flag: i64, body: &[u8]) -> Vec<u8> {
        let header = json_header(
            &JsonHeader {
                code,
                language: "JAVA",
                version: 1,
                opaque,
                flag,
                remark: None,
            },
            [("k", "v")],
        );
        let mut frame = frame_prefix(header.len(), body.len()).unwrap().to_vec();
        frame.extend_from_slice(&header);
        frame.extend_from_slice(body);
        frame
    }

    /// A peer on a free port running `serve` on its one accepted connection.
    fn peer(serve: impl FnOnce(TcpStream) + Send + 'static) -> (String, u16) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        thread::spawn(move || {
            let (s, _) = listener.accept().unwrap();
            serve(s);
        });
        (format!("127.0.0.1:{port}"), port)
    }

    fn connect(addr: &str, port: u16) -> DirectConnection {
        DirectConnection::connect(
            addr,
            "127.0.0.1",
            port,
            Duration::from_secs(3),
            1 << 20,
            "PYTHON",
        )
        .unwrap()
    }

    /// Read one frame the client wrote.
    fn read_request(s: &mut TcpStream) -> Vec<u8> {
        next_frame(s, 1 << 20).unwrap()
    }

    #[test]
    fn responses_reach_their_callers_out_of_order() {
        let (addr, port) = peer(|mut s| {
            let a = head_of(&read_request(&mut s)).unwrap();
            let b = head_of(&read_request(&mut s)).unwrap();
            // answer the one read second first, each with a body naming its opaque: which caller's request
            // reached the peer first is the threads' race, and does not matter
            for head in [b, a] {
                let body = format!("for {}", head.opaque);
                s.write_all(&json_frame(0, head.opaque, 1, body.as_bytes()))
                    .unwrap();
            }
            thread::sleep(Duration::from_millis(200));
        });
        let conn = Arc::new(connect(&addr, port));
        let c = Arc::clone(&conn);
        let first =
            thread::spawn(move || c.invoke(7, &json_frame(10, 7, 0, b""), Duration::from_secs(3)));
        let second = conn
            .invoke(8, &json_frame(10, 8, 0, b""), Duration::from_secs(3))
            .unwrap();
        assert!(second.ends_with(b"for 8"));
        assert_eq!(head_of(&second).unwrap().opaque, 8);
        let first = first.join().unwrap().unwrap();
        assert!(first.ends_with(b"for 7"));
        assert_eq!(head_of(&first).unwrap().opaque, 7);
        assert_eq!(conn.in_flight(), 0);
    }

    #[test]
    fn no_response_times_out_and_a_late_one_is_dropped() {
        let (addr, port) = peer(|mut s| {
            let a = head_of(&read_request(&mut s)).unwrap();
            thread::sleep(Duration::from_millis(300));
            s.write_all(&json_frame(0, a.opaque, 1, b"late")).unwrap();
            let b = head_of(&read_request(&mut s)).unwrap();
            s.write_all(&json_frame(0, b.opaque, 1, b"on time"))
                .unwrap();
            thread::sleep(Duration::from_millis(200));
        });
        let conn = connect(&addr, port);
        let started = Instant::now();
        assert_eq!(
            conn.invoke(1, &json_frame(10, 1, 0, b""), Duration::from_millis(100)),
            Err(DirectError::Timeout)
        );
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert_eq!(conn.in_flight(), 0);
        thread::sleep(Duration::from_millis(300));
        let answer = conn
            .invoke(2, &json_frame(10, 2, 0, b""), Duration::from_secs(3))
            .unwrap();
        assert!(answer.ends_with(b"on time"));
    }

    #[test]
    fn the_peer_closing_fails_the_waiting_request_and_later_ones() {
        let (addr, port) = peer(|mut s| {
            read_request(&mut s);
        });
        let conn = connect(&addr, port);
        let err = conn
            .invoke(1, &json_frame(10, 1, 0, b""), Duration::from_secs(3))
            .unwrap_err();
        assert_eq!(
            err,
            DirectError::Send("connection closed by the peer".to_owned())
        );
        assert_eq!(conn.closed(), Some(err.clone()));
        assert_eq!(
            conn.invoke(2, &json_frame(10, 2, 0, b""), Duration::from_secs(3)),
            Err(err)
        );
    }

    #[test]
    fn a_frame_cut_short_says_how_much_came() {
        let (addr, port) = peer(|mut s| {
            let a = head_of(&read_request(&mut s)).unwrap();
            let frame = json_frame(0, a.opaque, 1, b"body");
            s.write_all(&frame[..frame.len() - 2]).unwrap();
        });
        let conn = connect(&addr, port);
        match conn.invoke(1, &json_frame(10, 1, 0, b""), Duration::from_secs(3)) {
            Err(DirectError::Send(why)) => {
                assert!(why.contains("in the middle of a frame"), "{why}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_frame_over_the_maximum_closes_the_connection() {
        let (addr, port) = peer(|mut s| {
            read_request(&mut s);
            s.write_all(&(5_000_000i32).to_be_bytes()).unwrap();
            thread::sleep(Duration::from_millis(200));
        });
        let conn = connect(&addr, port);
        match conn.invoke(1, &json_frame(10, 1, 0, b""), Duration::from_secs(3)) {
            Err(DirectError::Frame(why)) => {
                assert!(why.contains("over the maximum frame size 1048576"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        assert!(conn.closed().is_some());
    }

    #[test]
    fn a_request_from_the_peer_is_answered_not_supported() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (addr, port) = peer(move |mut s| {
            s.write_all(&json_frame(39, 55, 0, b"")).unwrap();
            s.write_all(&json_frame(40, 56, RPC_ONEWAY, b"")).unwrap(); // oneway: no answer
            let answer = read_request(&mut s);
            tx.send(answer).unwrap();
        });
        let _conn = connect(&addr, port);
        let answer = rx.recv_timeout(Duration::from_secs(3)).unwrap();
        let head = head_of(&answer).unwrap();
        assert_eq!(
            (head.code, head.opaque, head.flag),
            (REQUEST_CODE_NOT_SUPPORTED, 55, RPC_RESPONSE)
        );
        assert!(String::from_utf8_lossy(&answer).contains(" request type 39 not supported"));
    }

    #[test]
    fn rocketmq_binary_headers_are_matched_too() {
        let (addr, port) = peer(|mut s| {
            let a = head_of(&read_request(&mut s)).unwrap();
            let mut header = Vec::new();
            header.extend_from_slice(&0i16.to_be_bytes()); // code
            header.push(0); // language
            header.extend_from_slice(&1i16.to_be_bytes()); // version
            header.extend_from_slice(&(a.opaque as i32).to_be_bytes());
            header.extend_from_slice(&1i32.to_be_bytes()); // flag: response
            header.extend_from_slice(&0i32.to_be_bytes()); // remark length
            header.extend_from_slice(&0i32.to_be_bytes()); // ext fields length
            let mut frame = ((4 + header.len()) as i32).to_be_bytes().to_vec();
            frame.extend_from_slice(&((1u32 << 24) | header.len() as u32).to_be_bytes());
            frame.extend_from_slice(&header);
            s.write_all(&frame).unwrap();
            thread::sleep(Duration::from_millis(200));
        });
        let conn = connect(&addr, port);
        let answer = conn
            .invoke(-9, &json_frame(10, -9, 0, b""), Duration::from_secs(3))
            .unwrap();
        assert_eq!(head_of(&answer).unwrap().opaque, -9);
    }

    #[test]
    fn a_duplicate_opaque_and_a_closed_connection_are_refused() {
        // the peer holds the connection (answering nothing) until the test is done: the close is ours
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (addr, port) = peer(move |mut s| {
            read_request(&mut s);
            let _ = released.recv_timeout(Duration::from_secs(30));
        });
        let conn = Arc::new(connect(&addr, port));
        let c = Arc::clone(&conn);
        let waiting =
            thread::spawn(move || c.invoke(3, &json_frame(10, 3, 0, b""), Duration::from_secs(3)));
        while conn.in_flight() == 0 {
            thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(
            conn.invoke(3, &json_frame(10, 3, 0, b""), Duration::from_secs(1)),
            Err(DirectError::DuplicateOpaque(3))
        );
        conn.close("the remoting client was closed");
        let closed = DirectError::Send("the remoting client was closed".to_owned());
        assert_eq!(waiting.join().unwrap(), Err(closed.clone()));
        assert_eq!(conn.send_oneway(b"x", Duration::from_secs(1)), Err(closed));
        let _ = release.send(());
    }

    #[test]
    fn a_peer_that_does_not_read_times_the_writers_out() {
        // the peer holds the connection open, reading nothing, until the writers have timed out: the blocked
        // writer must fail on its own deadline (400 ms, then FINISH_GRACE once begun), never on the peer's close
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (addr, port) = peer(move |s| {
            let _ = released.recv_timeout(Duration::from_secs(30));
            drop(s);
        });
        let conn = Arc::new(connect(&addr, port));
        let big = json_frame(10, 1, 0, &vec![0u8; 64 << 20]);
        let c = Arc::clone(&conn);
        let writer = thread::spawn(move || c.invoke(1, &big, Duration::from_millis(400)));
        thread::sleep(Duration::from_millis(100));
        // waits for its turn behind the blocked writer, no longer than its own timeout, and writes nothing
        let started = Instant::now();
        assert_eq!(
            conn.invoke(2, &json_frame(10, 2, 0, b""), Duration::from_millis(100)),
            Err(DirectError::Timeout)
        );
        assert!(started.elapsed() < Duration::from_millis(300));
        match writer.join().unwrap() {
            Err(DirectError::Send(why)) => assert!(
                why.contains("did not take the request's bytes in time"),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
        assert!(conn.closed().is_some());
        let _ = release.send(());
    }

    #[test]
    fn a_write_past_its_deadline_before_any_byte_fails_alone() {
        let (addr, port) = peer(|mut s| {
            let a = head_of(&read_request(&mut s)).unwrap();
            thread::sleep(Duration::from_millis(300));
            s.write_all(&json_frame(0, a.opaque, 1, b"still here"))
                .unwrap();
            let b = head_of(&read_request(&mut s)).unwrap();
            s.write_all(&json_frame(0, b.opaque, 1, b"and after"))
                .unwrap();
            thread::sleep(Duration::from_millis(200));
        });
        let conn = Arc::new(connect(&addr, port));
        let c = Arc::clone(&conn);
        let in_flight =
            thread::spawn(move || c.invoke(1, &json_frame(10, 1, 0, b""), Duration::from_secs(5)));
        while conn.in_flight() == 0 {
            thread::sleep(Duration::from_millis(5));
        }
        // no time left before the first byte: this request fails, nothing is written, the connection stays up
        for opaque in 100..108 {
            assert_eq!(
                conn.invoke(
                    opaque,
                    &json_frame(10, opaque.into(), 0, b""),
                    Duration::ZERO
                ),
                Err(DirectError::Timeout)
            );
            assert_eq!(
                conn.send_oneway(
                    &json_frame(10, opaque.into(), RPC_ONEWAY, b""),
                    Duration::ZERO
                ),
                Err(DirectError::Timeout)
            );
        }
        assert_eq!(conn.closed(), None);
        assert!(in_flight.join().unwrap().unwrap().ends_with(b"still here"));
        let after = conn
            .invoke(2, &json_frame(10, 2, 0, b""), Duration::from_secs(3))
            .unwrap();
        assert!(after.ends_with(b"and after"));
    }

    #[test]
    fn writers_on_tiny_budgets_beside_large_frames_never_close_the_connection() {
        // the peer reads every frame and answers each request at once
        let (addr, port) = peer(|mut s| {
            while let Ok(frame) = next_frame(&mut s, 64 << 20) {
                let head = head_of(&frame).unwrap();
                if head.flag & RPC_ONEWAY == 0 {
                    s.write_all(&json_frame(0, head.opaque, 1, b"ok")).unwrap();
                }
            }
        });
        let conn = Arc::new(connect(&addr, port));
        let big = Arc::new(vec![7u8; 600_000]);
        let mut threads = Vec::new();
        for t in 0..4i32 {
            let (c, big) = (Arc::clone(&conn), Arc::clone(&big));
            threads.push(thread::spawn(move || {
                for i in 0..20 {
                    let opaque = 1_000 * (t + 1) + i;
                    let frame = json_frame(10, opaque.into(), 0, &big);
                    assert!(c.invoke(opaque, &frame, Duration::from_secs(10)).is_ok());
                }
            }));
        }
        for t in 0..20i32 {
            let c = Arc::clone(&conn);
            threads.push(thread::spawn(move || {
                for i in 0..40 {
                    let opaque = 100_000 * (t + 1) + i;
                    // succeeds or times out alone: never a closed connection
                    match c.invoke(
                        opaque,
                        &json_frame(10, opaque.into(), 0, b""),
                        Duration::from_millis(1),
                    ) {
                        Ok(_) | Err(DirectError::Timeout) => {}
                        Err(other) => panic!("{other:?}"),
                    }
                }
            }));
        }
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(conn.closed(), None);
    }

    #[test]
    fn nothing_listening_is_a_connect_error() {
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let addr = format!("127.0.0.1:{port}");
        match DirectConnection::connect(
            &addr,
            "127.0.0.1",
            port,
            Duration::from_secs(1),
            1 << 20,
            "PYTHON",
        ) {
            Err(DirectError::Connect(_)) => {}
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("connected to nothing"),
        }
    }
}
