"""Cut a rectified kingdom into squares, classify them and decode a consistent kingdom."""
