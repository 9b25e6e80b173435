from pto_dialect.instructions.tcolargmin import TCOLARGMIN
from targets.cpu.rules import RULES as CPU_RULES

RULES = {instruction: row for instruction, row in CPU_RULES.items() if instruction is not TCOLARGMIN}
