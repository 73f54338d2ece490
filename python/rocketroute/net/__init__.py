"""The network layer: connections (:mod:`.connection`), the asyncio remoting client (:mod:`.transport`), and the
one runtime (:mod:`.runtime`) that owns or borrows the event loop and is the only way other threads reach it; TLS
(:mod:`.tls`), the direct writes of blocking callers (:mod:`.direct`), the return path to a caller's loop
(:mod:`.bridge`) and the clients of other loops (:mod:`.caller_loops`) are its parts. The public names are
:mod:`rocketroute.remoting`'s."""
