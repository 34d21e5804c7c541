"""Search bots: the exact solver of open positions, ISMCTS and PIMC."""
