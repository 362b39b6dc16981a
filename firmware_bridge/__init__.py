"""boardwright adapter: firmware_bridge."""
