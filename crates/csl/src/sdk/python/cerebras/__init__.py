"""npusim's stand-in for the Cerebras SDK's Python package (see sdk/runtime)."""
