"""Transactional messages: ``TransactionMQProducer`` and ``TransactionListener``.

A transaction is a half message and the producer's word on it:

1. :meth:`TransactionProducer.send_message_in_transaction` sends the message as a half message (``TRAN_MSG=true``,
   ``PGROUP``, sysFlag ``TRANSACTION_PREPARED_TYPE``) with the sync send and its retries; the broker stores it
   where no consumer sees it.
2. Once the broker has it (``SEND_OK``), the ``executor(msg, arg)`` runs the local transaction and returns a
   :class:`LocalTransactionState`; any other status rolls back (Java's ``sendMessageInTransaction``).
3. END_TRANSACTION (37), oneway, to that broker: commit (the message becomes visible), rollback (it never does) or
   unknown (no word: the broker will ask).
4. For a half message without a word after ``transactionTimeOut`` (6 s), the broker sends CHECK_TRANSACTION_STATE
   (39) to a connection of a producer of the group, every ``transactionCheckInterval`` and up to
   ``transactionCheckMax`` times; the ``checker(msg)`` answers it on the producer's check threads, and the
   producer ends the transaction with that answer (``fromTransactionCheck=true``). The check may reach any producer
   of the group that heartbeats to the broker: one restarted after a crash between steps 1 and 3 too.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import enum
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...loggers import get_logger
from ...protocol import RemotingCommand
from ...protocol.headers.transaction import (
    TRANSACTION_COMMIT_TYPE,
    TRANSACTION_NOT_TYPE,
    TRANSACTION_ROLLBACK_TYPE,
    CheckTransactionStateRequestHeader,
    EndTransactionRequestHeader,
)
from ...send import CommunicationMode
from ..message import Message
from ..message_decode import MessageExt
from ..namespace import unwrap, wrap
from .producer import Producer
from .send_result import SendResult, SendStatus

__all__ = ["LocalTransactionState", "TransactionProducer", "TransactionSendResult"]

log = get_logger("producer")


class LocalTransactionState(enum.Enum):
    """``LocalTransactionState``: what the local transaction came to (``UNKNOW`` is Java's spelling;
    ``UNKNOWN`` is the same member)."""

    COMMIT_MESSAGE = "COMMIT_MESSAGE"
    ROLLBACK_MESSAGE = "ROLLBACK_MESSAGE"
    UNKNOW = "UNKNOW"
    UNKNOWN = "UNKNOW"

    @property
    def end_type(self) -> int:
        """END_TRANSACTION's ``commitOrRollback``: 8, 12, or 0 for unknown."""
        return _END_TYPES[self.value]


_END_TYPES = {
    "COMMIT_MESSAGE": TRANSACTION_COMMIT_TYPE,
    "ROLLBACK_MESSAGE": TRANSACTION_ROLLBACK_TYPE,
    "UNKNOW": TRANSACTION_NOT_TYPE,
}


@dataclass(frozen=True)
class TransactionSendResult(SendResult):
    """``TransactionSendResult``: the half message's :class:`SendResult` and the local transaction's state."""

    local_transaction_state: LocalTransactionState = LocalTransactionState.UNKNOW


Executor = Callable[[Message, Any], "LocalTransactionState | None"]
Checker = Callable[[MessageExt], "LocalTransactionState | None"]


def _commit_log_offset(offset_msg_id: str | None) -> int:
    """``MessageDecoder.decodeMessageId(offsetMsgId).getOffset()``: the last 8 bytes of the broker's message id
    (its store host, 8 or 20 bytes, then the commit-log offset), in hex."""
    if not offset_msg_id or len(offset_msg_id) not in (32, 56):
        raise ValueError(f"the send result has no broker message id to end the transaction with: {offset_msg_id!r}")
    return int(offset_msg_id[-16:], 16)


class TransactionProducer(Producer):
    """``TransactionMQProducer``: a :class:`~rocketroute.client.Producer` (every argument and setting of it, and its
    plain sends) that also sends transactional messages (see the module).

    ``executor(msg, arg)``: ``TransactionListener.executeLocalTransaction``, called on the sending thread once the
    half message is stored; ``msg`` is a copy of the message with ``transaction_id`` set. ``checker(msg)``:
    ``checkLocalTransaction``, called on one of ``check_threads`` threads (Java's ``checkThreadPoolMinSize``, 1)
    with the half message as the broker stored it (:class:`~rocketroute.client.MessageExt`, ``transaction_id``
    set). Each returns a :class:`LocalTransactionState`; ``None`` or an exception (which is logged) counts as
    ``UNKNOW`` (the broker asks again later), as in Java. ``check_queue``: the checks that may wait for a thread (Java's
    ``checkRequestHoldMax``, 2000); a broker's check beyond it is dropped (the broker asks again)."""

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str = "DEFAULT_PRODUCER",
        *,
        executor: Executor,
        checker: Checker,
        check_threads: int = 1,
        check_queue: int = 2000,
        **kwargs: Any,
    ) -> None:
        if not callable(executor) or not callable(checker):
            raise TypeError("a TransactionProducer needs an executor(msg, arg) and a checker(msg), both callables")
        for name, value in (("check_threads", check_threads), ("check_queue", check_queue)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        super().__init__(namesrv, group, **kwargs)
        self.executor = executor
        self.checker = checker
        self.check_threads = check_threads
        self.check_queue = check_queue
        self._checks: concurrent.futures.ThreadPoolExecutor | None = None
        self._checks_waiting = 0
        self._checks_lock = threading.Lock()  # the count is raised on the loop thread, lowered on check threads

    def start(self) -> TransactionProducer:
        if self._checks is None:
            self._checks = concurrent.futures.ThreadPoolExecutor(
                self.check_threads, thread_name_prefix=f"rocketroute-tx-check-{self.group}"
            )
        super().start()
        # the route of create_topic_key that start() fetches names the brokers: wait for it here, so that the
        # heartbeat under the group reaches them within a second (a producer started after a crash is checked)
        try:
            if self._prefetch is not None:
                self._prefetch.result(self.settings.mq_client_api_timeout / 1000 + 1)
        except Exception as e:
            log.info("the route of %s did not come at start: %r", self.settings.create_topic_key, e)
        return self

    def shutdown(self) -> None:
        super().shutdown()
        if self._checks is not None:  # checks not begun are dropped: the broker asks again
            self._checks.shutdown(wait=False, cancel_futures=True)

    # -- the transaction ------------------------------------------------------------------------------------------

    def send_message_in_transaction(
        self, msg: Message, arg: Any = None, *, timeout_ms: int | None = None
    ) -> TransactionSendResult:
        """``sendMessageInTransaction``: send ``msg`` as a half message, run the executor, end the transaction (see
        the module). A send that fails raises as :meth:`send` does, and the executor does not run. The result's
        ``local_transaction_state`` is what the producer told the broker."""
        enc = self._wire.encode(msg, transaction=True)
        life = self._life
        life.accept()  # the whole transaction: a shutdown waits for its END_TRANSACTION too
        try:
            return self._in_transaction(enc, msg, arg, timeout_ms)
        finally:
            life.inflight.end()

    def _in_transaction(self, enc: Any, msg: Message, arg: Any, timeout_ms: int | None) -> TransactionSendResult:
        sync = CommunicationMode.SYNC
        result: SendResult = self._sender.send_sync(enc, msg, None, None, timeout_ms, sync, accepted=True)
        failure: BaseException | None = None
        if result.send_status is SendStatus.SEND_OK:
            copy = dataclasses.replace(msg, transaction_id=enc.msg_id)
            state, failure = self._ask("executor", lambda: self.executor(copy, arg), "local transaction", enc.msg_id)
        else:  # not stored safely (flush or slave timeout): Java rolls back
            state = LocalTransactionState.ROLLBACK_MESSAGE
        try:
            self._end(result, state, failure)
        except Exception as e:  # Java logs it: the broker checks a half message that got no word
            log.warning("ending transaction %s with %s failed (the broker will check it): %r", enc.msg_id, state, e)
        return TransactionSendResult(**{f.name: getattr(result, f.name) for f in dataclasses.fields(SendResult)},
                                     local_transaction_state=state)  # fmt: skip

    @staticmethod
    def _ask(
        who: str, call: Callable[[], object], what: str, transaction_id: str | None
    ) -> tuple[LocalTransactionState, BaseException | None]:
        """The state the executor or the checker (``who``) says, and the exception it raised: ``None`` or an
        exception (logged) counts as ``UNKNOW``, as in Java (the broker checks later)."""
        try:
            said = call()
            if said is None:
                return LocalTransactionState.UNKNOW, None
            if not isinstance(said, LocalTransactionState):
                raise TypeError(f"the {who} returned {said!r}, not a LocalTransactionState")
            return said, None
        except Exception as e:
            log.warning("the %s of %s raised, its state is UNKNOW: %r", what, transaction_id, e)
            return LocalTransactionState.UNKNOW, e

    def _send_end(self, addr: str, header: EndTransactionRequestHeader, failure: BaseException | None) -> None:
        """END_TRANSACTION, oneway (Java's ``endTransactionOneway``), the executor's or checker's exception in the
        remark as Java puts it there. Also while the producer is stopping: a transaction accepted before ends."""
        remoting = self._life.live_remoting()
        request = header.request(self.compat)
        if failure is not None:
            branch = "checkLocalTransactionState" if header.from_transaction_check else "executeLocalTransactionBranch"
            request.remark = f"{branch} exception: {failure!r}"
        remoting.invoke_oneway(addr, request)

    def _end(self, result: SendResult, state: LocalTransactionState, failure: BaseException | None) -> None:
        """``endTransaction``: END_TRANSACTION oneway to the broker that stored the half message."""
        topic = wrap(self.namespace, result.queue.topic)  # the result shows the plain topic
        sent_to = self._rr.MessageQueue(topic, result.queue.broker_name, result.queue.queue_id)
        broker_name = self._wire.broker_name_of(sent_to)
        addr = self._wire.broker_addr(broker_name)
        if addr is None:
            raise LookupError(f"the broker {broker_name} is not in the route any more")
        header = EndTransactionRequestHeader(
            producer_group=self.group,
            tran_state_table_offset=result.queue_offset,
            commit_log_offset=_commit_log_offset(result.offset_msg_id),
            commit_or_rollback=state.end_type,
            from_transaction_check=False,
            msg_id=result.msg_id,
            transaction_id=result.transaction_id,
            topic=topic,
            broker_name=broker_name,
        )
        self._send_end(addr, header, failure)

    # -- the broker's check -----------------------------------------------------------------------------------

    def _on_check_transaction(self, cmd: RemotingCommand, addr: str, msg: MessageExt) -> None:
        """CHECK_TRANSACTION_STATE from the broker at ``addr`` (on the loop): the check goes to a check thread
        (the checker sees the message's plain topic, as Java's)."""
        msg.topic = unwrap(self.namespace, msg.topic)
        pool = self._checks
        if pool is None or self._life.state != "running":
            return
        header = CheckTransactionStateRequestHeader.from_ext_fields(cmd.ext_fields)
        with self._checks_lock:
            if self._checks_waiting >= self.check_queue:
                log.warning("transaction check of %s dropped: %d checks wait already", msg.transaction_id,
                            self.check_queue)  # fmt: skip
                return
            self._checks_waiting += 1
        try:
            pool.submit(self._check, addr, header, msg)
        except RuntimeError:  # shut down meanwhile
            with self._checks_lock:
                self._checks_waiting -= 1

    def _check(self, addr: str, header: CheckTransactionStateRequestHeader, msg: MessageExt) -> None:
        with self._checks_lock:
            self._checks_waiting -= 1
        state, failure = self._ask("checker", lambda: self.checker(msg), "transaction check", msg.transaction_id)
        end = EndTransactionRequestHeader(
            producer_group=self.group,
            tran_state_table_offset=header.tran_state_table_offset,
            commit_log_offset=header.commit_log_offset,
            commit_or_rollback=state.end_type,
            from_transaction_check=True,
            msg_id=msg.transaction_id or header.msg_id,
            transaction_id=header.transaction_id,
            topic=header.topic,
            broker_name=header.broker_name,
        )
        try:
            self._send_end(addr, end, failure)
        except Exception as e:
            log.warning("answering the transaction check of %s failed: %r", msg.transaction_id, e)
