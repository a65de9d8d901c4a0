"""The host runtime (`sdkruntimepybind`) over npusim's simulator."""
