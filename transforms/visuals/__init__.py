"""visuals family: one module per kind; importing this package registers them."""
