"""What the project knows about one hardware target: the registry's entry type."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.ir import Dialect

    from pto_dialect.cost import CalibratedMachine, Machine

COST_MODELS = ("pto-isa", "calibrated")
"""`--cost-model`: each target's pto-isa machine (`costs`: pto-isa's own cost model; on cpu the
simulator's steps), or its machine fitted to public hardware figures (`calibrated`)."""

MEMORY_NAMES = {"vec": "UB", "mat": "L1", "left": "L0A", "right": "L0B", "acc": "L0C", "bias": "BT", "scaling": "FB"}
"""The hardware's name of the memory behind each tile loc (for messages)."""


@dataclass(frozen=True)
class SimtBudget:
    """UB a kernel with a SIMT launch may use (the rest is the SIMT data cache)."""

    max_bytes: int
    default_bytes: int
    """... of which a kernel may use more than this only by declaring `pto.dyn_ubuf_size`."""


@dataclass(frozen=True)
class SyncFacts:
    """What a target's synchronization hardware has (targets/<t>/sync.py): read by
    pto-verify-target, the sync checker and pto-insert-sync."""

    flag_pipes: frozenset[str]
    """The pipes a set_flag / wait_flag may name (PIPE_* spellings); any two different ones pair."""
    flag_events: int
    """Event ids per pipe pair: EVENT_ID0 .. EVENT_ID(n-1)."""
    cross_core_pipes: frozenset[str] | None
    """The pipes a pto.sync.set / sync.wait may name (None: any single pipe)."""
    cross_core_events: int
    """FFTS flag ids: 0 .. n-1."""
    source: str
    """Where these facts come from."""


@dataclass(frozen=True)
class RegisterLevel:
    """A target whose kernels can also be written at the register level (PTOAS's vpto ops: vector and
    predicate registers, typed pointers, DMA micro-ops): read by pto-verify-target and the interpreter."""

    ub_loc: str
    """The tile loc whose memory the `!pto.ptr<T, ub>` pointers address (its size is `on_chip_bytes`)."""
    source: str
    """Where the fact comes from."""


class IncompleteTarget(Exception):
    """A target's folder lacks an instruction's rule row or lowering."""


_CHECKED: dict[tuple[str, str], Any] = {}
"""The per-instruction tables found complete, by (module, name): read once per op by the
verifier, the passes and the interpreter, a table is checked once."""


def _per_instruction(module: str, name: str, what: str) -> property:
    """The target's table `name` in `<package>.<module>`, imported on first use and checked
    to hold an entry for every instruction of the registry (and nothing else)."""

    def read(self: TargetInfo) -> Any:
        from pto_dialect.instructions import REGISTRY

        key = (f"{self.package}.{module}", name)
        table = getattr(import_module(key[0]), name)
        if _CHECKED.get(key) is table:
            return table
        entries = table.table if hasattr(table, "table") else table
        missing = [i.name for i in REGISTRY if i not in entries]
        extra = [str(i) for i in entries if i not in REGISTRY]
        if missing or extra:
            raise IncompleteTarget(
                f"{self.package}.{module}.{name} has no {what} for {', '.join(missing) or '-'}"
                + (f" and one for {', '.join(extra)}, which the registry does not list" if extra else "")
            )
        _CHECKED[key] = table
        return table

    return property(read)


@dataclass(frozen=True, eq=False)  # one object per target: compared and hashed by identity
class TargetInfo:
    """One target: names and memories here; per instruction, its rule row (`<package>.rules`)
    and its lowering with the lowered dialect (`<package>.lowering`); its cost parameters
    (`<package>.costs`), imported on first use
    so that a command that needs none of them does not pay for them.

    The interpreter runs the ops of `dialect` (each subclasses a lowered-op base of its
    instruction's module, which names the kernel that runs it)."""

    name: str
    summary: str
    on_chip_bytes: Mapping[str, int]
    """Bytes of each on-chip memory that tiles are placed in, by tile loc."""
    tile_capacity_bytes: Mapping[str, int]
    """Bytes of the memories behind the other tile locs (left, right, acc, bias, scaling)."""
    simt_budget: SimtBudget | None = None
    """Set where an instruction can run as a SIMT launch that shrinks the UB."""
    device_spec_prefixes: tuple[str, ...] = ()
    """`pto.device-spec` values (prefixes) that name this target, as PTOAS reads them."""
    register_level: RegisterLevel | None = None
    """Set where kernels may be written at the register level (pto_dialect/vpto/)."""
    aliases: tuple[str, ...] = ()
    package: str = ""
    """The target's folder as a module name (its rules.py and lowering.py): `targets.<name>` unless given."""

    def __post_init__(self) -> None:
        if not self.package:
            object.__setattr__(self, "package", f"targets.{self.name}")

    @property
    def dialect_name(self) -> str:
        """The name of its lowered dialect, known before the dialect is imported."""
        return f"pto_{self.name}"

    # what lives in the target's folder, imported on first use (properties, not fields)
    rules = _per_instruction("rules", "RULES", "rule row")
    """Each instruction's rule row (an instance of the instruction's `rules` type)."""
    lowering = _per_instruction("lowering", "LOWERING", "lowering")
    """How each instruction lowers (lowering/convert.py TargetLowering)."""

    @property
    def costs(self) -> Machine:
        """The machine model pricing its ops, with every number and its source
        (`<package>.costs`; pto_dialect/cost.py)."""
        return import_module(f"{self.package}.costs").MACHINE

    @property
    def calibrated(self) -> CalibratedMachine | str:
        """The machine fitted to public hardware figures (`--cost-model=calibrated`), or
        why the target has none (`<package>.costs` CALIBRATED / NOT_CALIBRATED)."""
        module = import_module(f"{self.package}.costs")
        return getattr(module, "CALIBRATED", None) or module.NOT_CALIBRATED

    @property
    def sync(self) -> SyncFacts:
        """Its pipes and event ids (`<package>.sync`)."""
        return import_module(f"{self.package}.sync").SYNC

    @property
    def dialect(self) -> Dialect:
        dialect = import_module(f"{self.package}.lowering").DIALECT
        assert dialect.name == self.dialect_name, (dialect.name, self.dialect_name)
        return dialect

    def tile_capacity(self, loc: str) -> int | None:
        """Bytes of the memory behind a tile loc: no tile there can be larger."""
        return self.on_chip_bytes.get(loc, self.tile_capacity_bytes.get(loc))

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<target {self.name}>"
