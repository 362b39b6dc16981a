"""boardwright adapter: webpanel."""
