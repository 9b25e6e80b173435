"""A2/A3 synchronization: flags between the pipes of one core, EVENT_ID0-7 per pipe pair
(pto-isa include/pto/common/event.hpp; PTOAS PTOAttrs.td EVENT enum); cross-core FFTS flags
(ffts_cross_core_sync / wait_flag_dev) with ids 0-15, on any pipe (PTOAS's a2a3 verifier
checks no pipe)."""

from targets.info import SyncFacts

SYNC = SyncFacts(
    flag_pipes=frozenset({"PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_FIX"}),
    flag_events=8,
    cross_core_pipes=None,
    cross_core_events=16,
    source="pto-isa event.hpp (PIPE_* per op); PTOAS PTOAttrs.td (EVENT_ID0-7), PTO.cpp SyncSetOp::verify",
)
