"""boardwright adapter: vision."""
