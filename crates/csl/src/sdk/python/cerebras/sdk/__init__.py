"""The `cerebras.sdk` modules a host script imports, served by `npusim cs-python`."""
