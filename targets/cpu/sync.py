"""The pto-isa CPU simulator runs every statement in program order; its set_flag, wait_flag and
pipe_barrier do nothing. It accepts what the NPU targets accept (A2/A3's facts), so that a kernel
checked here builds for them."""

from targets.a2a3.sync import SYNC

__all__ = ["SYNC"]
