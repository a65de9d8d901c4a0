"""npusim's cerebras.sdk.debug: reading `<debug>` traces back (see debug_util)."""
