"""
Differential runs of random PTO kernels: this project's cpu interpreter against pto-isa's CPU
simulator, bit for bit (harness.py says how; generators/ holds one module per instruction
family). Not part of the installed project: `python -m bench.simdiff --pto-isa DIR`.
"""
