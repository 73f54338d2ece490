"""Stubs of rocketroute._native, the Rust backend (same API as rocketroute.reference)."""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, final

from typing_extensions import disjoint_base

# the module's __all__ as PyO3 fills it: every name the extension adds, the diagnostics hooks included
__all__ = [
    "AllocateMachineRoomNearby",
    "AllocateMessageQueueAveragely",
    "AllocateMessageQueueAveragelyByCircle",
    "AllocateMessageQueueByConfig",
    "AllocateMessageQueueByMachineRoom",
    "AllocateMessageQueueConsistentHash",
    "AllocateMessageQueueConsistentHashBounded",
    "AllocateMessageQueueSticky",
    "AllocateMessageQueueStrategy",
    "BrokerData",
    "COMPAT_PROFILES",
    "ConsistentHashRouter",
    "Endpoints",
    "GrpcMessageQueue",
    "JavaRandom",
    "LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST",
    "LOGICAL_QUEUE_MOCK_BROKER_PREFIX",
    "LatencyFaultTolerance",
    "MAX_QUEUES",
    "MAX_VIRTUAL_NODES",
    "METADATA_SCOPE_GLOBAL",
    "MQFaultStrategy",
    "ManualClock",
    "MessageQueue",
    "PROFILES",
    "PermName",
    "ProfileSelector",
    "PublishingLoadBalancer",
    "QueueData",
    "SelectMessageQueueByHash",
    "SelectMessageQueueByMachineRoom",
    "SelectMessageQueueByRandom",
    "SendWhichQueue",
    "SubscriptionLoadBalancer",
    "SystemClock",
    "TopicPublishInfo",
    "TopicQueueMappingInfo",
    "TopicRouteData",
    "allocate_all",
    "hash_select_indices",
    "java_int_hash",
    "java_long_hash",
    "java_string_compare",
    "java_string_hash",
    "java_string_hashes",
    "md5_hash",
    "mock_broker_name",
    "profile_select_index",
    "profile_select_indices",
    "round_robin_indices",
    "_broker_name_table",
    "_DirectConnection",
    "_EagerFuture",
    "_FrameReader",
    "_MessageIdCounter",
    "_QueueCache",
    "_decode_stored",
    "_encode_batch_body",
    "_properties_string",
    "_send_properties",
    "_usual_batch_body",
    "_SendLoop",
    "_SendResultMaker",
    "_encode_json_frame",
    "_read_json_header",
    "_read_frames",
    "_send_request_frame",
    "_panic_for_tests",
]

COMPAT_PROFILES: tuple[str, ...]
MAX_QUEUES: int
MAX_VIRTUAL_NODES: int

def java_string_hash(s: str) -> int:
    """``String.hashCode()``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units, in int arithmetic."""

def java_string_compare(a: str, b: str) -> int:
    """``a.compareTo(b)``: the first differing UTF-16 code unit decides, else the length difference."""

def _encode_json_frame(
    code: object,
    language: object,
    version: object,
    opaque: object,
    flag: object,
    remark: object,
    ext_fields: object,
    body: object,
) -> bytes | None:
    """The whole frame of a command with a JSON header, as ``encode_frame`` writes it; ``None`` when a field is of a
    kind only the Python encoder handles (it then converts or raises as it always did): an int past 64 bits, a
    string with lone surrogates, an ext field that is not a str to a str, a body that is not bytes, a frame too
    large for its length words."""

def _read_frames(
    buf: bytes | bytearray, pos: int, end: int, max_frame_size: int, command: type, serialize_type: object
) -> _FrameReader:
    """The complete frames with a usual JSON header at the start of ``buf[pos:end]``, as a reader that makes each
    one's command as it is asked for: ``command(code, opaque, flag, language, version, remark, ext_fields, body,
    serialize_type)`` (``body`` ``None`` when the frame has none); its ``end`` is then the offset in ``buf`` where
    that frame ends. It stops at the first frame not yet whole, and at the first the Python decoder reads itself
    (refused lengths, another serialize type, an unusual header). One command at a time, so that a connection hands
    each response on before the next is made (a read of a thousand responses does not first make a thousand
    objects, which would set off a collection of the youngest generation that walks every send in flight)."""

@final
class _FrameReader:
    """The commands of a read's whole frames, made one at a time (:func:`_read_frames`); not tracked by the garbage
    collector."""

    @property
    def end(self) -> int:
        """Where the frame of the last command given ends, in the buffer read (``pos`` before the first)."""
    def __iter__(self) -> _FrameReader: ...
    def __next__(self) -> Any: ...

def _read_json_header(
    buf: bytes | bytearray, start: int, end: int
) -> tuple[int, int, int, str, int, str | None, dict[str, str]] | None:
    """``(code, opaque, flag, language, version, remark, ext_fields)`` of the JSON header in ``buf[start:end]``, as
    ``rocketroute.protocol.frame._decode_json_header`` reads it; ``None`` where that reader decides: an unusual
    header (leading whitespace, a float, an int past 64 bits, a language code, a non-string ext field, a lone
    surrogate, values nested past 64 levels) or one that does not decode."""

def _send_properties(
    msg: object,
    drop_last_separator: bool,
    compress_over: int,
    max_message_size: int,
    checked_topics: set[str] | frozenset[str],
    system_names: set[str] | frozenset[str],
    counter: object,
    msg_id: str | None,
) -> tuple[str, str] | None:
    """``(properties, msg_id)`` of ``msg`` for a send: the message passed ``Validators.checkMessage`` (its topic is
    one of ``checked_topics``, which ``check_topic`` passed; its body is ``bytes`` of 1 to ``max_message_size``
    bytes, under ``compress_over``), its properties are the usual ones (none of ``system_names``, no delay or
    timer), and its ``UNIQ_KEY`` is ``msg_id`` or, when that is ``None``, a new id of ``counter``. ``None``: the
    Python encoder decides."""

@final
class _MessageIdCounter:
    """The time window and the counter of one generator's ids: ``create`` is ``createUniqID()``'s moving part."""

    def __new__(cls, prefix: str, start: int, next_start: int, counter: int = 0) -> _MessageIdCounter: ...
    def create(self, now_ms: int | None = None) -> str | None:
        """A new id at ``now_ms`` (default: the system clock, ``System.currentTimeMillis()``), or ``None`` when that
        is past the window: set the next one, then ask again."""

    def create_many(self, n: int, now_ms: int | None = None) -> list[str] | None:
        """``n`` ids as ``n`` calls of ``create`` in a row would give them, or ``None`` when ``now_ms`` is past the
        window."""

    def set_window(self, start: int, next_start: int) -> None:
        """Ids are written in the window ``[start, next_start)`` from now on."""

    @property
    def counter(self) -> int:
        """The counter's next value (16 bits)."""

    @property
    def prefix(self) -> str: ...

@final
class _QueueCache:
    """A consumer queue's cache (``rocketroute_core::queue_cache``): the twin of
    ``rocketroute.client.consumer.process_queue._QueueCache``, the state Java's ``ProcessQueue`` keeps behind its
    lock. Each operation is one call under the cache's lock; the messages' ``queue_offset`` and ``body`` are read
    before it is taken and what leaves the cache is released after, so no Python code runs under it."""

    def __new__(cls) -> _QueueCache: ...
    def __len__(self) -> int: ...
    def __contains__(self, offset: int, /) -> bool: ...
    @property
    def msg_count(self) -> int: ...
    @property
    def msg_size(self) -> int: ...
    @property
    def queue_offset_max(self) -> int: ...
    @property
    def consuming(self) -> bool: ...
    def put_messages(self, msgs: Iterable[Any]) -> bool:
        """``putMessage``: each message cached at its ``queue_offset``. Returns whether to dispatch a consume
        request."""

    def remove_messages(self, msgs: Iterable[Any]) -> int:
        """``removeMessage``: the messages' offsets removed when cached. Returns the offset to commit, or -1."""

    def take_messages(self, n: int) -> list[Any]:
        """``takeMessages``: up to ``n`` messages, lowest offsets first, moved to the taken map and returned."""

    def commit(self) -> int:
        """``commit``: the taken messages uncounted and forgotten; the offset to commit, or -1 when none was
        taken."""

    def rollback(self) -> None:
        """``rollback``: every taken message back in the cache."""

    def make_again(self, msgs: Iterable[Any]) -> None:
        """``makeMessageToConsumeAgain``: the messages leave the taken map and are cached again."""

    def clear(self) -> None:
        """Both maps emptied, the counts and ``queue_offset_max`` 0."""

    def max_span(self) -> int:
        """The last cached offset minus the first, 0 when none is cached."""

    def first(self) -> Any:
        """The cached message with the lowest offset, or ``None``."""

    def state(self) -> tuple[int, int, int, bool, int, int | None, int | None, int, int | None, int | None]:
        """``(msg_count, msg_size, queue_offset_max, consuming, cached, cached_first, cached_last, taken,
        taken_first, taken_last)``, read at once."""

@final
class _SendResultMaker:
    """Builds the ``SendResult`` of a usual send response (``rocketroute_core::send_result``): the class, the four
    ``SendStatus`` members in declaration order and the default region are given once; ``compat_53`` keeps 5.3.3's
    ``recallHandle``."""

    def __new__(
        cls, send_result: type, statuses: tuple[Any, Any, Any, Any], default_region: str, compat_53: bool
    ) -> _SendResultMaker: ...
    def __call__(self, code: int, ext_fields: object, mq: object, msg_id: str | None, topic: str) -> Any | None:
        """The ``SendResult`` of a response with ``code`` and ``ext_fields`` to a send of ``msg_id`` (a single
        message's ``UNIQ_KEY``) to ``mq``, in ``topic`` (the producer's topic as the user sees it); ``None`` when the
        response is not the usual one (an error code, a missing or unusual number, a field that is not a str, ``mq``
        not a native ``MessageQueue``)."""

@final
class _EagerFuture:
    """An asyncio future of one request's response whose :meth:`wake` resumes the awaiting task within the call
    (``rocketroute.net.connection``: a connection wakes a task as its response is read). Everything else queues
    the callbacks on the loop as ``asyncio.Future`` does."""

    def __new__(cls, event_loop: Any) -> _EagerFuture: ...
    @property
    def _asyncio_future_blocking(self) -> bool:
        """Set by ``__await__`` before it yields the future to the task (asyncio's protocol), cleared by the task."""
    @_asyncio_future_blocking.setter
    def _asyncio_future_blocking(self, value: bool) -> None: ...
    def get_loop(self) -> Any:
        """The loop the future belongs to."""
    def done(self) -> bool: ...
    def cancelled(self) -> bool: ...
    def result(self) -> Any:
        """The result; raises the exception set, ``CancelledError`` when cancelled, ``InvalidStateError`` when
        pending."""
    def exception(self) -> BaseException | None:
        """The exception set (``None`` for a result); raises ``CancelledError`` when cancelled, ``InvalidStateError``
        when pending."""
    def _make_cancelled_error(self) -> BaseException:
        """``CancelledError(msg)`` (or with no argument), for asyncio's ``gather``, which asks a cancelled child for
        it."""
    def add_done_callback(self, callback: Any, *, context: Any = None) -> None:
        """``callback(future)`` once the future is done, in ``context`` (a copy of the current one by default);
        queued on the loop at once when it is done already."""
    def remove_done_callback(self, callback: Any) -> int:
        """Removes every registration of ``callback`` (compared with ``==``); how many there were."""
    def set_result(self, result: Any) -> None:
        """Completes the future with ``result``; its callbacks are queued on the loop. ``InvalidStateError`` when
        done."""
    def set_exception(self, exception: Any) -> None:
        """Completes the future with ``exception`` (an instance, or a class called without arguments); its callbacks
        are queued on the loop. ``InvalidStateError`` when done; ``TypeError`` for ``StopIteration``, as asyncio."""
    def cancel(self, msg: Any = None) -> bool:
        """Cancels a pending future (its callbacks are queued on the loop) and says ``True``; ``False`` when done."""
    def wake(self, result: Any) -> None:
        """Completes a pending future with ``result`` and runs its callbacks now, each in its context (a task's
        wake-up resumes the task within this call); nothing when it is done already. Only where no task is running:
        a callback that raises is reported to the loop's exception handler, as the loop reports one it runs;
        ``KeyboardInterrupt`` or ``SystemExit`` is raised once the remaining callbacks are queued on the loop."""
    def __await__(self) -> _EagerFuture: ...
    def __iter__(self) -> _EagerFuture: ...
    def __next__(self) -> Any:
        """``await``'s steps: the future itself while it is pending (to the task, which waits for it), then its
        result."""

@disjoint_base
class _SendLoop:
    """The state of one send loop (``rocketroute_core::send_loop``): which queue each attempt goes to and what the
    strategy learns from each outcome. ``clock`` is a ``ManualClock``, or ``None`` for a monotonic clock."""

    def __new__(
        cls,
        tp_info: TopicPublishInfo,
        strategy: MQFaultStrategy,
        sync: bool,
        total: int,
        timeout_ms: int,
        retry_response_codes: Any,
        retry_result: Callable[[Any], object] | None = None,
        clock: ManualClock | None = None,
    ) -> _SendLoop: ...
    def next_queue(self) -> MessageQueue | None:
        """The queue of the next attempt, or ``None`` when the loop is over (no attempt left, no queue, or the send
        timeout passed)."""

    def succeeded(self, result: Any) -> bool:
        """Records an attempt that returned; ``True`` when ``result`` is the answer (else the loop goes on: the
        ``retry_result`` asked for another broker, and ``result`` is kept as the answer if no later attempt
        stores)."""

    def _record(self, error: object, *, isolation: bool, reachable: bool) -> None:
        """Tells the strategy how the latest attempt went (``error`` is not kept: this loop keeps no attempts
        list)."""

    def _count(self) -> None:
        """One more attempt made."""

    def _elapsed_ms(self) -> int:
        """Milliseconds since the loop began."""

    @property
    def times(self) -> int:
        """Attempts made so far."""

    @property
    def total(self) -> int:
        """Attempts allowed."""

    @property
    def timed_out(self) -> bool:
        """Whether the loop ended because the send timeout passed."""

    @property
    def has_result(self) -> bool:
        """Whether a result not stored well enough was kept (see ``succeeded``)."""

    @property
    def result(self) -> Any:
        """That result, else ``None``."""

    @property
    def last_error(self) -> Any:
        """The latest attempt's error, set by the loop's ``failed``."""

    @last_error.setter
    def last_error(self, error: object) -> None: ...
    @property
    def mq(self) -> MessageQueue | None:
        """The queue of the latest attempt (``None`` before the first)."""

    @property
    def brokers_sent(self) -> list[str | None]:
        """The broker of each attempt (``None`` for those not made)."""

    @property
    def tp_info(self) -> TopicPublishInfo: ...
    @property
    def strategy(self) -> MQFaultStrategy: ...
    @property
    def retry_response_codes(self) -> Any:
        """The response codes a failed attempt is retried after."""

    @property
    def start_detector(self) -> bool:
        """The strategy's ``start_detector_enable`` when the loop began."""

    @property
    def attempts(self) -> None:
        """Always ``None``: a loop that keeps its attempts is the Python one."""

def _send_request_frame(
    code: int,
    opaque: int,
    flag: int,
    language: str,
    version: int,
    producer_group: str,
    topic: str,
    default_topic: str,
    default_topic_queue_nums: int,
    queue_id: int,
    sys_flag: int,
    born_timestamp: int,
    msg_flag: int,
    properties: str | None,
    unit_mode: bool,
    batch: bool,
    broker_name: str | None,
    body: bytes | None,
) -> bytes | None:
    """The whole frame of a send request, as ``encode_frame`` writes the command whose ext fields are
    ``send_header_v2``'s (``rocketroute_core::send_header``), for ``rocketroute.protocol.headers.send.send_request``;
    ``None`` for what only the Python encoder writes (an int past 64 bits, a non-str string, a lone surrogate, a
    body that is not bytes, a frame too large for its length words)."""

@final
class _DirectConnection:
    """One connection to a broker for threads that block on their requests (the sync facade of
    ``rocketroute.net.RemotingClient``): frames in, commands out, matched by opaque. A response is made into its
    command here (``command(...)`` as the loop's connections make it, or ``decode(frame, max_frame_size)`` for a
    frame the native reader leaves to the Python decoder)."""

    def __new__(
        cls,
        addr: str,
        host: str,
        port: int,
        *,
        connect_timeout_ms: int,
        max_frame_size: int,
        language: str,
        command: Any,
        serialize_type: Any,
        decode: Any,
    ) -> _DirectConnection:
        """Connect to ``host:port`` within ``connect_timeout_ms`` (``addr`` names it in errors); ``language`` goes in
        the answers to the peer's requests; a frame over ``max_frame_size`` bytes from the peer closes the
        connection. Responses are made into commands with ``command`` and ``serialize_type``
        (``RemotingCommand``, ``SerializeType.JSON``), or with ``decode`` (``decode_frame``)."""

    def invoke(self, opaque: int, frame: bytes, timeout_ms: int, code: int) -> Any:
        """Write ``frame`` (request ``code``, ``opaque``) and return the response's command; raises
        ``RemotingTimeoutError`` after ``timeout_ms``, ``RemotingSendRequestError`` when the connection fails or is
        closed, and what ``decode`` raises for a malformed response."""

    def send_oneway(self, frame: bytes, timeout_ms: int) -> None:
        """Write a oneway request's ``frame`` (within ``timeout_ms``); nothing is awaited."""

    def close(self, reason: str) -> None:
        """Close it: the requests waiting, and every later one, fail with ``RemotingSendRequestError(addr,
        reason)``."""

    @property
    def closed(self) -> bool:
        """Whether it is closed (by ``close``, the peer, or a failure); a closed connection never opens again."""

    @property
    def in_flight(self) -> int:
        """Requests waiting for their response."""

    @property
    def addr(self) -> str: ...

def _decode_stored(data: bytes, cls: type[Any], pulled: tuple[str, str, str | None] | None = None) -> list[Any] | None:
    """Each message of a pull response body as an instance of ``cls`` (``MessageExt``) made without its
    ``__init__`` and given every field; with ``pulled`` (``(min_offset, max_offset, broker_name)``) the
    ``MIN_OFFSET`` and ``MAX_OFFSET`` properties are put last and ``broker_name`` is set. ``None`` when one message
    is not the common case (malformed, compressed, not UTF-8): the Python decoder reads it."""

def _usual_batch_body(
    messages: list[Any],
    message_class: type[Any],
    drop_last_separator: bool,
    max_message_size: int,
    checked_topics: set[str],
    system_names: frozenset[str],
    counter: _MessageIdCounter,
) -> tuple[bytes, list[str]] | None:
    """``(body, msg_ids)`` of a batch of usual messages (each a ``message_class``, the usual message of a send,
    of the first one's topic and wait, a flag of 32 bits), checked and written at once with ``counter``'s next ids;
    ``None`` for anything else (no id made), which the Python encoder checks, writes or refuses."""

def _encode_batch_body(entries: list[tuple[Any, ...]], drop_last_separator: bool) -> bytes | None:
    """The body of a batch of checked messages, each ``(flag, body, [(name, value), ...])`` with its properties in
    put order (``UNIQ_KEY`` last); ``None`` when one of them is for the Python encoder: a flag past 64 bits, a body
    that is not ``bytes``, a string with lone surrogates, more than 8 properties, properties past 32767 bytes
    (which it refuses with Java's words)."""

def _properties_string(items: list[tuple[str, str]], drop_last_separator: bool) -> str | None:
    """One message's properties string (``messageProperties2String``) from its ``[(name, value), ...]`` in put
    order: ``name \x01 value \x02`` in Java's ``HashMap`` order, the last ``\x02`` dropped with
    ``drop_last_separator`` (4.9); ``None`` past 8 properties or for a string with lone surrogates."""

def java_int_hash(value: int) -> int:
    """``Integer.hashCode(v)``: the value itself."""

def java_long_hash(value: int) -> int:
    """``Long.hashCode(v)``: ``(int)(v ^ (v >>> 32))``."""

@final
class JavaRandom:
    """``java.util.Random``, bit for bit: the same seed gives the same numbers as the JVM.

    ``JavaRandom()`` (``seed`` None) seeds itself from the OS. Thread-safe (Java's Random is too)."""

    def __new__(cls, seed: int | None = None) -> JavaRandom:
        """A generator seeded with ``seed`` (Java's ``new Random(seed)``), or from the OS when None."""
    def set_seed(self, seed: int) -> None:
        """``setSeed(seed)``: restart the sequence as ``new Random(seed)`` would."""
    def next_int(self, bound: int | None = None) -> int:
        """``nextInt()``, or ``nextInt(bound)`` (uniform in ``[0, bound)``)."""
    def next_long(self) -> int:
        """``nextLong()``: a signed 64-bit value."""
    def next_boolean(self) -> bool:
        """``nextBoolean()``."""
    def next_double(self) -> float:
        """``nextDouble()``: uniform in ``[0.0, 1.0)``."""

@final
class ManualClock:
    """A clock that moves only when told to. Thread-safe."""

    def __new__(cls, now_ms: int | None = None) -> ManualClock:
        """A clock that reads ``now_ms`` (None: 0) until moved."""
    def now_ms(self) -> int:
        """The current time in milliseconds."""
    def set(self, now_ms: int) -> None:
        """Set the time to ``now_ms``."""
    def advance(self, delta_ms: int) -> int:
        """Moves the clock by ``delta_ms`` (back if negative); returns the new time."""

@final
class SystemClock:
    """Wall-clock milliseconds (``System.currentTimeMillis()``)."""

    def __new__(cls) -> SystemClock:
        """The wall clock."""
    def now_ms(self) -> int:
        """``System.currentTimeMillis()``."""

@final
class MessageQueue:
    """A topic queue: ``(topic, broker_name, queue_id)``, ordered and hashed as Java's ``MessageQueue``.
    ``topic`` and ``broker_name`` may be None (Java null); ordering such a queue raises ``NullPointerError``."""

    def __new__(cls, topic: str | None, broker_name: str | None, queue_id: int) -> MessageQueue:
        """``new MessageQueue(topic, brokerName, queueId)``."""
    @property
    def topic(self) -> str | None:
        """The topic (None: Java null)."""
    @property
    def broker_name(self) -> str | None:
        """The broker name (None: Java null)."""
    @property
    def queue_id(self) -> int:
        """The queue id on the broker."""
    def java_hash_code(self) -> int:
        """Java's ``hashCode()``."""
    def compare_to(self, other: MessageQueue) -> int:
        """Java's ``compareTo``: topic, then broker name (UTF-16 order), then ``queueId - o.queueId`` (int
        overflow included)."""
    def to_list(self) -> list[Any]:
        """``[topic, broker_name, queue_id]``, the vectors' encoding."""
    def __hash__(self) -> int:
        """A hash consistent with ``==``."""
    def __eq__(self, other: object, /) -> bool:
        """Java's ``equals``: same topic, broker name and queue id."""
    def __lt__(self, other: MessageQueue, /) -> bool:
        """``compare_to(other) < 0``."""
    def __le__(self, other: MessageQueue, /) -> bool:
        """``compare_to(other) <= 0``."""
    def __gt__(self, other: MessageQueue, /) -> bool:
        """``compare_to(other) > 0``."""
    def __ge__(self, other: MessageQueue, /) -> bool:
        """``compare_to(other) >= 0``."""

@final
class PermName:
    """Broker / queue permission bits, as ``org.apache.rocketmq.common.constant.PermName`` (not instantiable)."""

    PERM_PRIORITY: ClassVar[int]
    """``PERM_PRIORITY``: 0x8."""
    PERM_READ: ClassVar[int]
    """``PERM_READ``: 0x4."""
    PERM_WRITE: ClassVar[int]
    """``PERM_WRITE``: 0x2."""
    PERM_INHERIT: ClassVar[int]
    """``PERM_INHERIT``: 0x1."""
    @staticmethod
    def perm_to_string(perm: int) -> str:
        """``PermName.perm2String(perm)``: ``R``, ``W``, ``X`` (inherit), each ``-`` when its bit is not set."""
    @staticmethod
    def is_readable(perm: int) -> bool:
        """``PermName.isReadable(perm)``: the read bit is set."""
    @staticmethod
    def is_writeable(perm: int) -> bool:
        """``PermName.isWriteable(perm)``: the write bit is set."""
    @staticmethod
    def is_inherited(perm: int) -> bool:
        """``PermName.isInherited(perm)``: the inherit bit is set."""
    @staticmethod
    def is_priority(perm: int) -> bool:
        """``PermName.isPriority(perm)``: the priority bit is set."""
    @staticmethod
    def is_valid(perm: int) -> bool:
        """``PermName.isValid(perm)``: ``0 <= perm < PERM_PRIORITY``."""
    @staticmethod
    def is_accessible(perm: int) -> bool:
        """``PermName.isAccessible(perm)``: readable or writeable."""

@final
class QueueData:
    """One broker's queues of a topic (``org.apache.rocketmq.remoting.protocol.route.QueueData``). Immutable;
    ``broker_name`` may be None (Java null): such a queue data matches no broker."""

    def __new__(
        cls,
        broker_name: str | None,
        read_queue_nums: int,
        write_queue_nums: int,
        perm: int | None = None,
        topic_sys_flag: int | None = None,
    ) -> QueueData:
        """A queue data; ``perm`` None is 6 (read and write), ``topic_sys_flag`` None is 0."""
    @property
    def broker_name(self) -> str | None:
        """``brokerName`` (None: Java null)."""
    @property
    def read_queue_nums(self) -> int:
        """``readQueueNums``: the queues consumers read."""
    @property
    def write_queue_nums(self) -> int:
        """``writeQueueNums``: the queues producers write."""
    @property
    def perm(self) -> int:
        """``perm``: the :class:`PermName` bits."""
    @property
    def topic_sys_flag(self) -> int:
        """``topicSysFlag``."""
    def java_hash_code(self) -> int:
        """Java's ``hashCode()``."""
    def compare_to(self, other: QueueData) -> int:
        """Java's ``compareTo``: the broker names in UTF-16 order (a None name is a NullPointerError)."""
    def to_dict(self) -> dict[str, Any]:
        """The name server's camelCase JSON object."""

@final
class BrokerData:
    """A broker group (``org.apache.rocketmq.remoting.protocol.route.BrokerData``): its cluster, name, addresses
    by broker id (0 is the master) and, in 5.x, ``zone_name`` and ``enable_acting_master``. Immutable."""

    def __new__(
        cls,
        cluster: str | None,
        broker_name: str,
        broker_addrs: Mapping[int | str, str | None] | None = None,
        *,
        zone_name: str | None = None,
        enable_acting_master: bool = ...,
    ) -> BrokerData:
        """A broker data; ``broker_addrs`` None is Java null (converting a route that needs it raises)."""
    @property
    def cluster(self) -> str | None:
        """``cluster`` (None: Java null)."""
    @property
    def broker_name(self) -> str:
        """``brokerName``."""
    @property
    def broker_addrs(self) -> dict[int, str | None] | None:
        """``brokerAddrs``: broker id -> address, a fresh copy, or None (Java null)."""
    @property
    def zone_name(self) -> str | None:
        """5.x ``zoneName`` (None: Java null)."""
    @property
    def enable_acting_master(self) -> bool:
        """5.x ``enableActingMaster``."""
    def java_hash_code(self) -> int:
        """Java's ``hashCode()``."""
    def compare_to(self, other: BrokerData) -> int:
        """Java's ``compareTo``: the broker names in UTF-16 order."""
    def to_dict(self) -> dict[str, Any]:
        """The name server's camelCase JSON object."""

LOGICAL_QUEUE_MOCK_BROKER_PREFIX: str
LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST: str
METADATA_SCOPE_GLOBAL: str

def mock_broker_name(scope: str) -> str:
    """``TopicQueueMappingUtils.getMockBrokerName(scope)``: the broker name of a scope's logic queues."""

@final
class TopicQueueMappingInfo:
    """5.x ``TopicQueueMappingInfo``: which logic queue ids (``curr_id_map``: global id -> physical queue id) one
    broker hosts for a static topic, under which ``scope`` and ``epoch``. Immutable."""

    def __new__(
        cls,
        topic: str | None,
        total_queues: int,
        bname: str | None,
        epoch: int,
        *,
        scope: str | None = ...,
        dirty: bool = ...,
        curr_id_map: Mapping[int | str, int] | None = ...,
    ) -> TopicQueueMappingInfo:
        """Java's ``(topic, totalQueues, bname, epoch)``; ``scope`` defaults to ``"__global__"`` and
        ``curr_id_map`` to an empty map, as Java's field initialisers do (None is Java null)."""
    @property
    def topic(self) -> str | None:
        """``topic`` (None: Java null)."""
    @property
    def scope(self) -> str | None:
        """``scope`` (None: Java null)."""
    @property
    def total_queues(self) -> int:
        """``totalQueues``: the logic queues of the static topic."""
    @property
    def bname(self) -> str | None:
        """``bname``: the broker this mapping is for (None: Java null)."""
    @property
    def epoch(self) -> int:
        """``epoch``."""
    @property
    def dirty(self) -> bool:
        """``dirty``."""
    @property
    def curr_id_map(self) -> dict[int, int] | None:
        """``currIdMap``: a fresh copy (insertion order), or None (Java null)."""
    def java_hash_code(self) -> int:
        """Java's ``hashCode()``."""
    def to_dict(self) -> dict[str, Any]:
        """The name server's camelCase JSON object (fastjson's bean names); ``currIdMap`` keys as strings."""

@final
class TopicRouteData:
    """A topic's route as the name server returns it (``TopicRouteData``, 5.3.3 with 4.9.8's behaviour under
    ``compat="4.9"``). Immutable: every dict or list it hands out is a fresh copy."""

    def __new__(
        cls,
        queue_datas: Iterable[QueueData] | None = ...,
        broker_datas: Iterable[BrokerData] | None = ...,
        order_topic_conf: str | None = None,
        *,
        filter_server_table: Mapping[str, Iterable[str] | None] | None = ...,
        topic_queue_mapping_by_broker: Mapping[str, TopicQueueMappingInfo] | None = None,
    ) -> TopicRouteData:
        """The lists default to empty and the filter table to ``{}`` (5.3.3's constructor); an explicit None
        keeps Java null."""
    @staticmethod
    def from_json(data: str | bytes | Mapping[str, Any]) -> TopicRouteData:
        """Build from the name server's JSON (fastjson's bean names), given as text or as a decoded dict."""
    @property
    def queue_datas(self) -> tuple[QueueData, ...] | None:
        """``queueDatas``, or None (Java null)."""
    @property
    def broker_datas(self) -> tuple[BrokerData, ...] | None:
        """``brokerDatas``, or None (Java null)."""
    @property
    def order_topic_conf(self) -> str | None:
        """``orderTopicConf`` (None: Java null)."""
    @property
    def filter_server_table(self) -> dict[str, list[str] | None] | None:
        """``filterServerTable``: broker address -> filter servers (a fresh dict), or None."""
    @property
    def topic_queue_mapping_by_broker(self) -> dict[str, TopicQueueMappingInfo] | None:
        """5.x ``topicQueueMappingByBroker``: broker name -> ``TopicQueueMappingInfo`` (a fresh dict), or None."""
    def is_order_topic(self) -> bool:
        """Whether ``orderTopicConf`` decides the publish queues (a non-empty string)."""
    def sorted_queue_datas(self) -> tuple[QueueData, ...]:
        """Queue datas in the order Java's ``Collections.sort`` leaves them (by broker name, stable)."""
    def subscribe_queues(self, topic: str, compat: str | None = None) -> list[MessageQueue]:
        """The queues a consumer reads, without duplicates, sorted by ``MessageQueue.compareTo`` (5.3: the logic
        queues of a static topic). ``compat`` None is ``"5.3"``."""
    def publish_queues(self, topic: str, compat: str | None = None) -> tuple[list[MessageQueue], bool]:
        """The publish queues and whether the topic is ordered (5.3: the logic queues of a static topic).
        ``compat`` None is ``"5.3"``."""
    def endpoints_for_static_topic(self, topic: str) -> dict[MessageQueue, str | None]:
        """5.3.3's ``ClientMetadata.topicRouteData2EndpointsForStaticTopic``: each logic queue -> the broker
        holding it, ordered by ``MessageQueue.compareTo``."""
    def java_hash_code(self, compat: str | None = None) -> int:
        """Java's ``hashCode()`` (4.9.8's has no mapping term); ``compat`` None is ``"5.3"``."""
    def topic_route_data_changed(self, old: TopicRouteData | None) -> bool:
        """5.3.3's ``topicRouteDataChanged(old)``: whether this route differs from ``old`` once both are copied
        and their queue and broker datas sorted (None is a change)."""
    def copy(self) -> TopicRouteData:
        """5.3.3's copy constructor ``new TopicRouteData(route)``: null lists and filter table become empty."""
    def clone_topic_route_data(self, compat: str | None = None) -> TopicRouteData:
        """``cloneTopicRouteData()``: 5.3 (the default, None) raises NullPointerError on a None list or filter
        table, 4.9 copies them as empty."""
    def deep_clone_topic_route_data(self) -> TopicRouteData:
        """5.3.3's ``deepCloneTopicRouteData()``: NullPointerError on a None list or filter table."""
    def to_dict(self) -> dict[str, Any]:
        """The name server's camelCase JSON object (``from_json`` reads it back to an equal route)."""
    def to_json(self) -> str:
        """``to_dict()`` as JSON text."""

@final
class SendWhichQueue:
    """The index behind ``sendWhichQueue`` (and 4.9's ``whichItemWorst``): Java's ``ThreadLocalIndex``
    arithmetic, one value shared by all threads and advanced atomically."""

    def __new__(
        cls, compat: str | None = None, start: int | None = None, random: JavaRandom | int | None = None
    ) -> SendWhichQueue:
        """An index for ``compat`` (None: ``"5.3"``); ``start`` sets the stored value up front, ``random`` (a
        :class:`JavaRandom` or a seed) makes the first draw reproducible."""
    @property
    def compat(self) -> str:
        """The compat profile: ``"5.3"`` or ``"4.9"``."""
    def increment_and_get(self) -> int:
        """``incrementAndGet()``: ``(stored + 1) & 0x7FFFFFFF``, the first call starting from a random draw."""
    def advance(self, count: int) -> int:
        """Advances by ``count`` steps at once (atomically); returns the stored value before them."""
    def reset(self) -> None:
        """5.x ``reset()``: store ``Math.abs(random.nextInt(Integer.MAX_VALUE))``."""
    def get(self) -> int | None:
        """The stored value (None before the first draw)."""
    def set(self, value: int) -> None:
        """Force the stored value (what the vectors call ``start_index``)."""

@final
class Endpoints:
    """A broker's endpoints (Java 5.x ``Endpoints``): an address scheme and ``(host, port)`` addresses, in order;
    equal when the scheme and the addresses are. ``str()`` is Java's facade."""

    def __new__(cls, scheme: str, addresses: Iterable[Sequence[Any]]) -> Endpoints:
        """Endpoints of ``scheme`` (e.g. ``"IPv4"``, ``"DOMAIN_NAME"``) over ``(host, port)`` pairs."""
    @property
    def scheme(self) -> str:
        """The address scheme."""
    @property
    def addresses(self) -> tuple[tuple[str, int], ...]:
        """The ``(host, port)`` addresses, in order."""
    @property
    def facade(self) -> str:
        """Java's ``facade``: e.g. ``ipv4:10.0.0.2:8081,10.0.0.3:8081``."""
    def __hash__(self) -> int:
        """A hash consistent with ``==``."""
    def __eq__(self, other: object, /) -> bool:
        """Java's ``Endpoints.equals``: same scheme and addresses, in order."""

@final
class GrpcMessageQueue:
    """One message queue of a gRPC route (Java's ``MessageQueueImpl``): topic, broker (name, id, endpoints), queue
    id, permission and accepted message types. ``str()`` is Java's ``brokerName.topic.queueId``."""

    def __new__(
        cls,
        topic: str,
        broker_name: str,
        broker_id: int,
        endpoints: Endpoints,
        queue_id: int,
        permission: str | None = None,
        accept_message_types: Iterable[str] | None = None,
    ) -> GrpcMessageQueue:
        """A queue; ``permission`` None is ``"READ_WRITE"``, ``accept_message_types`` None is ``("NORMAL",)``."""
    @property
    def topic(self) -> str:
        """The topic."""
    @property
    def broker_name(self) -> str:
        """The broker name."""
    @property
    def broker_id(self) -> int:
        """The broker id (0 is the master)."""
    @property
    def endpoints(self) -> Endpoints:
        """The broker's endpoints."""
    @property
    def queue_id(self) -> int:
        """The queue id on the broker."""
    @property
    def permission(self) -> str:
        """``"NONE"``, ``"READ"``, ``"WRITE"`` or ``"READ_WRITE"``."""
    @property
    def accept_message_types(self) -> tuple[str, ...]:
        """The message types the queue accepts (e.g. ``"NORMAL"``, ``"FIFO"``)."""
    def is_writable(self) -> bool:
        """Java's ``Permission.isWritable()``: ``WRITE`` or ``READ_WRITE``."""
    def is_readable(self) -> bool:
        """Java's ``Permission.isReadable()``: ``READ`` or ``READ_WRITE``."""
    def is_master(self) -> bool:
        """On the master broker (``broker_id == 0``)."""
    def to_message_queue(self) -> MessageQueue:
        """The remoting ``MessageQueue(topic, broker_name, queue_id)``."""
    def __hash__(self) -> int:
        """A hash consistent with ``==``."""
    def __eq__(self, other: object, /) -> bool:
        """Java's equality: topic, broker, queue id and permission (not the accepted types)."""

@final
class PublishingLoadBalancer:
    """The producer's queue choice over the writable master queues of a route (Java 5.x gRPC client)."""

    def __new__(
        cls, message_queues: Iterable[GrpcMessageQueue], *, start_index: int | None = None
    ) -> PublishingLoadBalancer:
        """A balancer over a route's queues; ``start_index`` None draws a random start, as Java does."""
    @property
    def message_queues(self) -> tuple[GrpcMessageQueue, ...]:
        """The queues it picks from: the eligible master queues, in route order."""
    @property
    def index(self) -> int:
        """The round-robin index now (the value the next pick reads)."""
    def shares_index_with(self, other: PublishingLoadBalancer | SubscriptionLoadBalancer) -> bool:
        """Whether ``other`` advances the same index (one balancer built from the other by ``update``)."""
    def update(self, message_queues: Iterable[GrpcMessageQueue]) -> PublishingLoadBalancer:
        """A balancer over a new route that shares this one's index (Java's ``update``)."""
    def take_message_queues(
        self, excluded: Iterable[Endpoints] | None = None, count: int | None = None
    ) -> list[GrpcMessageQueue]:
        """Java's ``takeMessageQueues``: up to ``count`` queues on distinct brokers from the next round-robin
        position, avoiding ``excluded`` endpoints unless every broker is; None means no exclusion, a count of 1."""
    def take_message_queue_by_message_group(self, message_group: str) -> GrpcMessageQueue:
        """``queues[LongMath.mod(sipHash24(utf8(message_group)).asLong(), n)]``; the index does not move."""
    def __len__(self) -> int:
        """The number of queues it picks from."""

@final
class SubscriptionLoadBalancer:
    """The simple consumer's queue choice over the readable master queues of a route (Java 5.x gRPC client)."""

    def __new__(
        cls, message_queues: Iterable[GrpcMessageQueue], *, start_index: int | None = None
    ) -> SubscriptionLoadBalancer:
        """A balancer over a route's queues; ``start_index`` None draws a random start, as Java does."""
    @property
    def message_queues(self) -> tuple[GrpcMessageQueue, ...]:
        """The queues it picks from: the eligible master queues, in route order."""
    @property
    def index(self) -> int:
        """The round-robin index now (the value the next pick reads)."""
    def shares_index_with(self, other: PublishingLoadBalancer | SubscriptionLoadBalancer) -> bool:
        """Whether ``other`` advances the same index (one balancer built from the other by ``update``)."""
    def update(self, message_queues: Iterable[GrpcMessageQueue]) -> SubscriptionLoadBalancer:
        """A balancer over a new route that shares this one's index (Java's ``update``)."""
    def take_message_queue(self) -> GrpcMessageQueue:
        """``queues[IntMath.mod(index.getAndIncrement(), n)]``."""
    def __len__(self) -> int:
        """The number of queues it picks from."""

@final
class TopicPublishInfo:
    """The queues a producer sends a topic's messages to, with its ``sendWhichQueue`` index (Java's
    ``TopicPublishInfo``)."""

    def __new__(
        cls,
        message_queues: Iterable[MessageQueue],
        *,
        order_topic: bool = False,
        route: TopicRouteData | None = None,
        compat: str | None = None,
        send_which_queue: SendWhichQueue | None = None,
    ) -> TopicPublishInfo:
        """A publish info over ``message_queues``; ``compat`` None is ``"5.3"``, ``send_which_queue`` None a
        fresh index."""
    @staticmethod
    def from_route(topic: str, route: TopicRouteData, compat: str | None = None) -> TopicPublishInfo:
        """``MQClientInstance.topicRouteData2TopicPublishInfo``: the publish queues of ``route`` (``compat`` None
        is ``"5.3"``); leaves ``have_topic_router_info`` False, as Java's converter does."""
    @property
    def message_queues(self) -> tuple[MessageQueue, ...]:
        """``messageQueueList``."""
    @property
    def order_topic(self) -> bool:
        """``orderTopic``."""
    have_topic_router_info: bool
    """``haveTopicRouterInfo``: False until set (Java's client instance sets it to True right after converting
    a route from the name server)."""
    @property
    def route(self) -> TopicRouteData | None:
        """``topicRouteData``, the route it was built from (None when built without one)."""
    @property
    def compat(self) -> str:
        """The compat profile: ``"5.3"`` or ``"4.9"``."""
    @property
    def send_which_queue(self) -> SendWhichQueue:
        """``sendWhichQueue``, the round-robin index."""
    def ok(self) -> bool:
        """Java's ``ok()``: the queue list is non-empty."""
    def __len__(self) -> int:
        """The number of queues."""
    def select_one_message_queue(self, last_broker_name: str | None = None) -> MessageQueue:
        """The next queue round-robin; with ``last_broker_name``, the next one on another broker if any."""
    def select_one_message_queue_filtered(self, *filters: Callable[[MessageQueue], bool]) -> MessageQueue | None:
        """5.x ``selectOneMessageQueue(QueueFilter...)``: one turn at most for a queue every filter accepts."""
    def reset_index(self) -> None:
        """5.x ``resetIndex()``: re-draw the round-robin start."""
    def write_queue_nums_by_broker(self, broker_name: str | None) -> int:
        """``writeQueueNums`` of the first queue data of ``broker_name`` in the route (4.9: writeable only), or
        -1."""

@final
class LatencyFaultTolerance:
    """Fault items by broker name (Java's ``LatencyFaultToleranceImpl``): an item is available once the clock
    reaches its start timestamp; 5.3 items also carry a reachable flag a detector round can restore."""

    detect_interval: int
    """5.3 ``detectInterval``: milliseconds between detector rounds."""
    detect_timeout: int
    """5.3 ``detectTimeout``: the probe timeout in milliseconds."""
    start_detector_enable: bool
    """5.3 ``startDetectorEnable``: whether the detector runs."""
    def __new__(
        cls,
        compat: str | None = None,
        *,
        clock: ManualClock | SystemClock | None = None,
        resolver: Callable[[str], str | None] | Any = None,
        detector: Callable[[str, int], bool] | Any = None,
        detect_interval: int | None = None,
        detect_timeout: int | None = None,
        random: JavaRandom | int | None = None,
    ) -> LatencyFaultTolerance:
        """A table for ``compat`` (None: ``"5.3"``) on ``clock`` (None: the system clock); ``detect_interval``
        None is 2000 ms, ``detect_timeout`` None 200 ms."""
    @property
    def compat(self) -> str:
        """The compat profile: ``"5.3"`` or ``"4.9"``."""
    @property
    def clock(self) -> ManualClock | SystemClock:
        """The clock the items are timed on."""
    @property
    def which_item_worst(self) -> SendWhichQueue:
        """4.9's ``whichItemWorst`` index, used by ``pick_one_at_least``."""
    def update_fault_item(
        self, name: str, current_latency: int, not_available_duration: int, reachable: bool | None = None
    ) -> None:
        """``updateFaultItem``: record ``name``'s latency and make it unavailable for ``not_available_duration``
        ms; ``reachable`` (None: True) is 5.3's flag."""
    def is_available(self, name: str) -> bool:
        """``isAvailable(name)``: no item, or the clock has reached its start timestamp."""
    def is_reachable(self, name: str) -> bool:
        """5.3: the item's reachable flag (True for an unknown broker); 4.9 has no such flag: True."""
    def remove(self, name: str) -> None:
        """``remove(name)``: drop the broker's fault item."""
    def __contains__(self, name: object, /) -> bool:
        """Whether ``name`` has a fault item."""
    def __len__(self) -> int:
        """The number of fault items."""
    def broker_names(self) -> list[str]:
        """Names that have a fault item."""
    def pick_one_at_least(self) -> str | None:
        """A broker to fall back on when none is available (None for an empty table)."""
    def detect_by_one_round(self) -> None:
        """5.3: probe every item whose check time has come."""

@final
class MQFaultStrategy:
    """Java's ``MQFaultStrategy``: chooses the queue of each send attempt and keeps the broker fault table up to
    date (round-robin skipping the last failed broker; with fault tolerance on, unavailable brokers avoided)."""

    send_latency_fault_enable: bool
    """``sendLatencyFaultEnable``: whether the fault table steers the choice (Java default: False)."""
    start_detector_enable: bool
    """5.3 ``startDetectorEnable``: whether the fault table's detector runs."""
    def __new__(
        cls,
        compat: str | None = None,
        send_latency_fault_enable: bool | None = None,
        *,
        start_detector_enable: bool | None = None,
        clock: ManualClock | SystemClock | None = None,
        resolver: Callable[[str], str | None] | Any = None,
        detector: Callable[[str, int], bool] | Any = None,
        detect_interval: int | None = None,
        detect_timeout: int | None = None,
        latency_max: Sequence[int] | None = None,
        not_available_duration: Sequence[int] | None = None,
        latency_fault_tolerance: LatencyFaultTolerance | None = None,
    ) -> MQFaultStrategy:
        """A strategy for ``compat`` (None: ``"5.3"``); None flags are False, None tables Java's defaults, and
        ``latency_fault_tolerance`` None a new table built from ``clock``, ``resolver`` and ``detector``."""
    @property
    def compat(self) -> str:
        """The compat profile: ``"5.3"`` or ``"4.9"``."""
    @property
    def latency_fault_tolerance(self) -> LatencyFaultTolerance:
        """The broker fault table."""
    @property
    def latency_max(self) -> tuple[int, ...] | None:
        """``latencyMax`` (None: Java's null array)."""
    @latency_max.setter
    def latency_max(self, value: Sequence[int] | None) -> None: ...
    @property
    def not_available_duration(self) -> tuple[int, ...] | None:
        """``notAvailableDuration`` (None: Java's null array)."""
    @not_available_duration.setter
    def not_available_duration(self, value: Sequence[int] | None) -> None: ...
    @property
    def isolation_latency(self) -> int:
        """The latency an isolated send counts as: 10000 ms on 5.3, 30000 ms on 4.9."""
    def compute_not_available_duration(self, current_latency: int) -> int:
        """``notAvailableDuration[i]`` for the highest ``i`` with ``current_latency >= latencyMax[i]``, else 0."""
    def update_fault_item(
        self, broker_name: str, current_latency: int, isolation: bool, reachable: bool | None = None
    ) -> None:
        """Records a send's latency (or an isolation); a no-op while fault tolerance is off. ``reachable`` (None:
        True) is 5.3's flag."""
    def select_one_message_queue(
        self, tp_info: TopicPublishInfo, last_broker_name: str | None = None, reset_index: bool | None = None
    ) -> MessageQueue:
        """The queue for the next send attempt; ``last_broker_name`` is the previous failed attempt's broker,
        ``reset_index`` (5.3; None: False) re-draws the round-robin start first."""

@final
class SelectMessageQueueByHash:
    """Java's ``SelectMessageQueueByHash``: ``mqs[|arg.hashCode() % len(mqs)|]`` (Java remainder, then abs)."""

    def __new__(cls, key_type: str | None = None) -> SelectMessageQueueByHash:
        """A selector hashing ``arg`` as ``key_type``: ``"string"``, ``"int"``, ``"long"``, or None (a ``str`` as
        ``String``, an object by its ``java_hash_code()``; an ``int`` needs a key type)."""
    @property
    def key_type(self) -> str | None:
        """``"string"``, ``"int"``, ``"long"``, or None."""
    def select_index(self, arg: Any, num_queues: int) -> int:
        """The index ``select`` picks among ``num_queues`` queues."""
    def select(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> MessageQueue:
        """``MessageQueueSelector.select(mqs, msg, arg)``: the queue ``arg`` hashes to."""
    def __call__(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> MessageQueue:
        """``select(mqs, msg, arg)``."""

@final
class SelectMessageQueueByRandom:
    """Java's ``SelectMessageQueueByRandom``: ``mqs[random.nextInt(len(mqs))]``."""

    def __new__(cls, seed: int | JavaRandom | None = None) -> SelectMessageQueueByRandom:
        """A selector drawing from ``seed`` (or a :class:`JavaRandom`); None seeds from the OS."""
    def select_index(self, num_queues: int) -> int:
        """``random.nextInt(num_queues)``."""
    def select(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> MessageQueue:
        """``MessageQueueSelector.select(mqs, msg, arg)``: a random queue."""
    def __call__(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> MessageQueue:
        """``select(mqs, msg, arg)``."""

@final
class SelectMessageQueueByMachineRoom:
    """Java's ``SelectMessageQueueByMachineRoom`` as it ships: ``select`` always returns None (the class is an
    unfinished stub upstream). Kept for parity; do not use it to route."""

    def __new__(cls, consumer_idcs: Iterable[str] | None = None) -> SelectMessageQueueByMachineRoom:
        """A selector with ``consumerIdcs`` (None: Java null)."""
    @property
    def consumer_idcs(self) -> frozenset[str] | None:
        """``consumerIdcs`` (None: Java null)."""
    def select(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> None:
        """Always None, as Java's."""
    def __call__(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> None:
        """``select(mqs, msg, arg)``: None."""

def md5_hash(key: str) -> int:
    """RocketMQ's ``MD5Hash.hash``: the first 4 bytes of MD5(UTF-8 of ``key``), big-endian, unsigned."""

def allocate_all(
    strategy: Any,
    mq_all: Sequence[MessageQueue] | None,
    cid_all: Sequence[str] | None,
    consumer_group: str | None = None,
) -> dict[str, list[MessageQueue] | None]:
    """Every consumer's queues in one pass: ``{cid: strategy.allocate(consumer_group, cid, mq_all, cid_all)}`` for
    each distinct cid, equal to the per-consumer calls (the same first exception too); ``consumer_group`` None
    is ``""``."""

@final
class ConsistentHashRouter:
    """RocketMQ's ``ConsistentHashRouter``: nodes on a ring of virtual nodes ``"<key>-<replica>"`` (a ``TreeMap``
    of their hashes, signed long order); a key routes to the first virtual node at or after its hash."""

    def __new__(
        cls,
        nodes: Iterable[str] | None = None,
        virtual_node_cnt: int | None = None,
        hash_function: Callable[[str], int] | None = None,
    ) -> ConsistentHashRouter:
        """A ring of ``nodes`` with ``virtual_node_cnt`` (None: 10) virtual nodes each, hashed by
        ``hash_function`` (None: MD5)."""
    def add_node(self, node: str, vnode_count: int) -> None:
        """Adds ``vnode_count`` virtual nodes, numbered after the ones ``node`` already owns."""
    def remove_node(self, node: str) -> None:
        """Removes every virtual node of ``node``."""
    def existing_replicas(self, node: str) -> int:
        """How many ring entries ``node`` owns now."""
    def route_node(self, key: str) -> str | None:
        """The node ``key`` routes to, or None for an empty ring."""
    def route_nodes(self, keys: Any, *, nulls: str | None = None) -> list[str | None]:
        """``route_node`` of every key (a list, a NumPy array or a pyarrow (Chunked)Array of strings); a null key
        raises ``NullPointerError`` (``nulls`` None or ``"raise"``), or routes to None with ``nulls="mask"``."""
    def ring(self) -> list[tuple[int, str, str]]:
        """``[(hash, virtual node key, node), ...]`` in ring order."""
    def __len__(self) -> int:
        """The number of ring entries."""

@disjoint_base
class AllocateMessageQueueStrategy:
    """A consumer group's queue allocation (Java's ``AllocateMessageQueueStrategy``): the base of the
    strategies, not made directly. ``allocate(consumer_group, current_cid, mq_all, cid_all)`` gives the
    current consumer's queues; ``allocate_all`` every consumer's."""

    @property
    def name(self) -> str:
        """The strategy's name, as RocketMQ's ``getName()`` (e.g. ``"AVG"``)."""
    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue] | None:
        """The queues of ``current_cid`` among ``cid_all``, from ``mq_all``: Java's checks, an empty list for a
        consumer not in ``cid_all``."""

@final
class AllocateMessageQueueAveragely(AllocateMessageQueueStrategy):
    """``AVG``: consecutive blocks, the first ``len(mq_all) % len(cid_all)`` consumers one queue more."""

    def __new__(cls) -> AllocateMessageQueueAveragely:
        """Java's ``new AllocateMessageQueueAveragely()``."""
    @property
    def name(self) -> str:
        """``getName()``: ``"AVG"``."""
    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """``allocate(consumerGroup, currentCID, mqAll, cidAll)``: ``current_cid``'s queues."""

@final
class AllocateMessageQueueAveragelyByCircle(AllocateMessageQueueStrategy):
    """``AVG_BY_CIRCLE``: queue ``i`` goes to consumer ``i % len(cid_all)``."""

    def __new__(cls) -> AllocateMessageQueueAveragelyByCircle:
        """Java's ``new AllocateMessageQueueAveragelyByCircle()``."""
    @property
    def name(self) -> str:
        """``getName()``: ``"AVG_BY_CIRCLE"``."""
    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """``allocate(consumerGroup, currentCID, mqAll, cidAll)``: ``current_cid``'s queues."""

@final
class AllocateMessageQueueByConfig(AllocateMessageQueueStrategy):
    """``CONFIG``: every consumer gets ``message_queue_list`` whatever the arguments (Java checks nothing)."""

    def __new__(cls, message_queue_list: Iterable[MessageQueue] | None = None) -> AllocateMessageQueueByConfig:
        """A strategy handing out ``message_queue_list`` (None: Java null)."""
    @property
    def name(self) -> str:
        """``getName()``: ``"CONFIG"``."""
    @property
    def message_queue_list(self) -> list[MessageQueue] | None:
        """``messageQueueList`` (None: Java null)."""
    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue] | None:
        """``message_queue_list``, whatever the arguments."""

@final
class AllocateMessageQueueByMachineRoom(AllocateMessageQueueStrategy):
    """``MACHINE_ROOM``: queues of brokers named ``"<room>@<name>"`` with ``room`` in ``consumer_idcs``, in
    blocks."""

    def __new__(cls, consumer_idcs: Iterable[str] | None = None) -> AllocateMessageQueueByMachineRoom:
        """A strategy for the rooms ``consumer_idcs`` (None: Java null)."""
    @property
    def name(self) -> str:
        """``getName()``: ``"MACHINE_ROOM"``."""
    @property
    def consumer_idcs(self) -> frozenset[str] | None:
        """``consumeridcs`` (None: Java null)."""
    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """``allocate(consumerGroup, currentCID, mqAll, cidAll)``: ``current_cid``'s queues."""

@final
class AllocateMessageQueueConsistentHash(AllocateMessageQueueStrategy):
    """``CONSISTENT_HASH``: each queue goes to the consumer ``str(mq)`` routes to on a ring of the consumers.
    The last ring is kept, keyed by the exact consumer list: a rebalance asks again with the same group."""

    def __new__(
        cls, virtual_node_cnt: int | None = None, hash_function: Callable[[str], int] | None = None
    ) -> AllocateMessageQueueConsistentHash:
        """A strategy with ``virtual_node_cnt`` (None: 10) virtual nodes per consumer, hashed by
        ``hash_function`` (None: MD5)."""
    @property
    def name(self) -> str:
        """``getName()``: ``"CONSISTENT_HASH"``."""
    @property
    def virtual_node_cnt(self) -> int:
        """``virtualNodeCnt``: virtual nodes per consumer."""
    @property
    def hash_function(self) -> Callable[[str], int] | None:
        """``customHashFunction`` (None: MD5)."""
    def router(self, cid_all: Iterable[str]) -> ConsistentHashRouter:
        """The ring ``allocate`` builds for these consumers."""
    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """``allocate(consumerGroup, currentCID, mqAll, cidAll)``: ``current_cid``'s queues."""

@final
class AllocateMessageQueueSticky(AllocateMessageQueueStrategy):
    """``STICKY``: a balanced assignment that keeps as many queues as possible with the consumer that owned them
    in ``previous`` (``{cid: queues}``), so a join or leave moves the fewest queues. Not a Java strategy."""

    def __new__(cls, previous: Mapping[str, Iterable[MessageQueue] | None] | None = None) -> AllocateMessageQueueSticky:
        """A strategy with ``previous`` as the group's previous assignment (None: none, so ``AVG``)."""
    @property
    def name(self) -> str:
        """``"STICKY"``."""
    @property
    def previous(self) -> dict[str, tuple[MessageQueue, ...]]:
        """The previous assignment, ``{cid: (queue, ...)}`` (a copy)."""
    def with_previous(
        self, assignment: Mapping[str, Iterable[MessageQueue] | None] | None
    ) -> AllocateMessageQueueSticky:
        """A new strategy with ``assignment`` as the previous one (e.g. this strategy's last ``allocate_all``)."""
    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """``current_cid``'s part of ``allocate_all(mq_all, cid_all)``."""
    def allocate_all(
        self, mq_all: Sequence[MessageQueue] | None, cid_all: Sequence[str] | None
    ) -> dict[str, list[MessageQueue]]:
        """The whole assignment, ``{cid: queues}`` for each distinct consumer of ``cid_all``, in order."""

@final
class AllocateMessageQueueConsistentHashBounded(AllocateMessageQueueStrategy):
    """``CONSISTENT_HASH_BOUNDED``: consistent hashing with bounded loads: each queue goes to the first consumer
    clockwise on the ``CONSISTENT_HASH`` ring holding fewer than ``capacity`` queues. Not a Java strategy."""

    def __new__(
        cls,
        load_factor: float | None = None,
        virtual_node_cnt: int | None = None,
        hash_function: Callable[[str], int] | None = None,
    ) -> AllocateMessageQueueConsistentHashBounded:
        """A strategy with ``load_factor`` (a finite number >= 1.0; None: 1.25), ``virtual_node_cnt`` (None: 10)
        and ``hash_function`` (None: MD5)."""
    @property
    def name(self) -> str:
        """``"CONSISTENT_HASH_BOUNDED"``."""
    @property
    def load_factor(self) -> float:
        """How many times its fair share a consumer may take at most."""
    @property
    def virtual_node_cnt(self) -> int:
        """Virtual nodes per consumer on the ring."""
    @property
    def hash_function(self) -> Callable[[str], int] | None:
        """The ring's hash function (None: MD5)."""
    def capacity(self, queue_count: int, consumer_count: int) -> int:
        """The most queues one consumer takes: ``ceil(load_factor * queue_count / consumer_count)`` exactly,
        at most ``queue_count``."""
    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """``current_cid``'s part of ``allocate_all(mq_all, cid_all)``."""
    def allocate_all(
        self, mq_all: Sequence[MessageQueue] | None, cid_all: Sequence[str] | None
    ) -> dict[str, list[MessageQueue]]:
        """The whole assignment, ``{cid: queues}`` for each distinct consumer of ``cid_all``, in order."""

@final
class AllocateMachineRoomNearby(AllocateMessageQueueStrategy):
    """``MACHINE_ROOM_NEARBY-<inner>``: consumers take their own room's queues with the inner strategy; queues of
    a room without consumers are shared by all consumers."""

    def __new__(
        cls,
        inner_strategy: Any,
        resolver: Any = None,
        *,
        broker_deploy_in: Callable[[MessageQueue], str | None] | None = None,
        consumer_deploy_in: Callable[[str], str | None] | None = None,
    ) -> AllocateMachineRoomNearby:
        """``inner_strategy`` over rooms given by ``resolver`` (Java's ``MachineRoomResolver``, with
        ``broker_deploy_in(mq)`` and ``consumer_deploy_in(cid)``) or by the two callables."""
    @property
    def name(self) -> str:
        """``getName()``: ``"MACHINE_ROOM_NEARBY-"`` plus the inner strategy's name."""
    @property
    def inner_strategy(self) -> Any:
        """The strategy applied within each room."""
    @property
    def resolver(self) -> Any:
        """The machine room resolver."""
    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """``allocate(consumerGroup, currentCID, mqAll, cidAll)``: ``current_cid``'s queues."""

def java_string_hashes(keys: Any, *, nulls: str | None = None) -> Any:
    """Java ``String.hashCode`` of every key, as an int32 array; a null key raises (``nulls`` None or
    ``"raise"``) or is masked (``nulls="mask"``)."""

def hash_select_indices(keys: Any, num_queues: int, key_type: str | None = None, *, nulls: str | None = None) -> Any:
    """The index ``SelectMessageQueueByHash`` picks among ``num_queues`` queues for every key, as an int32 array;
    ``key_type`` ``"string"`` (None), ``"int"`` or ``"long"``; ``nulls`` None or ``"raise"`` raises, ``"mask"``
    masks."""

def round_robin_indices(counter: SendWhichQueue, count: int, num_queues: int | None = None) -> Any:
    """The next ``count`` values of ``counter.increment_and_get()`` (positions modulo ``num_queues`` if given),
    the counter advanced atomically by ``count``."""

PROFILES: tuple[str, ...]

@final
class ProfileSelector:
    """A ``MessageQueueSelector`` that picks as ``profile``'s client does: ``mqs[index(arg, len(mqs))]``."""

    def __new__(cls, profile: str) -> ProfileSelector:
        """A selector for ``profile``, one of :data:`PROFILES`."""
    @property
    def profile(self) -> str:
        """The client profile it picks as."""
    def select_index(self, key: str, num_queues: int) -> int:
        """The queue index the profile's client picks for ``key`` among ``num_queues`` queues."""
    def select(self, mqs: Sequence[Any], msg: Any, arg: Any) -> Any:
        """``MessageQueueSelector.select(mqs, msg, arg)``: ``mqs[select_index(arg, len(mqs))]``."""
    def __call__(self, mqs: Sequence[Any], msg: Any, arg: Any) -> Any:
        """``select(mqs, msg, arg)``."""

def profile_select_index(key: str, num_queues: int, profile: str) -> int:
    """The queue index ``profile``'s client picks for ``key`` among ``num_queues`` queues."""

def profile_select_indices(
    keys: Any, num_queues: int, profile: str, *, nulls: str | None = None, refused: str | None = None
) -> Any:
    """``profile_select_index`` of every key, as an int32 array (a ``numpy.ma.MaskedArray`` when ``nulls`` or
    ``refused`` is ``"mask"``); None is ``"raise"``."""

def _panic_for_tests(message: str, *, detached: bool = False) -> None:
    """Panics with ``message`` (GIL released when ``detached``): proves a panic reaches Python as
    ``pyo3_runtime.PanicException`` instead of aborting the process."""

def _broker_name_table() -> tuple[int, int]:
    """``(broker names interned now, ids ever handed out)``: shows the interned broker names stay bounded."""
