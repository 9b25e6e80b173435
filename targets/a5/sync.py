"""Ascend 950 synchronization: flags as on A2/A3 (EVENT_ID0-7 per pipe pair); cross-core FFTS
flags with ids 0-15 on PIPE_FIX, MTE1, MTE2, MTE3 or V only (PTOAS PTO.cpp, SyncSetOp::verify
and SyncWaitOp::verify for A5)."""

from targets.info import SyncFacts

SYNC = SyncFacts(
    flag_pipes=frozenset({"PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_FIX"}),
    flag_events=8,
    cross_core_pipes=frozenset({"PIPE_FIX", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_V"}),
    cross_core_events=16,
    source="PTOAS PTOAttrs.td (EVENT_ID0-7); PTO.cpp SyncSetOp::verify / SyncWaitOp::verify (A5)",
)
