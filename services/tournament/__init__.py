"""The tournament service (``belot serve tournament``): round-robin, Swiss, elimination
and ladder tournaments on the table service, decided by the pure core ``tournament``."""
