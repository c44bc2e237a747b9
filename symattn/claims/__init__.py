"""Claims and rounding: printed numbers, their verdicts, and the diagnosis of wrong ones."""
