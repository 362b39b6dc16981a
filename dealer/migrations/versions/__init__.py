"""One revision file per schema change; each module chains after the current head."""
