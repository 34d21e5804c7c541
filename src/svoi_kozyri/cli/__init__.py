"""The ``svoi-kozyri`` command line (a surface: may import every layer)."""
