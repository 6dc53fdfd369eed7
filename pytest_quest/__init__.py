"""pytest-quest: one quest per function, a deterministic gate, a ratchet that only goes up.

The public API is small on purpose: the ledger, the states and the gate's
catalog. Everything else is reached through the CLI or the pytest plugin.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
