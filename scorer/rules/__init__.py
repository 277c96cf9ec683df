"""The domain and the rules: terrains, squares, kingdoms, scoring and ranking (no images)."""
